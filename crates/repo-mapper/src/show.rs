//! `show_symbol`: the whole source of a definition, found by file and name or by a line
//! inside it (issue 27, part 2). A map says where to look; this shows it.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use repo_mapper_render::TreeContext;
use repo_mapper_tags::explore::{self, Declared, FileFacts};
use repo_mapper_tags::{
    Dialect, Language, Limits, Tag, TagKind, extract_source_parsed, read_source,
};

use crate::compute::human_size;
use crate::guard::inside_root;
use crate::outline::DOC_CHARS;
use crate::tokens::Tokenizer;

/// What [`show_symbol`] looks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolTarget {
    /// `FILE#NAME`: every definition of `name` in `file` (several when it is ambiguous).
    Name {
        /// The file, relative to the root (or absolute, inside it).
        file: PathBuf,
        /// The defined name.
        name: String,
    },
    /// `FILE:LINE`: the innermost definition whose source holds line `line` (1-based).
    Line {
        /// The file, relative to the root (or absolute, inside it).
        file: PathBuf,
        /// The line, counted from 1.
        line: usize,
    },
}

impl SymbolTarget {
    /// Reads `FILE#NAME` or `FILE:LINE`; `None` for anything else.
    pub fn parse(text: &str) -> Option<SymbolTarget> {
        if let Some((file, name)) = text.rsplit_once('#')
            && !file.is_empty()
            && !name.is_empty()
        {
            let (file, name) = (PathBuf::from(file), name.to_owned());
            return Some(SymbolTarget::Name { file, name });
        }
        let (file, line) = text.rsplit_once(':')?;
        let line = line.parse().ok().filter(|&l| l > 0)?;
        (!file.is_empty()).then(|| SymbolTarget::Line {
            file: PathBuf::from(file),
            line,
        })
    }

    fn file(&self) -> &Path {
        match self {
            SymbolTarget::Name { file, .. } | SymbolTarget::Line { file, .. } => file,
        }
    }
}

/// One definition's source, as [`show_symbol`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShownDefinition {
    /// The file, relative to the root.
    pub file: String,
    /// The defined name.
    pub name: String,
    /// Its first line, counted from 1.
    pub start_line: usize,
    /// Its last line, counted from 1.
    pub end_line: usize,
    /// Its lines, each ending in `\n`: all of them, or as many as the token cap allowed.
    pub source: String,
    /// Lines left out to keep within the cap (then `source` ends with a line saying so).
    pub omitted_lines: usize,
}

/// Why [`show_symbol`] shows nothing; its `Display` is one line.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShowError {
    /// The file lies outside the root.
    OutsideRoot(String),
    /// The file cannot be read (or is not UTF-8).
    Unreadable(String, String),
    /// No language of ours for the file's name.
    NoLanguage(String),
    /// No definition of that name; the names the file defines (some of them).
    NoSuchName(String, String, Vec<String>),
    /// No definition holds that line.
    NoDefinitionAt(String, usize),
    /// The file is larger than the map parses (its default `--max-filesize`, 1 MiB, in the
    /// default dialect): it was not read or parsed. The limit is given.
    TooLarge(String, u64),
}

impl std::fmt::Display for ShowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShowError::OutsideRoot(file) => write!(f, "{file} is outside the repository"),
            ShowError::Unreadable(file, why) => write!(f, "cannot read {file}: {why}"),
            ShowError::NoLanguage(file) => write!(f, "{file}: no supported language"),
            ShowError::NoSuchName(file, name, known) if known.is_empty() => {
                write!(f, "{file} defines no `{name}` (it defines nothing)")
            }
            ShowError::NoSuchName(file, name, known) => write!(
                f,
                "{file} defines no `{name}`; it defines {}",
                known.join(", ")
            ),
            ShowError::NoDefinitionAt(file, line) => {
                write!(f, "no definition in {file} holds line {line}")
            }
            ShowError::TooLarge(file, limit) => write!(f, "{file}: {}", not_parsed(*limit)),
        }
    }
}

impl std::error::Error for ShowError {}

