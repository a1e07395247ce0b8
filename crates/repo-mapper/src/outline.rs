//! `outline`: what a file defines, as a tree of symbols with their signatures, line
//! ranges, visibility and the first line of their documentation, and what it imports,
//! each import sorted into the standard library, a dependency or the repository's own
//! code (issue 27, part 1; seed 001's gate B), under a token cap.

use std::path::Path;
use std::sync::Arc;

use repo_mapper_render::TreeContext;
use repo_mapper_tags::Dialect;
use repo_mapper_tags::explore::{self, Visibility};

use crate::imports::{Import, ImportCategory, Resolver};
use crate::show::{DefinedFile, Definition, LONG_LINE, Located, ShowError, cut_chars, not_parsed};
use crate::tokens::Tokenizer;
use crate::walk::Listing;

/// One symbol of a [`FileOutline`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutlineSymbol {
    /// What it is: the tag query's sub-kind (`function`, `class`, `method`, …), or for a
    /// declaration found in the tree, its kind there (`field`, `constant`, `enum_member`,
    /// `impl`, `module`, …).
    pub kind: String,
    /// The defined name.
    pub name: String,
    /// Its signature: its first lines from where it starts up to where its body starts
    /// (at most [`SIGNATURE_LINES`]), joined, spaces collapsed; at most 400 characters,
    /// ending in `…` where it was cut (a minified file's one line is not a signature).
    pub signature: String,
    /// Its first line, from 1.
    pub start_line: usize,
    /// Its last line, from 1.
    pub end_line: usize,
    /// The name of the innermost symbol whose lines hold it, if any.
    pub parent: Option<String>,
    /// How many symbols hold it (0: top level).
    pub depth: usize,
    /// Who may use it, in the language's terms; `None` where the language is not explored
    /// ([`explore::explores`]) or its declaration was not found.
    pub visibility: Option<Visibility>,
    /// The first line of its docstring or of the comments right above it.
    pub doc: Option<String>,
}

/// What a file defines and imports, as [`outline`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileOutline {
    /// The file, relative to the root.
    pub file: String,
    /// Its language's name.
    pub language: String,
    /// Its number of lines.
    pub lines: usize,
    /// Its symbols in line order.
    pub symbols: Vec<OutlineSymbol>,
    /// Its imports in line order; `None` where the language's imports are not supported
    /// or the file was not parsed.
    pub imports: Option<Vec<Import>>,
    /// Why nothing of the file is known, when it was left unparsed: larger than the map
    /// parses (`larger than 1 MiB not parsed (…)`, the map's rule and words). The text
    /// says it in a line of its own.
    pub warning: Option<String>,
}

/// Lines a signature takes at most: a whole multi-line signature, bounded against a
/// body that never opens.
pub const SIGNATURE_LINES: usize = 40;

/// Characters a signature keeps at most; a longer one ends in `…`. Long enough for any
/// signature written by hand, and what bounds an outline of a minified line.
pub(crate) const SIGNATURE_CHARS: usize = 400;

/// Bytes before a definition's node on its line that its signature may start with (its
/// `export `, `const `, `pub `…), up to the last `;`, `{` or `}` among them: what stands
/// further back on a long line is other code.
const PREFIX_BYTES: usize = 80;

/// Levels of nesting the text indents at most: a depth past it is shown at this one
/// (JSON keeps the depth), so a deeply nested file's text does not grow with its depth
/// times its symbols.
const MAX_INDENT: usize = 32;

/// The outline of the file `file` (relative to the root `root`, an absolute canonical
/// path, or absolute inside it), read and parsed now in `dialect`'s tags. A symbol spans
/// what [`show_symbol`](crate::show_symbol) would show of it; its parent is the innermost
/// other symbol whose lines hold its own. [`outlines`] outlines several files at less
/// cost.
pub fn outline(root: &Path, file: &Path, dialect: Dialect) -> Result<FileOutline, ShowError> {
    outline_with(&mut Resolver::new(root), root, file, dialect)
}

