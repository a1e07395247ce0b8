//! The identifier fallback (behaviour.md §3.2) as one walk over the tree instead of a query.
//!
//! Our `*-idents.scm` queries are lists of single-node patterns: `(kind) @cap`, an
//! alternation `[(a) (b)] @cap`, each optionally with `#eq?`, `#not-eq?`, `#any-of?` or
//! `#not-any-of?` on its own capture. Such a query captures exactly the named nodes of
//! those kinds whose text passes the predicate, in document order, so a cursor walk that
//! tests each node's kind in a table finds the same nodes for a fraction of the query
//! cursor's work (on the Linux tree the fallback query was a quarter of a cold run).
//! [`IdentWalk::parse`] accepts only that shape and returns `None` for anything else,
//! which keeps the query; a unit test in `extract.rs` (`walk_agrees_with_query_under`)
//! checks walk and query agree on every fixture of every language that walks.

use std::collections::HashSet;

use tree_sitter::{Language as Grammar, Node};

use crate::Deadline;
use crate::capture::{Capture, resolve};

/// What one pattern keeps of the nodes of its kinds.
#[derive(Debug, Clone)]
enum Keep {
    All,
    Only(HashSet<String>),
    AllBut(HashSet<String>),
}

/// A pattern: its capture and which texts it keeps.
#[derive(Debug, Clone)]
struct Rule {
    capture: Capture,
    keep: Keep,
}

/// A parsed `*-idents.scm`, ready to walk trees of its grammar.
#[derive(Debug)]
pub(crate) struct IdentWalk {
    /// Per node kind id: the rule of the pattern naming that kind, if any.
    rule_of_kind: Vec<Option<u16>>,
    rules: Vec<Rule>,
}

/// Nodes visited between two looks at the clock.
const NODES_PER_CLOCK_CHECK: u32 = 4096;

impl IdentWalk {
    /// The walk equivalent to `source`, or `None` if the query is not a list of
    /// single-node patterns with text predicates (then the query runs instead).
    pub(crate) fn parse(source: &str, grammar: &Grammar) -> Option<IdentWalk> {
        let items = parse_items(&tokenize(source)?)?;
        let mut walk = IdentWalk {
            rule_of_kind: vec![None; grammar.node_kind_count()],
            rules: Vec::new(),
        };
        let mut i = 0;
        while i < items.len() {
            let (kinds, capture, keep, used) = pattern(&items[i..])?;
            let rule = u16::try_from(walk.rules.len()).ok()?;
            walk.rules.push(Rule {
                capture: capture_of(capture)?,
                keep,
            });
            for kind in kinds {
                walk.bind(grammar, kind, rule)?;
            }
            i += used;
        }
        Some(walk)
    }

    /// Points every named kind id called `kind` at `rule` (a kind named twice: `None`).
    fn bind(&mut self, grammar: &Grammar, kind: &str, rule: u16) -> Option<()> {
        let mut found = false;
        for id in 0..u16::try_from(grammar.node_kind_count()).ok()? {
            if grammar.node_kind_is_named(id) && grammar.node_kind_for_id(id) == Some(kind) {
                let slot = self.rule_of_kind.get_mut(usize::from(id))?;
                if slot.replace(rule).is_some_and(|r| r != rule) {
                    return None;
                }
                found = true;
            }
        }
        found.then_some(())
    }

    /// The nodes the query would capture under `root`, with their captures, in the
    /// query's order: grouped by capture in order of first appearance, each group in
    /// document order. Nodes deeper than `max_depth` are not looked at. `false` with the
    /// nodes found so far when the deadline passes.
    pub(crate) fn captures<'t>(
        &self,
        root: Node<'t>,
        source: &[u8],
        max_depth: Option<u32>,
        deadline: Deadline,
    ) -> (Vec<(Capture, Node<'t>)>, bool) {
        let (mut found, complete) = self.walk(root, source, max_depth, deadline);
        let mut groups: Vec<Capture> = Vec::new();
        for (capture, _) in &found {
            if !groups.contains(capture) {
                groups.push(*capture);
            }
        }
        if groups.len() > 1 {
            found.sort_by_key(|(c, _)| groups.iter().position(|g| g == c));
        }
        (found, complete)
    }

    /// The captured nodes in document order.
    fn walk<'t>(
        &self,
        root: Node<'t>,
        source: &[u8],
        max_depth: Option<u32>,
        deadline: Deadline,
    ) -> (Vec<(Capture, Node<'t>)>, bool) {
        let mut out = Vec::new();
        let mut cursor = root.walk();
        let mut depth = 0u32;
        let mut visited = 0u32;
        loop {
            let node = cursor.node();
            if let Some(rule) = self.rule_of(node)
                && self.keeps(rule, node, source)
            {
                out.push((rule.capture, node));
            }
            visited = visited.wrapping_add(1);
            if visited.is_multiple_of(NODES_PER_CLOCK_CHECK) && deadline.expired() {
                return (out, false);
            }
            if max_depth.is_none_or(|m| depth < m) && cursor.goto_first_child() {
                depth += 1;
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return (out, true);
                }
                depth -= 1;
            }
        }
    }

    fn rule_of(&self, node: Node<'_>) -> Option<&Rule> {
        // Only named kind ids are bound (`bind`): an anonymous node never has a rule.
        let rule = (*self.rule_of_kind.get(usize::from(node.kind_id()))?)?;
        Some(&self.rules[usize::from(rule)])
    }

    fn keeps(&self, rule: &Rule, node: Node<'_>, source: &[u8]) -> bool {
        let text = || std::str::from_utf8(&source[node.byte_range()]).unwrap_or("");
        match &rule.keep {
            Keep::All => true,
            Keep::Only(set) => set.contains(text()),
            Keep::AllBut(set) => !set.contains(text()),
        }
    }
}