/// Names listed when a name is not found.
const NAMES_LISTED: usize = 12;

/// The source of the definitions `target` names in the repository at `root` (an absolute,
/// canonical path), read and parsed now, in `dialect`'s tags. With `max_tokens`, the
/// definitions together take at most that many tokens of `tokenizer` (the marker lines
/// counted): whole definitions first, then one cut at a line, then none. Nothing outside
/// the root is read.
///
/// The definitions are the tag query's and the declarations the tree holds beyond them
/// ([`repo_mapper_tags::explore::declarations`]). A definition spans its declaration node
/// (the one its name names, in the languages explored: trailing blank lines left out);
/// elsewhere the smallest syntax node that starts where its tag's line's text starts and
/// reaches past that line, or one starting a line or two above (a C function whose return
/// type has a line of its own). Without a tree (the parse ran out of time) a definition is
/// its line.
pub fn show_symbol(
    root: &Path,
    target: &SymbolTarget,
    dialect: Dialect,
    cap: Option<(usize, Tokenizer)>,
) -> Result<Vec<ShownDefinition>, ShowError> {
    let file = DefinedFile::read(root, target.file(), dialect)?;
    let spans = file
        .defs
        .iter()
        .map(|d| (d.name.clone(), d.start, d.end, d.node))
        .collect();
    let rel = file.rel;
    let chosen = choose(target, &rel, spans)?;
    Ok(shown(&file.context, &rel, chosen, cap))
}

/// A file read and parsed for its definitions, with their extents.
pub(crate) struct DefinedFile {
    /// The file, relative to the root.
    pub(crate) rel: String,
    /// Its language.
    pub(crate) lang: Language,
    /// Its lines and scopes.
    pub(crate) context: TreeContext,
    /// Its definitions, in tag order.
    pub(crate) defs: Vec<Definition>,
    /// Its text.
    pub(crate) source: String,
    /// Its syntax tree (`None` when the parse ran out of time).
    pub(crate) tree: Option<tree_sitter::Tree>,
}

/// One definition of a [`DefinedFile`]: rows 0-based.
pub(crate) struct Definition {
    pub(crate) name: String,
    /// The capture's sub-kind (`function`, `class`, `method`, …).
    pub(crate) kind: &'static str,
    /// The row of its tag (where its name is).
    pub(crate) row: usize,
    pub(crate) start: usize,
    pub(crate) end: usize,
    /// A local (a variable in a function's body) or a function expression's own name:
    /// `show_symbol` finds it, an outline leaves it out.
    pub(crate) local: bool,
    /// Who may use it (in an explored language whose declaration was found).
    pub(crate) visibility: Option<repo_mapper_tags::explore::Visibility>,
    /// The first line of its documentation, at most [`DOC_CHARS`] characters (then `…`):
    /// a minified file's one comment line is not copied whole for each definition.
    pub(crate) doc: Option<String>,
    /// Its bytes: its syntax node's, else its line's text.
    pub(crate) bytes: std::ops::Range<usize>,
    /// Where its syntax node lies, when one was found (else only its line is known).
    pub(crate) node: Option<NodeAt>,
}

/// Where a definition's syntax node lies, in (row, byte column) points.
#[derive(Debug, Clone, Copy)]
pub(crate) struct NodeAt {
    /// Its first byte.
    pub(crate) start: tree_sitter::Point,
    /// Just past its last byte.
    pub(crate) end: tree_sitter::Point,
    /// Just past the opening of its body (its `{`, or where a body without one starts),
    /// when it has one: where its signature ends.
    pub(crate) body: Option<tree_sitter::Point>,
}

/// The size above which a file is not parsed: the map's own default rule (its
/// `Config::DEFAULT_MAX_FILE_SIZE` in the default dialect, no limit in Aider's), so that
/// a file the map leaves unparsed is not parsed here either. Parsing is what grows with a
/// file: a 50 MB minified line takes seconds and a gigabyte before it yields anything.
pub(crate) fn max_parsed_size(dialect: Dialect) -> Option<u64> {
    match dialect {
        Dialect::Default => Some(crate::Config::DEFAULT_MAX_FILE_SIZE),
        Dialect::Aider => None,
    }
}