/// The outlines of `files`, in order ([`outline`] of each), reading the repository's file
/// list and manifests once for all of them.
pub fn outlines<P: AsRef<Path>>(
    root: &Path,
    files: &[P],
    dialect: Dialect,
) -> Result<Vec<FileOutline>, ShowError> {
    outlines_by(Resolver::new(root), root, files, dialect)
}

/// [`outlines`], with `listing` giving a walk of `root` ([`Listing::walk`]) where an
/// import's rule searches the repository's file list (called at most once, and only
/// then): a server that keeps a walk while it holds ([`Listing::is_current`]) walks no
/// tree per call.
pub fn outlines_listed<P: AsRef<Path>>(
    root: &Path,
    files: &[P],
    dialect: Dialect,
    listing: &dyn Fn() -> Arc<Listing>,
) -> Result<Vec<FileOutline>, ShowError> {
    outlines_by(Resolver::listed(root, listing), root, files, dialect)
}

fn outlines_by<P: AsRef<Path>>(
    mut resolver: Resolver<'_>,
    root: &Path,
    files: &[P],
    dialect: Dialect,
) -> Result<Vec<FileOutline>, ShowError> {
    files
        .iter()
        .map(|f| outline_with(&mut resolver, root, f.as_ref(), dialect))
        .collect()
}

fn outline_with(
    resolver: &mut Resolver<'_>,
    root: &Path,
    file: &Path,
    dialect: Dialect,
) -> Result<FileOutline, ShowError> {
    let located = Located::of(root, file, dialect)?;
    if let Some(limit) = located.too_large(dialect) {
        return unparsed(located, limit);
    }
    let defined = DefinedFile::parse(located, dialect)?;
    // Locals are `show_symbol`'s, not an outline's.
    let defs: Vec<&Definition> = defined.defs.iter().filter(|d| !d.local).collect();
    let spans: Vec<Span> = defs
        .iter()
        .map(|d| (d.bytes.start, d.bytes.end, d.node.is_some()))
        .collect();
    let holders = holders(&spans);
    // Line order, and on one line the order of the text (a minified file's one line).
    let mut order: Vec<usize> = (0..defs.len()).collect();
    order.sort_by_key(|&i| (defs[i].start, spans[i].0, holders[i].1));
    let symbols: Vec<OutlineSymbol> = order
        .into_iter()
        .map(|i| (defs[i], holders[i]))
        .map(|(d, (parent, depth))| OutlineSymbol {
            kind: d.kind.to_owned(),
            name: d.name.clone(),
            signature: signature(&defined.context, d),
            start_line: d.start + 1,
            end_line: d.end + 1,
            parent: parent.map(|h| defs[h].name.clone()),
            depth,
            visibility: d.visibility,
            doc: d.doc.clone(),
        })
        .collect();
    let imports = defined.tree.as_ref().and_then(|tree| {
        let raw = explore::imports(defined.lang, &defined.source, tree)?;
        let sorted = raw
            .iter()
            .map(|i| resolver.classify(&defined.rel, defined.lang, i));
        Some(sorted.collect())
    });
    Ok(FileOutline {
        file: defined.rel,
        language: defined.lang.name().to_owned(),
        lines: defined.context.line_count(),
        symbols,
        imports,
        warning: None,
    })
}

/// The outline of a file left unparsed for its size (over `limit`): its lines, counted
/// as it is read in pieces (so its size costs no memory), and the warning.
fn unparsed(located: Located, limit: u64) -> Result<FileOutline, ShowError> {
    let lines = count_lines(&located.path)
        .map_err(|e| ShowError::Unreadable(located.rel.clone(), e.to_string()))?;
    Ok(FileOutline {
        file: located.rel,
        language: located.lang.name().to_owned(),
        lines,
        symbols: Vec::new(),
        imports: None,
        warning: Some(not_parsed(limit)),
    })
}

