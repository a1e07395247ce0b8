//! `outline`: what a file defines, as a tree of symbols with their signatures and line
//! ranges, under a token cap (issue 27, part 1: symbols; imports and visibility are not
//! done yet).

use std::path::Path;

use repo_mapper_render::TreeContext;
use repo_mapper_tags::Dialect;

use crate::show::{DefinedFile, ShowError};
use crate::tokens::Tokenizer;

/// One symbol of a [`FileOutline`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OutlineSymbol {
    /// What the language's tag query calls it: `function`, `class`, `method`, …
    pub kind: String,
    /// The defined name.
    pub name: String,
    /// Its signature: its first lines up to where the body starts (at most
    /// [`SIGNATURE_LINES`]), joined, spaces collapsed.
    pub signature: String,
    /// Its first line, from 1.
    pub start_line: usize,
    /// Its last line, from 1.
    pub end_line: usize,
    /// The name of the innermost symbol whose lines hold it, if any.
    pub parent: Option<String>,
    /// How many symbols hold it (0: top level).
    pub depth: usize,
}

/// What a file defines, as [`outline`] gives it.
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
}

/// Lines a signature takes at most.
pub const SIGNATURE_LINES: usize = 6;

/// The outline of the file `file` (relative to the root `root`, an absolute canonical
/// path, or absolute inside it), read and parsed now in `dialect`'s tags. A symbol spans
/// what [`show_symbol`](crate::show_symbol) would show of it; its parent is the innermost
/// other symbol whose lines hold its own.
pub fn outline(root: &Path, file: &Path, dialect: Dialect) -> Result<FileOutline, ShowError> {
    let defined = DefinedFile::read(root, file, dialect)?;
    let spans: Vec<(usize, usize)> = defined.defs.iter().map(|d| (d.start, d.end)).collect();
    let mut symbols: Vec<OutlineSymbol> = defined
        .defs
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let holders = holders(&spans, i);
            OutlineSymbol {
                kind: d.kind.to_owned(),
                name: d.name.clone(),
                signature: signature(&defined.context, d.start, d.end),
                start_line: d.start + 1,
                end_line: d.end + 1,
                parent: holders.last().map(|&h| defined.defs[h].name.clone()),
                depth: holders.len(),
            }
        })
        .collect();
    symbols.sort_by_key(|s| (s.start_line, s.depth));
    Ok(FileOutline {
        file: defined.rel,
        language: defined.lang.name().to_owned(),
        lines: defined.context.line_count(),
        symbols,
    })
}

/// The symbols whose spans hold symbol `i`'s (strictly larger, or equal and earlier),
/// outermost first.
fn holders(spans: &[(usize, usize)], i: usize) -> Vec<usize> {
    let (start, end) = spans[i];
    let mut out: Vec<usize> = (0..spans.len())
        .filter(|&j| {
            let (s, e) = spans[j];
            j != i && s <= start && end <= e && ((s, e) != (start, end) || j < i)
        })
        .collect();
    // Outermost first: the widest span.
    out.sort_by_key(|&j| (spans[j].0, std::cmp::Reverse(spans[j].1)));
    out
}

