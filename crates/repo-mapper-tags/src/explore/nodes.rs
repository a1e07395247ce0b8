//! The declaration nodes of many definitions of one file, found in one walk of its tree.
//! [`super::definition_node_on`] scans the definition's row for its name and descends from
//! the root at each occurrence: per definition, the row's length times the root's
//! children. A minified file's one row holds every definition and its root thousands of
//! children, so asking it of each definition costs the file's size squared; one walk with
//! a stack of the path from the root costs each node once.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::{MAX_CLIMB, declarations, is_declaration, text};
use crate::Language;

/// The declaration node of each (row, name) asked of [`DefinitionNodes::of`]: what
/// [`super::definition_node_on`] finds for it, for the occurrences of the name that are a
/// syntax node of their own (one inside a longer token, such as a word of a string, is
/// not looked at).
#[derive(Debug, Default)]
pub struct DefinitionNodes<'t> {
    found: HashMap<(usize, String), Node<'t>>,
}

/// One node on the walk's path from the root.
#[derive(Clone, Copy)]
struct Frame<'t> {
    node: Node<'t>,
    /// The nearest named node at or above it (an index into the path).
    named: Option<usize>,
    /// The nearest declaring node at or above it (an index into the path).
    declaring: Option<usize>,
}

impl<'t> DefinitionNodes<'t> {
    /// The declaration nodes of the definitions `wanted` (each a row, from 0, and a name)
    /// in `tree`, the parse of `source` in `lang`.
    pub fn of<'a>(
        lang: Language,
        source: &str,
        tree: &'t Tree,
        wanted: impl IntoIterator<Item = (usize, &'a str)>,
    ) -> DefinitionNodes<'t> {
        let wanted: HashSet<(usize, &str)> = wanted.into_iter().collect();
        let longest = wanted.iter().map(|(_, n)| n.len()).max().unwrap_or(0);
        let mut walk = Walk {
            source,
            wanted: &wanted,
            longest,
            exact: HashMap::new(),
            fallback: HashMap::new(),
        };
        let mut path: Vec<Frame<'t>> = Vec::new();
        let mut cursor = tree.walk();
        loop {
            let node = cursor.node();
            let above = path.last().copied();
            let at = path.len();
            path.push(Frame {
                node,
                named: if node.is_named() {
                    Some(at)
                } else {
                    above.and_then(|f| f.named)
                },
                declaring: if is_declaration(lang, node) {
                    Some(at)
                } else {
                    above.and_then(|f| f.declaring)
                },
            });
            walk.visit(&path);
            if cursor.goto_first_child() {
                continue;
            }
            path.pop();
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return walk.finish();
                }
                path.pop();
            }
        }
    }

    /// The declaration node of the definition of `name` whose tag is on `row`, if it was
    /// asked for and found.
    pub fn get(&self, row: usize, name: &str) -> Option<Node<'t>> {
        self.found.get(&(row, name.to_owned())).copied()
    }
}

/// The walk's state: what is asked, and what was found so far.
struct Walk<'w, 't> {
    source: &'w str,
    wanted: &'w HashSet<(usize, &'w str)>,
    /// The longest name asked for: longer nodes are not names asked for.
    longest: usize,
    /// Declarations whose name is the occurrence (the first in the row wins).
    exact: HashMap<(usize, String), Node<'t>>,
    /// Else the first declaration around an occurrence that starts on the row.
    fallback: HashMap<(usize, String), Node<'t>>,
}