/// How many lines the file at `path` has (a last one without `\n` counted), read in
/// pieces of 64 KiB.
fn count_lines(path: &Path) -> std::io::Result<usize> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut lines, mut last) = (0, b'\n');
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            return Ok(lines + usize::from(last != b'\n'));
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
        last = buf[n - 1];
    }
}

/// A symbol's bytes, and whether they are its syntax node's (else only its line is known,
/// and it holds nothing: on one line, the spans of definitions found without a tree say
/// nothing of their nesting).
type Span = (usize, usize, bool);

/// For each symbol, the innermost other symbol whose span holds its own (strictly larger,
/// or equal and earlier), and how many do. One pass in (start, widest, first) order with a
/// stack of the spans still open: linear in the symbols times how deeply they nest, and
/// one entry per symbol kept (spans nest as the tree's nodes do, so a minified line's
/// definitions nest as its code does, not all in the first).
fn holders(spans: &[Span]) -> Vec<(Option<usize>, usize)> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&i| (spans[i].0, std::cmp::Reverse(spans[i].1), i));
    let mut open: Vec<usize> = Vec::new();
    let mut out = vec![(None, 0); spans.len()];
    for i in order {
        let (start, end, holds) = spans[i];
        // Spans that ended before this one starts hold nothing from here on.
        while open
            .last()
            .is_some_and(|&j| spans[j].1 <= start && spans[j].0 < start)
        {
            open.pop();
        }
        let mut held = open.iter().copied().filter(|&j| spans[j].1 >= end);
        let depth = held.clone().count();
        out[i] = (held.next_back(), depth);
        if holds {
            open.push(i);
        }
    }
    out
}

/// The definition's first lines from where it starts, and on while brackets stay open or
/// a line ends in a continuation (`,`, `(`, `<`, `->`, `\\`), up to the one where the body
/// opens (a line ending in `:`, `{`, `=>`, `=` or `;`; on a long line, [`stop_on`]): at most
/// [`SIGNATURE_LINES`], joined with spaces collapsed, at most [`SIGNATURE_CHARS`]
/// characters. Each line is cut before it is looked at, so a long line costs no more
/// than a short one.
fn signature(context: &TreeContext, d: &Definition) -> String {
    let (start, row, end) = (d.start, d.row, d.end);
    let from = d.node.map(|n| n.start).filter(|p| p.row == start);
    let mut parts = Vec::new();
    let mut depth: i64 = 0;
    let mut clipped = false;
    for at in start..=end.min(start + SIGNATURE_LINES - 1) {
        let whole = context.line(at).unwrap_or("");
        let begin = from
            .filter(|_| at == start)
            .map_or(0, |p| head_start(whole, p.column));
        let stop = stop_on(d, at, whole);
        let stops_here = stop.is_some();
        let finish = stop.unwrap_or(whole.len());
        let line = whole.get(begin..finish.max(begin)).unwrap_or(whole);
        let kept = clip(line, 4 * SIGNATURE_CHARS);
        clipped |= kept.len() < line.len();
        let line = kept.trim();
        parts.push(line);
        for c in line.chars() {
            match c {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                _ => {}
            }
        }
        let opens = [":", "{", "=>", "=", ";"].iter().any(|e| line.ends_with(e));
        let continues = [",", "(", "<", "->", "\\"]
            .iter()
            .any(|e| line.ends_with(e));
        if stops_here || clipped || (at >= row && (opens || (depth <= 0 && !continues))) {
            break;
        }
    }
    let joined = parts.join(" ");
    let collapsed = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = cut_chars(&collapsed, SIGNATURE_CHARS);
    if clipped && cut.len() == collapsed.len() {
        cut + "…"
    } else {
        cut
    }
}

/// Where on row `at` (its text `line`) the signature of `d` ends, if it ends there before
/// the line does: on a line longer than [`LONG_LINE`] (minified, generated), where its
/// body opens, else where its node ends, since what follows there is other code. Shorter
/// lines are kept whole, as written (`pub struct S(u8);`, `fn f() -> u8 { 1 }`).
fn stop_on(d: &Definition, at: usize, line: &str) -> Option<usize> {
    let node = d.node.filter(|_| line.len() > LONG_LINE)?;
    match node.body {
        Some(body) if body.row == at => Some(body.column),
        _ if node.end.row == at => Some(node.end.column),
        _ => None,
    }
}