/// What is said of a file left unparsed for its size, worded as the map's warning is
/// (`larger than 1 MiB not parsed`).
pub(crate) fn not_parsed(limit: u64) -> String {
    format!(
        "larger than {} not parsed (the map's --max-filesize default)",
        human_size(limit)
    )
}

/// A file named to [`DefinedFile::read`], checked and not yet read.
pub(crate) struct Located {
    /// Its path inside the root.
    pub(crate) path: PathBuf,
    /// The file, relative to the root.
    pub(crate) rel: String,
    /// Its language.
    pub(crate) lang: Language,
    /// Its size in bytes.
    pub(crate) size: u64,
}

impl Located {
    /// The file `given` (relative to `root`, or absolute inside it): inside the root, of
    /// a language of ours, a regular file.
    pub(crate) fn of(root: &Path, given: &Path, dialect: Dialect) -> Result<Self, ShowError> {
        let shown = given.display().to_string();
        let path = inside_root(root, root, given).ok_or(ShowError::OutsideRoot(shown))?;
        let rel = crate::paths::rel_fname(root, &path);
        let lang = Language::for_path(&path, dialect).ok_or(ShowError::NoLanguage(rel.clone()))?;
        // A FIFO or a device named as the file would block the read or never end.
        let meta = path
            .metadata()
            .map_err(|e| ShowError::Unreadable(rel.clone(), e.to_string()))?;
        if !meta.is_file() {
            return Err(ShowError::Unreadable(rel, "not a regular file".into()));
        }
        let size = meta.len();
        Ok(Located {
            path,
            rel,
            lang,
            size,
        })
    }

    /// The size limit it passes, if it is larger than `dialect` parses.
    pub(crate) fn too_large(&self, dialect: Dialect) -> Option<u64> {
        max_parsed_size(dialect).filter(|&limit| self.size > limit)
    }
}

impl DefinedFile {
    /// The file `given` (relative to `root`, or absolute inside it), read and parsed now;
    /// [`ShowError::TooLarge`] (unread) past [`max_parsed_size`].
    pub(crate) fn read(root: &Path, given: &Path, dialect: Dialect) -> Result<Self, ShowError> {
        let located = Located::of(root, given, dialect)?;
        if let Some(limit) = located.too_large(dialect) {
            return Err(ShowError::TooLarge(located.rel, limit));
        }
        DefinedFile::parse(located, dialect)
    }

    /// The file `located`, read and parsed now, whatever its size.
    pub(crate) fn parse(located: Located, dialect: Dialect) -> Result<Self, ShowError> {
        let Located {
            path, rel, lang, ..
        } = located;
        let source = match read_source(&path) {
            Ok(Some(text)) => text,
            Ok(None) => return Err(ShowError::Unreadable(rel, "not UTF-8".into())),
            Err(e) => return Err(ShowError::Unreadable(rel, e.to_string())),
        };
        let (extraction, tree) = extract_source_parsed(
            lang,
            &source,
            Arc::from(rel.as_str()),
            Arc::from(path.as_path()),
            dialect,
            &Limits::default(),
        );
        let mut tags = definitions(extraction.tags);
        let facts = tree.as_ref().map(|t| FileFacts::of(lang, &source, t));
        if let (Some(tree), Some(facts)) = (&tree, &facts) {
            let declared = explore::declarations_in(lang, &source, tree, facts);
            with_declarations(&mut tags, declared);
        }
        // Only the lines: the extents come from `tree` (no second parse for scopes).
        let context = TreeContext::new(source.as_str(), None, dialect);
        let mut starts: Vec<usize> = tags.iter().map(|d| d.1).collect();
        starts.sort_unstable();
        let wanted = tags.iter().map(|(name, row, _)| (*row, name.as_str()));
        let named = tree
            .as_ref()
            .map(|t| explore::DefinitionNodes::of(lang, &source, t, wanted))
            .unwrap_or_default();
        let file = Parsed {
            lang,
            source: &source,
            tree: tree.as_ref(),
            facts: facts.as_ref(),
            context: &context,
            starts: &starts,
            named: &named,
            row_starts: &row_starts(&source),
        };
        let defs = tags
            .into_iter()
            .map(|(name, row, kind)| file.definition(name, row, kind))
            .collect();
        Ok(DefinedFile {
            rel,
            lang,
            context,
            defs,
            source,
            tree,
        })
    }
}