impl<'t> Walk<'_, 't> {
    /// Looks at the last node of `path` for occurrences of the names asked for: a node
    /// whose text is one (`a::b`, `respond_to?`), and the words of a token (`request`
    /// of Ruby's `:request`).
    fn visit(&mut self, path: &[Frame<'t>]) {
        let Some(&here) = path.last() else {
            return;
        };
        let node = here.node;
        let row = node.start_position().row;
        if row != node.end_position().row || node.byte_range().is_empty() {
            return;
        }
        if node.child_count() == 0 {
            self.token(path);
        } else if node.byte_range().len() <= self.longest
            && node.is_named()
            && !same_range_named_child(node)
        {
            let word = text(self.source, node);
            if self.wanted.contains(&(row, word)) && whole_word(self.source, node.byte_range()) {
                self.occurs(path, path.len() - 1, row, word);
            }
        }
    }

    /// The occurrences in the token that ends `path`: the token whole, and each word in
    /// it (a leading `$` is not part of a PHP name). What a search by position finds at
    /// one is the token if it is named, else the nearest named node above it.
    fn token(&mut self, path: &[Frame<'t>]) {
        let Some(&here) = path.last() else {
            return;
        };
        let Some(at) = here.named else { return };
        let node = here.node;
        let row = node.start_position().row;
        let start = node.start_byte();
        let whole = text(self.source, node);
        if self.wanted.contains(&(row, whole)) && whole_word(self.source, node.byte_range()) {
            self.occurs(path, at, row, whole);
        }
        for (offset, run) in word_runs(whole) {
            let bare = run.trim_start_matches('$');
            let from = start + offset + (run.len() - bare.len());
            for (word, from) in [(run, start + offset), (bare, from)] {
                let asked = !word.is_empty() && word != whole && self.wanted.contains(&(row, word));
                if asked && whole_word(self.source, from..from + word.len()) {
                    self.occurs(path, at, row, word);
                }
                if bare == run {
                    break;
                }
            }
        }
    }

    /// An occurrence of `word` on `row` at the node `path[at]`: the nearest declaring node
    /// at or above it (at most [`MAX_CLIMB`] - 1 parents up) is its declaration if its
    /// name is that node, else a fallback if it starts on the row.
    fn occurs(&mut self, path: &[Frame<'t>], at: usize, row: usize, word: &str) {
        let Some(declared) = path[at].declaring.filter(|&d| at - d < MAX_CLIMB) else {
            return;
        };
        let declaration = path[declared].node;
        let key = (row, word.to_owned());
        let named =
            declarations::name_of(declaration).is_some_and(|n| n.id() == path[at].node.id());
        if named {
            self.exact.entry(key).or_insert(declaration);
        } else if declaration.start_position().row == row {
            self.fallback.entry(key).or_insert(declaration);
        }
    }

    /// What was found: for each name asked, its exact declaration, else its fallback.
    fn finish(mut self) -> DefinitionNodes<'t> {
        for (key, node) in self.fallback {
            self.exact.entry(key).or_insert(node);
        }
        DefinitionNodes { found: self.exact }
    }
}

/// The runs of word characters (letters, digits, `_`, `$`) in `text`, with their offsets.
fn word_runs(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut rest = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = rest.find(|&(_, c)| is_word(c))?;
        let mut end = text.len();
        while let Some(&(i, c)) = rest.peek() {
            if !is_word(c) {
                end = i;
                break;
            }
            rest.next();
        }
        Some((start, &text[start..end]))
    })
}

/// Whether `node`'s first named child spans the same bytes (then it is the child a search
/// by position finds, not `node`).
fn same_range_named_child(node: Node<'_>) -> bool {
    node.named_child(0)
        .is_some_and(|c| c.byte_range() == node.byte_range())
}

/// Whether the text at `range` of `source` stands as a whole word there (PHP's `$`
/// before it does not join it), as [`super::definition_node_on`] finds names.
fn whole_word(source: &str, range: std::ops::Range<usize>) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let before = source
        .get(..range.start)
        .and_then(|s| s.chars().next_back())
        .filter(|&c| c != '$');
    let after = source.get(range.end..).and_then(|s| s.chars().next());
    !before.is_some_and(is_word) && !after.is_some_and(is_word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::definition_node;
    use crate::{Limits, parse_within};

    /// What one walk finds is what a search per definition finds.
    #[test]
    fn one_walk_finds_what_each_search_finds() {
        let cases = [
            (
                Language::C,
                "static struct s s;\nint f(void) { return 0; }\n",
            ),
            (
                Language::JavaScript,
                "function e(t){return t}var v=function(e){return e};class K{m(e){return e}}\n",
            ),
            (
                Language::Python,
                "class A:\n    x = 1\n    def f(self):\n        return self.x\n",
            ),
            (Language::Php, "<?php\nclass A {\n  private $p;\n}\n"),
            (
                Language::Ruby,
                "class K\n  attr_reader :request, :response\n  def respond_to?(m) = true\nend\n",
            ),
            (
                Language::Swift,
                "struct S {\n  static func ==(a: S, b: S) -> Bool { true }\n}\n",
            ),
            (Language::Go, "package p\ntype T struct{ A int }\n"),
        ];
        for (lang, source) in cases {
            let tree = parse_within(lang, source, &Limits::default()).unwrap();
            let words: Vec<(usize, &str)> = source
                .lines()
                .enumerate()
                .flat_map(|(row, line)| {
                    // Words, and tokens such as `respond_to?` and `==`.
                    let words = line.split(|c: char| !c.is_alphanumeric() && c != '_');
                    let tokens = line.split([' ', '(', ')', ':', ',', ';']).filter(|w| {
                        let name = w.trim_end_matches(['?', '!']);
                        name.chars().all(|c| c.is_alphanumeric() || c == '_')
                            || w.chars().all(|c| "=<>!".contains(c))
                    });
                    words
                        .chain(tokens)
                        .filter(|w| !w.is_empty())
                        .map(move |w| (row, w))
                })
                .collect();
            let nodes = DefinitionNodes::of(lang, source, &tree, words.iter().copied());
            for &(row, word) in &words {
                let each = definition_node(lang, source, &tree, row, word).map(|n| n.id());
                let walked = nodes.get(row, word).map(|n| n.id());
                assert_eq!(walked, each, "{lang:?} {row} {word}");
            }
        }
    }
}