/// Where on its first line `line` a signature starts whose node starts at byte `column`:
/// at the line's start when only its wrappers stand before the node (`export `, `pub `),
/// else after the last `;`, `{` or `}` within [`PREFIX_BYTES`] before it, else at the
/// node.
fn head_start(line: &str, column: usize) -> usize {
    let Some(before) = line.get(..column) else {
        return 0;
    };
    let window = (column.saturating_sub(PREFIX_BYTES)..=column)
        .find(|&at| before.is_char_boundary(at))
        .unwrap_or(column);
    let near = &before[window..];
    match near.rfind([';', '{', '}']) {
        Some(at) => window + at + 1,
        None if window == 0 => 0,
        None => column,
    }
}

/// At most the first `max` bytes of `text`, cut at a character's start.
fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let at = (0..=max)
        .rev()
        .find(|&at| text.is_char_boundary(at))
        .unwrap_or(0);
    &text[..at]
}

/// What an outline's text shows of one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct OutlineShown {
    /// Symbols shown.
    pub symbols: usize,
    /// Imports shown.
    pub imports: usize,
}

/// The outlines as text within `max_tokens` (of `tokenizer`), whole when they fit: each
/// file under a `FILE (LANGUAGE, N lines)` line; its imports, a line per category
/// (`imports stdlib: os, sys`, a local one with `→ PATH`, a third-party one with the
/// manifest declaring it in brackets); each symbol indented by its depth as `[KIND]
/// SIGNATURE  [START-END] VISIBILITY — DOC` (the kind only where the signature does not
/// say it). Past the cap the top-level symbols are kept first, then the imports, then
/// deeper symbols; what a file leaves out is counted at its end (`... and N more`,
/// `... and N more imports`).
pub fn outline_text(outlines: &[FileOutline], cap: Option<(usize, Tokenizer)>) -> String {
    outline_shown(outlines, cap).0
}

/// [`outline_text`], and what it shows of each file.
pub fn outline_shown(
    outlines: &[FileOutline],
    cap: Option<(usize, Tokenizer)>,
) -> (String, Vec<OutlineShown>) {
    let page = outline_page(outlines, cap, 0);
    (page.text, page.shown)
}

/// One page of outlines, as [`outline_page`] gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutlinePage {
    /// The page's text ([`outline_text`]'s form; a file some of whose lines were on
    /// earlier pages is headed `(continued)`).
    pub text: String,
    /// What the page shows of each file.
    pub shown: Vec<OutlineShown>,
    /// Where the next page starts, when lines are left: pass it as `from`.
    pub next: Option<usize>,
    /// How many lines the outlines have in all (pages end there).
    pub lines: usize,
}