/// Where each row of `source` starts (rows as the syntax tree counts them: after `\n`).
fn row_starts(source: &str) -> Vec<usize> {
    let after = source.match_indices('\n').map(|(i, _)| i + 1);
    std::iter::once(0).chain(after).collect()
}

/// What [`DefinedFile::read`] has of a file when it makes its definitions.
struct Parsed<'f> {
    lang: Language,
    source: &'f str,
    tree: Option<&'f tree_sitter::Tree>,
    facts: Option<&'f FileFacts>,
    context: &'f TreeContext,
    /// Every definition's row, sorted.
    starts: &'f [usize],
    /// The declaration node of each definition, found in one walk of the tree.
    named: &'f explore::DefinitionNodes<'f>,
    /// Where each row starts in `source`.
    row_starts: &'f [usize],
}

impl Parsed<'_> {
    /// The definition of `name` (of `kind`) whose tag is on `row`: from its declaration's
    /// node (found once) its extent, whether it is a local, its visibility and doc line;
    /// where the language is not explored, the node its line starts; without a tree (the
    /// parse ran out of time) its line.
    fn definition(&self, name: String, row: usize, kind: &'static str) -> Definition {
        let (lang, source, context) = (self.lang, self.source, self.context);
        let node = self.named.get(row, &name);
        let extent = node.filter(|&n| node_rows(n, row).is_some()).or_else(|| {
            self.tree
                .and_then(|t| node_extent(t, context, row, self.starts))
        });
        let (start, end) = extent.map_or((row, row), |n| (n.start_position().row, last_row(n)));
        let end = without_trailing_blanks(context, start, end);
        let explored = node.zip(self.facts);
        let local = explored.is_some_and(|(n, f)| explore::is_local(n, f));
        let visibility =
            explored.and_then(|(n, f)| explore::visibility_in(lang, source, n, &name, f));
        let doc = node
            .and_then(|n| explore::doc_line(lang, source, n))
            .map(|d| cut_chars(&d, DOC_CHARS));
        let bytes = extent.map_or_else(|| self.line_text(row), |n| n.byte_range());
        Definition {
            name,
            kind,
            row,
            start,
            end,
            local,
            visibility,
            doc,
            bytes,
            node: extent.map(|n| node_at(n, source)),
        }
    }

    /// The bytes of row `row`'s text, its indentation left out.
    fn line_text(&self, row: usize) -> std::ops::Range<usize> {
        let start = self
            .row_starts
            .get(row)
            .copied()
            .unwrap_or(self.source.len());
        let end = self
            .row_starts
            .get(row + 1)
            .map_or(self.source.len(), |&next| next - 1);
        let line = self.source.get(start..end).unwrap_or("");
        start + (line.len() - line.trim_start().len())..end
    }
}

/// Where `node` (of `source`) and its body lie.
fn node_at(node: tree_sitter::Node<'_>, source: &str) -> NodeAt {
    // A declarator's value holds the body (`var f = function (x) {…}`).
    let body = node.child_by_field_name("body").or_else(|| {
        node.child_by_field_name("value")
            .and_then(|v| v.child_by_field_name("body"))
    });
    let body = body.map(|b| {
        let mut at = b.start_position();
        // The opening brace is the signature's last character, as a line's is.
        if source.as_bytes().get(b.start_byte()) == Some(&b'{') {
            at.column += 1;
        }
        at
    });
    NodeAt {
        start: node.start_position(),
        end: node.end_position(),
        body,
    }
}