/// The lines from `start` up to the one where the body opens (ending in `:`, `{`, `=>`,
/// `=` or `;`), at most [`SIGNATURE_LINES`], joined with spaces collapsed.
fn signature(context: &TreeContext, start: usize, end: usize) -> String {
    let mut parts = Vec::new();
    for row in start..=end.min(start + SIGNATURE_LINES - 1) {
        let line = context.line(row).unwrap_or("").trim();
        parts.push(line);
        let opens = [":", "{", "=>", "=", ";"].iter().any(|e| line.ends_with(e));
        if opens {
            break;
        }
    }
    let joined = parts.join(" ");
    joined.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The outlines as text within `max_tokens` (of `tokenizer`), whole when they fit: each
/// file under a `FILE (LANGUAGE, N lines)` line, each symbol indented by its depth as
/// `KIND SIGNATURE  [START-END]`. Past the cap the shallowest symbols are kept (then the
/// first), and each file whose symbols were left out ends with `... and N more`.
pub fn outline_text(outlines: &[FileOutline], cap: Option<(usize, Tokenizer)>) -> String {
    outline_shown(outlines, cap).0
}

/// [`outline_text`], and how many symbols of each file it shows.
pub fn outline_shown(
    outlines: &[FileOutline],
    cap: Option<(usize, Tokenizer)>,
) -> (String, Vec<usize>) {
    let every: Vec<usize> = outlines.iter().map(|o| o.symbols.len()).collect();
    let all = render(outlines, &|_, _| true);
    let Some((max, tokenizer)) = cap else {
        return (all, every);
    };
    if tokenizer.count(&all) <= max {
        return (all, every);
    }
    // Every symbol of every file, shallowest (then first) first: a prefix is kept.
    let mut order: Vec<(usize, usize, usize, usize)> = outlines
        .iter()
        .enumerate()
        .flat_map(|(f, o)| {
            o.symbols
                .iter()
                .enumerate()
                .map(move |(i, s)| (s.depth, f, i, 0))
        })
        .collect();
    order.sort_unstable();
    let text_of = |kept: usize| {
        let keep: std::collections::HashSet<(usize, usize)> =
            order[..kept].iter().map(|&(_, f, i, _)| (f, i)).collect();
        render(outlines, &|f, i| keep.contains(&(f, i)))
    };
    let (mut lo, mut hi) = (0, order.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if tokenizer.count(&text_of(mid)) <= max {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut shown = vec![0; outlines.len()];
    for &(_, f, _, _) in &order[..lo] {
        shown[f] += 1;
    }
    (text_of(lo), shown)
}

/// The text of the symbols `kept(file, symbol)` says, with `... and N more` where some
/// are left out.
fn render(outlines: &[FileOutline], kept: &dyn Fn(usize, usize) -> bool) -> String {
    let mut out = String::new();
    for (f, o) in outlines.iter().enumerate() {
        // A file name is shown with its control characters escaped (one line each).
        let file = repo_mapper_render::escape_control(&o.file);
        out.push_str(&format!("{file} ({}, {} lines)\n", o.language, o.lines));
        let mut left_out = 0;
        for (i, s) in o.symbols.iter().enumerate() {
            if !kept(f, i) {
                left_out += 1;
                continue;
            }
            let indent = "  ".repeat(s.depth + 1);
            out.push_str(&format!(
                "{indent}{} {}  [{}-{}]\n",
                s.kind, s.signature, s.start_line, s.end_line
            ));
        }
        if left_out > 0 {
            out.push_str(&format!("  ... and {left_out} more\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    const CODE: &str = "\
class Store:
    def get(self, key,
            default=None):
        return self.items.get(key, default)

    def put(self, key, value):
        self.items[key] = value


def helper(x):
    return x
";

    fn repo() -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join("store.py"), CODE).unwrap();
        (dir, root)
    }

    #[test]
    fn symbols_nest_with_their_signatures_and_ranges() {
        let (_dir, root) = repo();
        let o = outline(&root, Path::new("store.py"), Dialect::Default).unwrap();
        assert_eq!(
            (o.file.as_str(), o.language.as_str(), o.lines),
            ("store.py", "python", 11)
        );
        let rows: Vec<_> = o
            .symbols
            .iter()
            .map(|s| {
                (
                    s.kind.as_str(),
                    s.name.as_str(),
                    s.start_line,
                    s.end_line,
                    s.depth,
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("class", "Store", 1, 7, 0),
                ("function", "get", 2, 4, 1),
                ("function", "put", 6, 7, 1),
                ("function", "helper", 10, 11, 0),
            ]
        );
        assert_eq!(o.symbols[1].signature, "def get(self, key, default=None):");
        assert_eq!(o.symbols[1].parent.as_deref(), Some("Store"));
        assert_eq!(o.symbols[3].parent, None);
    }

    #[test]
    fn a_cap_keeps_the_top_level_and_says_how_many_more() {
        let (_dir, root) = repo();
        let o = outline(&root, Path::new("store.py"), Dialect::Default).unwrap();
        let whole = outline_text(std::slice::from_ref(&o), None);
        assert_eq!(
            whole,
            "store.py (python, 11 lines)\n  class class Store:  [1-7]\n    function def get(self, \
             key, default=None):  [2-4]\n    function def put(self, key, value):  [6-7]\n  \
             function def helper(x):  [10-11]\n"
        );
        let tokenizer = Tokenizer::default();
        let max = tokenizer.count(&whole) - 5;
        let capped = outline_text(std::slice::from_ref(&o), Some((max, tokenizer)));
        assert!(tokenizer.count(&capped) <= max, "{capped}");
        assert!(
            capped.contains("class Store") && capped.contains("helper"),
            "{capped}"
        );
        assert!(capped.ends_with("  ... and 1 more\n") || capped.ends_with("  ... and 2 more\n"));
    }
}