/// The page of `outlines` that starts at line `from` of their whole order (top-level
/// symbols, then imports, then deeper symbols; page 1 starts at 0) and holds as many
/// lines as `cap` allows (all of them without a cap). A page that can hold none of the
/// lines left shows only the files' headers and counts, and its `next` is `from` again.
pub fn outline_page(
    outlines: &[FileOutline],
    cap: Option<(usize, Tokenizer)>,
    from: usize,
) -> OutlinePage {
    let order = item_order(outlines);
    let from = from.min(order.len());
    let text_of = |count: usize| {
        let state: std::collections::HashMap<(usize, Item), State> = order
            .iter()
            .enumerate()
            .map(|(at, &(_, f, item))| ((f, item), State::of(at, from, from + count)))
            .collect();
        render(outlines, &|f, item| state[&(f, item)])
    };
    let rest = order.len() - from;
    let mut count = rest;
    if let Some((max, tokenizer)) = cap
        && rest > 0
        && tokenizer.count(&text_of(count)) > max
    {
        // Each line costs a token at least: no page holds more lines than `max`, so the
        // search never tokenises more than a page's worth of a long outline.
        let (mut lo, mut hi) = (0, (rest - 1).min(max));
        while lo < hi {
            let mid = (lo + hi).div_ceil(2);
            if tokenizer.count(&text_of(mid)) <= max {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        count = lo;
    }
    let mut shown = vec![OutlineShown::default(); outlines.len()];
    for &(_, f, item) in &order[from..from + count] {
        match item {
            Item::Symbol(_) => shown[f].symbols += 1,
            Item::Import(_) => shown[f].imports += 1,
        }
    }
    let next = (from + count < order.len()).then_some(from + count);
    OutlinePage {
        text: text_of(count),
        shown,
        next,
        lines: order.len(),
    }
}

/// A fingerprint of the outlines of files under `root`, the same in every process: the
/// root, each file's name and what it holds (lines, symbols, imports). A page cursor
/// carries it, so that one taken before the files changed (its lines would no longer
/// be where it points) is recognised.
pub fn outlines_fingerprint(root: &Path, outlines: &[FileOutline]) -> u64 {
    let mut hash = blake3::Hasher::new();
    hash.update(root.as_os_str().as_encoded_bytes());
    for o in outlines {
        let imports = o.imports.as_ref().map_or(u64::MAX, |i| i.len() as u64);
        hash.update(&[0]).update(o.file.as_bytes()).update(&[0]);
        for n in [o.lines as u64, o.symbols.len() as u64, imports] {
            hash.update(&n.to_le_bytes());
        }
    }
    let bytes = hash.finalize();
    u64::from_le_bytes(bytes.as_bytes()[..8].try_into().unwrap_or_default())
}

/// Every line of every file, most important first: top-level symbols, then imports,
/// then deeper symbols (each file's in its order).
fn item_order(outlines: &[FileOutline]) -> Vec<(usize, usize, Item)> {
    let mut order: Vec<(usize, usize, Item)> = Vec::new();
    for (f, o) in outlines.iter().enumerate() {
        for (i, s) in o.symbols.iter().enumerate() {
            order.push((2 * s.depth, f, Item::Symbol(i)));
        }
        for i in 0..o.imports.as_ref().map_or(0, Vec::len) {
            order.push((1, f, Item::Import(i)));
        }
    }
    order.sort_unstable();
    order
}

/// One line's worth of a file's outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Item {
    Symbol(usize),
    Import(usize),
}

/// Where a line falls against a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// On an earlier page.
    Earlier,
    /// On this page.
    Shown,
    /// Left for a later page (counted).
    Later,
}

impl State {
    /// The state of the line at `at` of the order, for a page of `[start, end)`.
    fn of(at: usize, start: usize, end: usize) -> State {
        if at < start {
            State::Earlier
        } else if at < end {
            State::Shown
        } else {
            State::Later
        }
    }
}

/// The text of each file's lines `state(file, item)` shows, its later ones counted.
fn render(outlines: &[FileOutline], state: &dyn Fn(usize, Item) -> State) -> String {
    let mut out = String::new();
    for (f, o) in outlines.iter().enumerate() {
        // A file name is shown with its control characters escaped (one line each).
        let file = repo_mapper_render::escape_control(&o.file);
        let items = (0..o.symbols.len())
            .map(Item::Symbol)
            .chain((0..o.imports.as_ref().map_or(0, Vec::len)).map(Item::Import));
        let continued = items.clone().any(|i| state(f, i) == State::Earlier);
        let more = if continued { " (continued)" } else { "" };
        out.push_str(&format!(
            "{file} ({}, {} lines){more}\n",
            o.language, o.lines
        ));
        if let Some(warning) = &o.warning {
            out.push_str(&format!("  warning: {warning}\n"));
        } else {
            render_imports(&mut out, o, &|i| state(f, Item::Import(i)));
        }
        let mut later = 0;
        for (i, s) in o.symbols.iter().enumerate() {
            match state(f, Item::Symbol(i)) {
                State::Shown => out.push_str(&symbol_line(s)),
                State::Later => later += 1,
                State::Earlier => {}
            }
        }
        if later > 0 {
            out.push_str(&format!("  ... and {later} more\n"));
        }
    }
    out
}