fn capture_of(name: &str) -> Option<Capture> {
    resolve(name)
        .ok()
        .flatten()
        .filter(|c| c.kind == crate::TagKind::Ref)
}

/// A token of a query's text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    OpenAlt,
    CloseAlt,
    /// `@name`, without the `@`.
    Capture(String),
    /// A bare word: a node kind or a `#predicate?`.
    Word(String),
    Str(String),
}

fn tokenize(source: &str) -> Option<Vec<Token>> {
    let mut out = Vec::new();
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ';' => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            '[' => out.push(Token::OpenAlt),
            ']' => out.push(Token::CloseAlt),
            '"' => {
                let mut s = String::new();
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => return None,
                        c => s.push(c),
                    }
                }
                out.push(Token::Str(s));
            }
            c if c.is_whitespace() => {}
            c => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_whitespace() || "()[]\";".contains(n) {
                        break;
                    }
                    word.push(n);
                    chars.next();
                }
                out.push(match word.strip_prefix('@') {
                    Some(name) => Token::Capture(name.to_owned()),
                    None => Token::Word(word),
                });
            }
        }
    }
    Some(out)
}

/// An s-expression of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    List(Vec<Item>),
    Alt(Vec<Item>),
    Capture(String),
    Word(String),
    Str(String),
}

fn parse_items(tokens: &[Token]) -> Option<Vec<Item>> {
    let mut stack: Vec<(Option<&Token>, Vec<Item>)> = vec![(None, Vec::new())];
    for t in tokens {
        match t {
            Token::Open | Token::OpenAlt => stack.push((Some(t), Vec::new())),
            Token::Close | Token::CloseAlt => {
                let (open, items) = stack.pop()?;
                let item = match (open?, t) {
                    (Token::Open, Token::Close) => Item::List(items),
                    (Token::OpenAlt, Token::CloseAlt) => Item::Alt(items),
                    _ => return None,
                };
                stack.last_mut()?.1.push(item);
            }
            Token::Capture(c) => stack.last_mut()?.1.push(Item::Capture(c.clone())),
            Token::Word(w) => stack.last_mut()?.1.push(Item::Word(w.clone())),
            Token::Str(s) => stack.last_mut()?.1.push(Item::Str(s.clone())),
        }
    }
    let (_, items) = stack.pop()?;
    stack.is_empty().then_some(items)
}

/// One pattern at the start of `items`: its node kinds, capture name, what it keeps, and
/// how many items it took (`(kind) @cap` is two at the top level).
fn pattern(items: &[Item]) -> Option<(Vec<&str>, &str, Keep, usize)> {
    if let (Some(node), Some(Item::Capture(cap))) = (items.first(), items.get(1)) {
        return Some((kinds(node)?, cap, Keep::All, 2));
    }
    // `(NODE @cap PREDICATE*)`
    let Some(Item::List(inner)) = items.first() else {
        return None;
    };
    let [node, Item::Capture(cap), predicates @ ..] = inner.as_slice() else {
        return None;
    };
    let keep = match predicates {
        [] => Keep::All,
        [Item::List(p)] => predicate(p, cap)?,
        _ => return None,
    };
    Some((kinds(node)?, cap, keep, 1))
}

/// `(kind)` or `[(a) (b) …]`: the kinds.
fn kinds(node: &Item) -> Option<Vec<&str>> {
    match node {
        Item::Alt(alts) => alts.iter().map(kind).collect(),
        single => Some(vec![kind(single)?]),
    }
}

/// `(kind)`: the kind.
fn kind(item: &Item) -> Option<&str> {
    match item {
        Item::List(l) => match l.as_slice() {
            [Item::Word(kind)] if !kind.starts_with('#') && kind != "_" => Some(kind),
            _ => None,
        },
        _ => None,
    }
}

/// A text predicate on `cap`.
fn predicate(p: &[Item], cap: &str) -> Option<Keep> {
    let [Item::Word(name), Item::Capture(on), args @ ..] = p else {
        return None;
    };
    if on != cap || args.is_empty() {
        return None;
    }
    let strings: Option<HashSet<String>> = args
        .iter()
        .map(|a| match a {
            Item::Str(s) => Some(s.clone()),
            _ => None,
        })
        .collect();
    let strings = strings?;
    match (name.as_str(), args.len()) {
        ("#eq?" | "#any-of?", n) if name != "#eq?" || n == 1 => Some(Keep::Only(strings)),
        ("#not-eq?" | "#not-any-of?", n) if name != "#not-eq?" || n == 1 => {
            Some(Keep::AllBut(strings))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_single_node_patterns_with_text_predicates_walk() {
        let grammar = crate::grammar(crate::Language::C);
        let ok = r#"
            ; comment
            ([(identifier) (type_identifier)] @name.reference.identifier
              (#not-any-of? @name.reference.identifier "size_t" "FILE"))
            (field_identifier) @name.reference.identifier
            ((null) @name.reference.identifier (#eq? @name.reference.identifier "NULL"))
        "#;
        let walk = IdentWalk::parse(ok, &grammar).expect("walkable");
        assert_eq!(walk.rules.len(), 3);
        for not_ok in [
            "(call_expression function: (identifier) @name.reference.identifier)",
            "((identifier) @name.reference.identifier (#match? @name.reference.identifier \"^a\"))",
            "(identifier) @name.definition.function",
            "(no_such_kind) @name.reference.identifier",
            "(identifier) @name.reference.identifier (identifier) @name.reference.call",
            "(identifier @name.reference.identifier",
        ] {
            assert!(IdentWalk::parse(not_ok, &grammar).is_none(), "{not_ok}");
        }
    }
}