/// `text` cut to at most `max` characters, `…` where it was cut.
pub(crate) fn cut_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The definitions among a file's `tags`: name, row (0-based) and sub-kind.
fn definitions(tags: Vec<Tag>) -> Vec<(String, usize, &'static str)> {
    // Tag lines count from 1 (behaviour.md §3.4).
    let mut seen = std::collections::HashSet::new();
    tags.into_iter()
        .filter(|t| t.kind == TagKind::Def && t.line >= 1)
        .map(|t| (t.name.to_string(), t.line as usize - 1, t.sub_kind))
        // Two captures of one definition (`type` and `class` of a Go struct) are one.
        .filter(|(name, row, _)| seen.insert((name.clone(), *row)))
        .collect()
}

/// `tags` and, after them, the declarations the tag query left out (a declaration is a
/// tag's when both have the same name on the same row).
fn with_declarations(tags: &mut Vec<(String, usize, &'static str)>, declared: Vec<Declared>) {
    let known: std::collections::HashSet<(String, usize)> = tags
        .iter()
        .map(|(name, row, _)| (name.clone(), *row))
        .collect();
    tags.extend(
        declared
            .into_iter()
            .filter(|d| !known.contains(&(d.name.clone(), d.row)))
            .map(|d| (d.name, d.row, d.kind)),
    );
}

/// The rows of the declaration node `node` whose name is on `row`: its last row the one
/// before its end where it ends at a line's start; `None` if they do not hold `row`.
fn node_rows(node: tree_sitter::Node<'_>, row: usize) -> Option<(usize, usize)> {
    let (start, last) = (node.start_position().row, last_row(node));
    (start <= row && row <= last).then_some((start, last))
}

/// A node's last row: the one before its end where it ends at a line's start.
fn last_row(node: tree_sitter::Node<'_>) -> usize {
    let end = node.end_position();
    if end.column == 0 && end.row > node.start_position().row {
        end.row - 1
    } else {
        end.row
    }
}

/// The node of the definition whose name is on `row`, from the syntax tree: the smallest
/// node that starts where that line's text starts and reaches past the line; else (a C
/// function whose return type has a line of its own) a node starting a line or two above
/// on a line where no other definition starts (`starts`, sorted), and reaching past this
/// one; else the widest node starting there on one line. Never the whole file's node, and
/// none on a line longer than [`LONG_LINE`] (where a line's start says nothing of the
/// definitions further along it). No recursion: a walk up the parents.
fn node_extent<'t>(
    tree: &'t tree_sitter::Tree,
    context: &TreeContext,
    row: usize,
    starts: &[usize],
) -> Option<tree_sitter::Node<'t>> {
    let line = context.line(row).filter(|l| l.len() <= LONG_LINE)?;
    let column = line.len() - line.trim_start().len();
    let point = tree_sitter::Point { row, column };
    let mut node = tree.root_node().descendant_for_point_range(point, point)?;
    let mut single = None;
    while let Some(parent) = node.parent() {
        let start = node.start_position();
        if start == point && last_row(node) > row {
            return Some(node);
        }
        if start == point {
            single = Some(node);
        }
        // A preprocessor conditional around a definition is not where it starts.
        let above = start.row < row && start.row + 2 >= row && !node.kind().starts_with("preproc");
        let first = starts.partition_point(|&s| s < start.row);
        let alone = starts.get(first).is_none_or(|&s| s >= row);
        if above && alone && last_row(node) > row {
            return Some(node);
        }
        if start.row + 2 < row {
            break;
        }
        node = parent;
    }
    single
}

/// Bytes past which a line is taken for minified or generated: no one writes such a line
/// by hand. Its start says nothing of the definitions along it, and `show` cuts it.
pub(crate) const LONG_LINE: usize = 4096;

/// `end`, moved up past blank lines (and rows past the text) down to `start`.
fn without_trailing_blanks(context: &TreeContext, start: usize, mut end: usize) -> usize {
    while end > start && context.line(end).is_none_or(|l| l.trim().is_empty()) {
        end -= 1;
    }
    end
}