/// A file's import lines: one per category with any kept, then how many were left out.
fn render_imports(out: &mut String, o: &FileOutline, state: &dyn Fn(usize) -> State) {
    let Some(imports) = &o.imports else {
        out.push_str(&format!(
            "  imports and visibility: not supported for {}\n",
            o.language
        ));
        return;
    };
    let categories = [
        ImportCategory::Stdlib,
        ImportCategory::ThirdParty,
        ImportCategory::Local,
    ];
    for category in categories {
        let shown: Vec<String> = imports
            .iter()
            .enumerate()
            .filter(|(i, import)| import.category == category && state(*i) == State::Shown)
            .map(|(_, import)| import_text(import))
            .collect();
        if !shown.is_empty() {
            out.push_str(&format!(
                "  imports {}: {}\n",
                category.as_str(),
                shown.join(", ")
            ));
        }
    }
    let left_out = (0..imports.len())
        .filter(|&i| state(i) == State::Later)
        .count();
    if left_out > 0 {
        out.push_str(&format!("  ... and {left_out} more imports\n"));
    }
}

/// `module`, `module → path` (local) or `module [manifest]` (declared third-party).
fn import_text(import: &Import) -> String {
    let module = repo_mapper_render::escape_control(&import.module);
    match (&import.path, &import.declared_in) {
        (Some(path), _) => format!("{module} → {}", repo_mapper_render::escape_control(path)),
        (None, Some(manifest)) => format!("{module} [{manifest}]"),
        (None, None) => module.into_owned(),
    }
}

/// Words that say what a signature declares, so that its kind need not be shown.
const DECLARING_WORDS: &[&str] = &[
    "alias",
    "class",
    "const",
    "def",
    "defn",
    "enum",
    "extension",
    "fn",
    "func",
    "function",
    "impl",
    "interface",
    "let",
    "macro",
    "mod",
    "module",
    "namespace",
    "object",
    "package",
    "protocol",
    "record",
    "static",
    "struct",
    "sub",
    "trait",
    "type",
    "typedef",
    "union",
    "val",
    "var",
];

/// One symbol's line.
fn symbol_line(s: &OutlineSymbol) -> String {
    let indent = "  ".repeat(s.depth.min(MAX_INDENT) + 1);
    let says_kind = s
        .signature
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .take(6)
        .any(|w| w == s.kind || DECLARING_WORDS.contains(&w));
    let kind = if says_kind {
        String::new()
    } else {
        format!("{} ", s.kind)
    };
    let visibility = s
        .visibility
        .map(|v| format!(" {}", v.as_str()))
        .unwrap_or_default();
    let doc = s
        .doc
        .as_deref()
        .map(|d| format!(" — {}", short(d)))
        .unwrap_or_default();
    format!(
        "{indent}{kind}{}  [{}-{}]{visibility}{doc}\n",
        s.signature, s.start_line, s.end_line
    )
}

/// At most [`DOC_CHARS`] characters of a doc line, `…` where it was cut.
fn short(doc: &str) -> String {
    let doc = repo_mapper_render::escape_control(doc);
    match doc.char_indices().nth(DOC_CHARS) {
        Some((at, _)) => format!("{}…", &doc[..at]),
        None => doc.into_owned(),
    }
}

/// Characters of a doc line an outline shows.
pub const DOC_CHARS: usize = 100;

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const CODE: &str = "\
import os
import requests
from . import util

class Store:
    \"\"\"Keeps items.\"\"\"
    def get(self, key,
            default=None):
        return self.items.get(key, default)

    def _put(self, key, value):
        self.items[key] = value


def helper(x):
    return x
";

    fn repo() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join("store.py"), CODE).unwrap();
        fs::write(root.join("util.py"), "").unwrap();
        fs::write(root.join("requirements.txt"), "requests\n").unwrap();
        (dir, root)
    }

    #[test]
    fn symbols_nest_with_their_signatures_ranges_visibility_and_docs() {
        let (_dir, root) = repo();
        let o = outline(&root, Path::new("store.py"), Dialect::Default).unwrap();
        assert_eq!(
            (o.file.as_str(), o.language.as_str(), o.lines),
            ("store.py", "python", 16)
        );
        let rows: Vec<_> = o
            .symbols
            .iter()
            .map(|s| {
                let v = s.visibility.map(Visibility::as_str);
                (
                    s.kind.as_str(),
                    s.name.as_str(),
                    s.start_line,
                    s.end_line,
                    s.depth,
                    v,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("class", "Store", 5, 12, 0, Some("public")),
                ("function", "get", 7, 9, 1, Some("public")),
                ("function", "_put", 11, 12, 1, Some("private")),
                ("function", "helper", 15, 16, 0, Some("public")),
            ]
        );
        assert_eq!(o.symbols[1].signature, "def get(self, key, default=None):");
        assert_eq!(o.symbols[1].parent.as_deref(), Some("Store"));
        assert_eq!(o.symbols[3].parent, None);
        assert_eq!(o.symbols[0].doc.as_deref(), Some("Keeps items."));
        let imports: Vec<_> = o
            .imports
            .unwrap()
            .into_iter()
            .map(|i| (i.module, i.category))
            .collect();
        assert_eq!(
            imports,
            [
                ("os".to_owned(), ImportCategory::Stdlib),
                ("requests".to_owned(), ImportCategory::ThirdParty),
                (".".to_owned(), ImportCategory::Local),
            ]
        );
    }

    #[test]
    fn a_cap_keeps_the_top_level_then_imports_and_says_how_many_more() {
        let (_dir, root) = repo();
        let o = outline(&root, Path::new("store.py"), Dialect::Default).unwrap();
        let whole = outline_text(std::slice::from_ref(&o), None);
        assert_eq!(
            whole,
            "store.py (python, 16 lines)\n  imports stdlib: os\n  imports third_party: requests \
             [requirements.txt]\n  imports local: .\n  class Store:  [5-12] public — Keeps \
             items.\n    def get(self, key, default=None):  [7-9] public\n    def _put(self, \
             key, value):  [11-12] private\n  def helper(x):  [15-16] public\n"
        );
        let tokenizer = Tokenizer::default();
        let max = tokenizer.count(&whole) - 5;
        let (capped, shown) = outline_shown(std::slice::from_ref(&o), Some((max, tokenizer)));
        assert!(tokenizer.count(&capped) <= max, "{capped}");
        assert!(
            capped.contains("class Store") && capped.contains("helper"),
            "{capped}"
        );
        assert!(capped.contains("imports stdlib: os"), "{capped}");
        assert!(capped.ends_with("  ... and 1 more\n") || capped.ends_with("  ... and 2 more\n"));
        assert_eq!(shown[0].imports, 3);
        let tiny = outline_shown(std::slice::from_ref(&o), Some((12, tokenizer)));
        assert_eq!(tiny.1[0], OutlineShown::default(), "{}", tiny.0);
        assert!(tiny.0.contains("... and 3 more imports"), "{}", tiny.0);
    }

    #[test]
    fn pages_go_on_where_the_last_one_stopped_and_show_every_line_once() {
        let (_dir, root) = repo();
        let o = outline(&root, Path::new("store.py"), Dialect::Default).unwrap();
        let outlines = std::slice::from_ref(&o);
        let tokenizer = Tokenizer::default();
        let mut from = 0;
        let mut lines = Vec::new();
        let mut pages = 0;
        while pages < 20 {
            let page = outline_page(outlines, Some((40, tokenizer)), from);
            pages += 1;
            assert!(tokenizer.count(&page.text) <= 40, "{}", page.text);
            if pages > 1 {
                assert!(
                    page.text
                        .starts_with("store.py (python, 16 lines) (continued)\n")
                );
            }
            lines.extend(
                page.text
                    .lines()
                    .skip(1)
                    .filter(|l| !l.contains("... and"))
                    .map(str::to_owned),
            );
            match page.next {
                Some(next) => {
                    assert!(next > from, "no progress at {from}");
                    from = next;
                }
                None => break,
            }
        }
        assert!(pages > 1);
        let whole = outline_text(outlines, None);
        let mut every: Vec<String> = whole.lines().skip(1).map(str::to_owned).collect();
        // Import lines of one category shown over several pages are split; compare items.
        let split = |v: &mut Vec<String>| {
            let mut items: Vec<String> = v
                .iter()
                .flat_map(|l| {
                    match l
                        .split_once(": ")
                        .filter(|_| l.trim_start().starts_with("imports "))
                    {
                        Some((head, rest)) => {
                            rest.split(", ").map(|r| format!("{head}: {r}")).collect()
                        }
                        None => vec![l.clone()],
                    }
                })
                .collect();
            items.sort();
            items
        };
        assert_eq!(split(&mut lines), split(&mut every));
    }

    #[test]
    fn holders_nest_equal_spans_by_order_and_skip_partial_overlaps() {
        let spans = [(0, 10), (2, 5), (2, 5), (4, 12), (6, 8)];
        let spans = spans.map(|(start, end)| (start, end + 1, true));
        // Each one's innermost holder and how many hold it: [], [0], [0, 1], [], [0, 3].
        assert_eq!(
            holders(&spans),
            [
                (None, 0),
                (Some(0), 1),
                (Some(1), 2),
                (None, 0),
                (Some(3), 2)
            ]
        );
    }

    /// The outline of `name` holding `code`, in a repository of its own.
    fn outline_of(name: &str, code: &str) -> FileOutline {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join(name), code).unwrap();
        outline(&root, Path::new(name), Dialect::Default).unwrap()
    }

    /// On one long line (minified), each symbol's signature starts at its own declaration
    /// and stops where its body opens, and symbols nest as their nodes do: not each in all
    /// before it.
    #[test]
    fn symbols_on_one_line_have_their_own_signatures_and_nesting() {
        let code = "function a(e){return e}class K{m(e){return e}}var v=function(e){return e};";
        let code = format!("{code}/*{}*/\n", "x".repeat(LONG_LINE));
        let o = outline_of("min.js", &code);
        let rows: Vec<_> = o
            .symbols
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.signature.as_str(),
                    s.depth,
                    s.parent.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("a", "function a(e){", 0, None),
                ("K", "class K{", 0, None),
                ("m", "m(e){", 1, Some("K")),
                ("v", "var v=function(e){", 0, None),
            ]
        );
    }

    /// A declaration on a long line (minified, generated) gives a signature of its own
    /// node only, cut at [`SIGNATURE_CHARS`] with `…`; a long doc line is cut too.
    #[test]
    fn a_long_line_gives_bounded_signatures_and_docs() {
        let long = "x".repeat(3 * LONG_LINE);
        let code = format!("/** {long} */\nvar s=\"{long}\";var t=1;\n");
        let o = outline_of("gen.js", &code);
        let s = &o.symbols[0];
        assert_eq!(s.name, "s");
        assert_eq!(s.signature.chars().count(), SIGNATURE_CHARS + 1);
        assert!(s.signature.starts_with("var s=\"xxx") && s.signature.ends_with('…'));
        let doc = s.doc.as_deref().unwrap();
        assert_eq!(doc.chars().count(), DOC_CHARS + 1, "{doc}");
        assert_eq!(o.symbols[1].signature, "var t=1");
    }

    #[test]
    fn a_language_without_imports_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join("a.lua"), "function f()\nend\n").unwrap();
        let o = outline(&root, Path::new("a.lua"), Dialect::Default).unwrap();
        assert_eq!(o.imports, None);
        assert_eq!(o.symbols[0].visibility, None);
        assert!(outline_text(&[o], None).contains("imports and visibility: not supported for lua"));
    }
}