/// The spans `target` asks for, in file order.
fn choose(target: &SymbolTarget, rel: &str, spans: Vec<Span>) -> Result<Vec<Span>, ShowError> {
    match target {
        SymbolTarget::Name { name, .. } => {
            let (hits, others): (Vec<_>, Vec<_>) = spans.into_iter().partition(|s| &s.0 == name);
            if hits.is_empty() {
                let mut known: Vec<String> = others.into_iter().map(|s| s.0).collect();
                known.dedup();
                known.truncate(NAMES_LISTED);
                return Err(ShowError::NoSuchName(rel.to_owned(), name.clone(), known));
            }
            Ok(hits)
        }
        SymbolTarget::Line { line, .. } => {
            let row = line - 1;
            spans
                .into_iter()
                .filter(|s| s.1 <= row && row <= s.2)
                .max_by_key(|s| (s.1, std::cmp::Reverse(s.2)))
                .map(|s| vec![s])
                .ok_or(ShowError::NoDefinitionAt(rel.to_owned(), *line))
        }
    }
}

/// A definition as [`show_symbol`] chooses among them: its name, first and last rows, and
/// where its node lies.
type Span = (String, usize, usize, Option<NodeAt>);

/// The chosen spans' source, within the cap.
fn shown(
    context: &TreeContext,
    rel: &str,
    spans: Vec<Span>,
    cap: Option<(usize, Tokenizer)>,
) -> Vec<ShownDefinition> {
    let mut left = cap.map(|(max, _)| max);
    let count = |text: &str| cap.map_or(0, |(_, t)| t.count(text));
    let mut out = Vec::with_capacity(spans.len());
    for (name, start, end, node) in spans {
        let lines: Vec<Cow<'_, str>> = (start..=end)
            .filter_map(|r| Some(shown_line(context.line(r)?, r, node)))
            .collect();
        let lines: Vec<&str> = lines.iter().map(|l| l.as_ref()).collect();
        let (source, omitted) = within(&lines, left, &count);
        if let Some(l) = &mut left {
            *l = l.saturating_sub(count(&source));
        }
        out.push(ShownDefinition {
            file: rel.to_owned(),
            name,
            start_line: start + 1,
            end_line: end + 1,
            source,
            omitted_lines: omitted,
        });
    }
    out
}

/// Row `row`'s text `line` as `show` prints it: whole, unless it is longer than
/// [`LONG_LINE`] (minified or generated); then only the part the definition's `node`
/// covers, and at most [`LONG_LINE`] bytes of that, its cut saying how much was left.
fn shown_line(line: &str, row: usize, node: Option<NodeAt>) -> Cow<'_, str> {
    if line.len() <= LONG_LINE {
        return Cow::Borrowed(line);
    }
    let from = node
        .filter(|n| n.start.row == row)
        .map_or(0, |n| n.start.column);
    let to = node
        .filter(|n| n.end.row == row)
        .map_or(line.len(), |n| n.end.column);
    let part = line.get(from..to).unwrap_or(line);
    if part.len() <= LONG_LINE {
        return Cow::Borrowed(part);
    }
    let cut = (0..=LONG_LINE)
        .rev()
        .find(|&at| part.is_char_boundary(at))
        .unwrap_or(0);
    let left = part.len() - cut;
    Cow::Owned(format!(
        "{} … ({left} more bytes of this line)",
        &part[..cut]
    ))
}

/// As many of `lines` as fit in `left` tokens (all without a cap), and how many were
/// left out; a cut ends with a line saying so, counted within the cap.
fn within(lines: &[&str], left: Option<usize>, count: &dyn Fn(&str) -> usize) -> (String, usize) {
    let joined = |n: usize| {
        lines[..n]
            .iter()
            .map(|l| format!("{l}\n"))
            .collect::<String>()
    };
    let marker = |omitted: usize| format!("… {omitted} more lines (max_tokens reached)\n");
    let all = joined(lines.len());
    let Some(left) = left else {
        return (all, 0);
    };
    if count(&all) <= left {
        return (all, 0);
    }
    // The longest head that fits with its marker: counts grow with the head.
    let fits = |n: usize| count(&(joined(n) + &marker(lines.len() - n))) <= left;
    let (mut lo, mut hi) = (0, lines.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    let omitted = lines.len() - lo;
    let text = if fits(lo) {
        joined(lo) + &marker(omitted)
    } else {
        String::new()
    };
    (text, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const CODE: &str = "\
import os


class Store:
    \"\"\"Keeps things.\"\"\"

    def get(self, key):
        value = self.items[key]
        return value

    def put(self, key, value):
        self.items[key] = value


def get(path):
    return os.path.exists(path)
";

    fn repo() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::create_dir_all(root.join("pkg")).unwrap();
        fs::write(root.join("pkg/store.py"), CODE).unwrap();
        fs::write(
            root.join("main.c"),
            "static int\nmain(void)\n{\n    return 0;\n}\n",
        )
        .unwrap();
        (dir, root)
    }

    fn show(root: &Path, target: &str) -> Result<Vec<ShownDefinition>, ShowError> {
        show_symbol(
            root,
            &SymbolTarget::parse(target).unwrap(),
            Dialect::Default,
            None,
        )
    }

    #[test]
    fn targets_are_read_from_file_and_name_or_line() {
        let name = SymbolTarget::parse("src/a.rs#Parser::new");
        assert_eq!(
            name,
            Some(SymbolTarget::Name {
                file: "src/a.rs".into(),
                name: "Parser::new".into()
            })
        );
        let line = SymbolTarget::parse("src/a.rs:42");
        assert_eq!(
            line,
            Some(SymbolTarget::Line {
                file: "src/a.rs".into(),
                line: 42
            })
        );
        for bad in [
            "src/a.rs",
            "src/a.rs:0",
            "src/a.rs:x",
            "#name",
            "a.rs#",
            ":3",
        ] {
            assert_eq!(SymbolTarget::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn an_ambiguous_name_shows_every_definition_whole() {
        let (_dir, root) = repo();
        let shown = show(&root, "pkg/store.py#get").unwrap();
        let spans: Vec<_> = shown.iter().map(|d| (d.start_line, d.end_line)).collect();
        assert_eq!(spans, [(7, 9), (15, 16)]);
        assert_eq!(
            shown[0].source,
            "    def get(self, key):\n        value = self.items[key]\n        return value\n"
        );
        assert_eq!(shown[1].file, "pkg/store.py");
        let class = show(&root, "pkg/store.py#Store").unwrap();
        assert_eq!((class[0].start_line, class[0].end_line), (4, 12));
    }

    #[test]
    fn a_line_shows_the_innermost_definition_holding_it() {
        let (_dir, root) = repo();
        let inner = show(&root, "pkg/store.py:8").unwrap();
        assert_eq!((inner[0].name.as_str(), inner[0].start_line), ("get", 7));
        let outer = show(&root, "pkg/store.py:5").unwrap();
        assert_eq!(outer[0].name, "Store");
        assert_eq!(
            show(&root, "pkg/store.py:2").unwrap_err(),
            ShowError::NoDefinitionAt("pkg/store.py".into(), 2)
        );
    }

    #[test]
    fn a_c_function_starts_at_its_return_type() {
        let (_dir, root) = repo();
        let main = show(&root, "main.c#main").unwrap();
        assert_eq!((main[0].start_line, main[0].end_line), (1, 5));
    }

    /// The lines `show` gives each of `symbols` of the file `name` holding `code`.
    fn extents(name: &str, code: &str, symbols: &[&str]) -> Vec<(usize, usize)> {
        let (_dir, root) = repo();
        fs::write(root.join(name), code).unwrap();
        let extent = |symbol: &&str| {
            let shown = show(&root, &format!("{name}#{symbol}")).unwrap();
            (shown[0].start_line, shown[0].end_line)
        };
        symbols.iter().map(extent).collect()
    }

    #[test]
    fn a_definition_on_the_first_line_ends_before_the_next() {
        let code = "def first():\n    return 1\n\n\ndef second():\n    return 2\n";
        assert_eq!(
            extents("two.py", code, &["first", "second"]),
            [(1, 2), (5, 6)]
        );
    }

    /// A class body's first method starts where the body does: the node that starts
    /// there and reaches furthest is the body, not the method.
    #[test]
    fn a_first_method_is_itself_not_its_class_body() {
        let code = "class A:\n    def first(self):\n        return 1\n\n    def second(self):\n        return 2\n";
        assert_eq!(extents("a.py", code, &["first", "A"]), [(2, 3), (1, 6)]);
    }

    /// What the map shows, `show` finds: a tag inside a function's body (the common
    /// `(function () { … })()` wrapper) is a definition here, though an outline leaves
    /// locals out.
    #[test]
    fn a_definition_inside_a_wrapper_function_is_found() {
        let code = "(function () {\n  var helper = function () {\n    return 1;\n  };\n  function main() {\n    return helper();\n  }\n})();\n";
        assert_eq!(
            extents("lib.js", code, &["helper", "main"]),
            [(2, 4), (5, 7)]
        );
    }

    /// A FIFO named as the file is refused in one line, never read (it would block).
    #[test]
    fn a_fifo_is_refused_not_read() {
        let (_dir, root) = repo();
        let made = std::process::Command::new("mkfifo")
            .arg(root.join("p.py"))
            .status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let err = show(&root, "p.py#x").unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
    }

    #[test]
    fn what_is_not_found_says_why_in_one_line() {
        let (_dir, root) = repo();
        let missing = show(&root, "pkg/store.py#fetch").unwrap_err();
        assert!(
            missing.to_string().contains("defines Store, get, put"),
            "{missing}"
        );
        assert!(matches!(
            show(&root, "../x.py#a"),
            Err(ShowError::OutsideRoot(_))
        ));
        assert!(matches!(
            show(&root, "nope.py#a"),
            Err(ShowError::Unreadable(..))
        ));
        for e in [missing, show(&root, "README#a").unwrap_err()] {
            assert!(!e.to_string().contains('\n'));
        }
    }

    /// On a line longer than [`LONG_LINE`], a definition shows its own text, at most
    /// [`LONG_LINE`] bytes of it and a word on what was cut.
    #[test]
    fn a_long_line_shows_the_definition_cut() {
        let long = "x".repeat(3 * LONG_LINE);
        let code = format!("var a=1;function f(){{return \"{long}\"}}var b=2;\n");
        let shown = extents_and_source("gen.js", &code, "f");
        assert!(shown.starts_with("function f(){return \"xxx"), "{shown}");
        let cut = 3 * LONG_LINE + "function f(){return \"\"}".len() - LONG_LINE;
        assert!(
            shown.ends_with(&format!("x … ({cut} more bytes of this line)\n")),
            "{}",
            &shown[shown.len() - 80..]
        );
        assert!(shown.len() < LONG_LINE + 64);
        assert_eq!(extents_and_source("gen.js", &code, "b"), "b=2\n");
    }

    /// The source `show` gives `symbol` of the file `name` holding `code`.
    fn extents_and_source(name: &str, code: &str, symbol: &str) -> String {
        let (_dir, root) = repo();
        fs::write(root.join(name), code).unwrap();
        let shown = show(&root, &format!("{name}#{symbol}")).unwrap();
        shown[0].source.clone()
    }

    #[test]
    fn the_cap_cuts_at_a_line_and_says_so() {
        let (_dir, root) = repo();
        let target = SymbolTarget::parse("pkg/store.py#Store").unwrap();
        let cap = |max| Some((max, Tokenizer::Cl100kBase));
        let whole = show_symbol(&root, &target, Dialect::Default, cap(1000)).unwrap();
        assert_eq!(whole[0].omitted_lines, 0);
        let cut = show_symbol(&root, &target, Dialect::Default, cap(30)).unwrap();
        assert!(cut[0].omitted_lines > 0);
        assert!(cut[0].source.ends_with("more lines (max_tokens reached)\n"));
        assert!(Tokenizer::Cl100kBase.count(&cut[0].source) <= 30);
        assert!(cut[0].source.starts_with("class Store:\n"));
    }
}
