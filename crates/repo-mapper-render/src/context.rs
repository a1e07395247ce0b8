//! grep-ast's `TreeContext`, with the options Aider's repo map passes.

use std::ops::Range;
use std::path::Path;
use std::time::Instant;

use repo_mapper_tags::{Dialect, Language, Limits, filename_to_lang, parse_within};
use tree_sitter::Tree;

use crate::scopes::Scopes;
use crate::text::{is_blank, line_count, split_lines};

/// grep-ast's `header_max`: a scope's header shows at most this many lines.
pub const HEADER_MAX: usize = 10;

/// Marks a shown line (grep-ast's `│` spacer, `mark_lois` off).
const SHOWN: &str = "│";
/// Stands for one run of hidden lines.
const GAP: &str = "⋮\n";

/// The language a file is rendered in: [`Language::for_path`] under `dialect`, else
/// grep-ast's own name for the file when we have its grammar.
///
/// The fallback matters only in [`Dialect::Aider`], where `for_path` drops the languages
/// Aider extracts no tags from (bash, julia): grep-ast's `TreeContext` would still parse
/// them, so a tag handed to us for such a file renders as grep-ast renders it.
pub fn render_language(path: &Path, dialect: Dialect) -> Option<Language> {
    Language::for_path(path, dialect)
        .or_else(|| filename_to_lang(path).and_then(Language::from_name))
}

/// Which lines show the scopes around a line of interest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Headers {
    /// grep-ast's: every syntax node is a scope, and a row where two multi-row nodes
    /// start shows up to [`HEADER_MAX`] lines. A definition's body is then a scope of its
    /// own, so a method shows the first lines of its class's body (a docstring, a short
    /// test) and a function whose body opens on its first line shows that body.
    #[default]
    GrepAst,
    /// A definition shows its signature, not its body: a node that is the body of its
    /// parent (the grammar's `body` field, or a block, body or declaration list) is no
    /// scope and no header, so a scope shows its first line, or the lines of a
    /// signature that spans several.
    Signatures,
}

/// A file's lines and syntactic scopes, ready to show chosen lines with the headers of
/// the scopes they sit in: grep-ast 0.9.0's `TreeContext` with the options Aider 0.86.2's
/// `render_tree` passes (no colour, no line numbers, no child context, no last line,
/// margin 0, lines of interest not marked, no padding, no parent scope that starts at the
/// top of the file, header of at most [`HEADER_MAX`] lines).
///
/// Built once per file (parsing and one iterative walk over every node), then
/// [`render`](TreeContext::render) runs as often as needed for different lines of interest,
/// in time linear in the number of lines. Nothing recurses on the tree.
///
/// Hostile input is bounded (issue 12): parsing gets at most [`Limits::time_per_file`]
/// ([`TreeContext::new_within`]; [`TreeContext::new`] allows [`Limits::default`]) and a file
/// whose parse runs out of time renders without scopes; the walk after it is linear in the
/// number of nodes whatever their depth, and no input (any text, any line of interest)
/// panics.
///
/// How grep-ast's model maps onto this one: every node contributes its start row to the
/// *scopes* of every row it spans, and, when it spans more than one row, a header candidate
/// to its start row. A row's header is its own line, unless at least two multi-row nodes
/// start on it, in which case it runs from that row for as many rows as the smallest of
/// them spans (at most [`HEADER_MAX`]; the closing row is not included). Here a row's
/// scopes are kept as "the furthest end row of the nodes starting on row *s*": *s* is a
/// scope of row *i* exactly when *s* ≤ *i* ≤ that end, which a segment tree answers
/// without materialising grep-ast's per-row sets.
#[derive(Debug, Clone)]
pub struct TreeContext {
    text: String,
    /// Byte ranges of the lines in `text`, without terminators (grep-ast's `lines`).
    lines: Vec<Range<usize>>,
    /// Per line: whether Python's `line.strip()` is empty.
    blank: Vec<bool>,
    /// Per row (`lines.len() + 1` rows, grep-ast's `num_lines`): how many lines the
    /// header of a scope starting on this row shows.
    header_len: Vec<u32>,
    /// Max-segment tree over rows of "furthest end row of a node starting here", −1 where
    /// no node starts; leaves from index `leaves`.
    scope_tree: Vec<i64>,
    leaves: usize,
    dialect: Dialect,
}

impl TreeContext {
    /// Parses `code` with the grammar of `language` and builds its context.
    ///
    /// `language` `None` (a file grep-ast has no language for) gives a context without
    /// scopes: rendering then shows the lines of interest, the small gaps between them and
    /// the blank lines after them, and nothing else. grep-ast raises `ValueError` here;
    /// Aider never gets that far, as it only renders files it extracted tags from.
    ///
    /// Parsing may take [`Limits::default`]'s time; see [`TreeContext::new_within`].
    pub fn new(code: impl Into<String>, language: Option<Language>, dialect: Dialect) -> Self {
        Self::new_within(code, language, dialect, &Limits::default())
    }

    /// [`TreeContext::new`], parsing within `limits`: a parse that runs out of time (or a
    /// grammar that cannot be loaded) gives the context without scopes that `language`
    /// `None` gives, and a warning.
    pub fn new_within(
        code: impl Into<String>,
        language: Option<Language>,
        dialect: Dialect,
        limits: &Limits,
    ) -> Self {
        Self::new_with_headers(code, language, dialect, limits, Headers::GrepAst)
    }

    /// [`TreeContext::new_within`], showing scopes as `headers` says.
    pub fn new_with_headers(
        code: impl Into<String>,
        language: Option<Language>,
        dialect: Dialect,
        limits: &Limits,
        headers: Headers,
    ) -> Self {
        Self::parsed(code.into(), language, dialect, limits, headers).0
    }

    /// [`TreeContext::new_with_headers`], with the scopes the parse gave (`None` when
    /// there was no parse: no language, or time ran out).
    pub(crate) fn parsed(
        code: String,
        language: Option<Language>,
        dialect: Dialect,
        limits: &Limits,
        headers: Headers,
    ) -> (Self, Option<Scopes>) {
        let lines = split_lines(&code, dialect);
        Self::parsed_lines(code, lines, language, (dialect, limits, headers))
    }

    /// [`TreeContext::parsed`] of `code` split into `lines` already.
    pub(crate) fn parsed_lines(
        code: String,
        lines: Vec<Range<usize>>,
        language: Option<Language>,
        (dialect, limits, headers): (Dialect, &Limits, Headers),
    ) -> (Self, Option<Scopes>) {
        match language.and_then(|lang| parse(lang, &code, limits)) {
            Some(tree) => {
                let (context, scopes) = Self::from_tree_lines(code, lines, &tree, dialect, headers);
                (context, Some(scopes))
            }
            None => {
                let scopes = Scopes::empty(lines.len() + 1);
                (Self::assemble(code, lines, scopes, dialect), None)
            }
        }
    }

    /// The context of `code`, split into `lines`, from `tree`, its parse; with the scopes
    /// the tree gave.
    pub(crate) fn from_tree_lines(
        code: String,
        lines: Vec<Range<usize>>,
        tree: &Tree,
        dialect: Dialect,
        headers: Headers,
    ) -> (Self, Scopes) {
        let scopes = RowScopes::of(tree, lines.len() + 1, headers).into_scopes();
        (Self::assemble(code, lines, scopes.clone(), dialect), scopes)
    }

    /// Builds the context of `code` from its already parsed syntax `tree` (`None`: no
    /// scopes, as in [`TreeContext::new`]). `tree` must be the parse of `code`.
    pub fn from_tree(code: impl Into<String>, tree: Option<&Tree>, dialect: Dialect) -> Self {
        Self::from_tree_with_headers(code, tree, dialect, Headers::GrepAst)
    }

    /// [`TreeContext::from_tree`], showing scopes as `headers` says.
    pub fn from_tree_with_headers(
        code: impl Into<String>,
        tree: Option<&Tree>,
        dialect: Dialect,
        headers: Headers,
    ) -> Self {
        let text = code.into();
        let lines = split_lines(&text, dialect);
        let num_rows = lines.len() + 1;
        let scopes = tree.map_or_else(
            || Scopes::empty(num_rows),
            |t| RowScopes::of(t, num_rows, headers).into_scopes(),
        );
        Self::assemble(text, lines, scopes, dialect)
    }

    /// The context of `text`, split into `lines`, with `scopes` of as many rows.
    pub(crate) fn assemble(
        text: String,
        lines: Vec<Range<usize>>,
        scopes: Scopes,
        dialect: Dialect,
    ) -> Self {
        let blank = lines.iter().map(|r| is_blank(&text[r.clone()])).collect();
        let (scope_tree, leaves) = max_segment_tree(&scopes.scope_end);
        TreeContext {
            text,
            lines,
            blank,
            header_len: scopes.header_len,
            scope_tree,
            leaves,
            dialect,
        }
    }

    /// The number of lines (grep-ast's `len(lines)`; its `num_lines` is one more).
    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// Line `i` (0-based) without its terminator.
    pub fn line(&self, i: usize) -> Option<&str> {
        self.lines.get(i).map(|r| &self.text[r.clone()])
    }

    /// The dialect the context was built for.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Shows `lines_of_interest` (0-based rows) in context, as grep-ast's
    /// `add_lines_of_interest` + `add_context` + `format` do on a context whose lines of
    /// interest were just reset (Aider's `render_tree`).
    ///
    /// Shown are the lines of interest; the header of every scope containing one (unless
    /// that scope starts on the first line); any single hidden line between two shown ones;
    /// and a blank line right after a shown non-blank one. Each shown line is printed as
    /// `│` + line, each run of hidden lines as one `⋮`.
    ///
    /// Out-of-range lines are as in Python: rows at or past the end only take part in the
    /// gap closing (so they never print); in [`Dialect::Aider`] a negative row −*k* counts
    /// as Python's `scopes[-k]` (the *k*-th row from the end) and joins the gap closing,
    /// while [`Dialect::Default`] ignores negative rows. No lines of interest give `""`
    /// (grep-ast would instead repeat its previous output).
    pub fn render(&self, lines_of_interest: &[i64]) -> String {
        let lois = self.rows_of_interest(lines_of_interest);
        if lois.is_empty() {
            return String::new();
        }
        let mut show = vec![false; self.lines.len()];
        for &i in &lois {
            if let Ok(i) = usize::try_from(i)
                && i < show.len()
            {
                show[i] = true;
            }
        }
        self.show_parent_scopes(&lois, &mut show);
        close_small_gaps(&lois, &mut show);
        self.show_blank_after_shown(&mut show);
        self.format(&show)
    }

    /// The lines of interest [`render`](TreeContext::render) takes part in, sorted and
    /// without repeats: all of them in [`Dialect::Aider`], the non-negative ones in
    /// [`Dialect::Default`].
    fn rows_of_interest(&self, lines_of_interest: &[i64]) -> Vec<i64> {
        let mut lois: Vec<i64> = lines_of_interest
            .iter()
            .copied()
            .filter(|&i| i >= 0 || self.dialect == Dialect::Aider)
            .collect();
        lois.sort_unstable();
        lois.dedup();
        lois
    }

    /// grep-ast's `add_parent_scopes` for every line of interest: shows the header of each
    /// scope containing one (each scope visited once).
    fn show_parent_scopes(&self, lois: &[i64], show: &mut [bool]) {
        let line_count = self.lines.len();
        let num_rows = line_count as i64 + 1;
        let mut tree = self.scope_tree.clone();
        for &i in lois {
            let row = if i >= num_rows {
                continue;
            } else if i >= 0 {
                i
            } else if i >= -num_rows {
                num_rows + i // Python's negative indexing; only Aider keeps negative rows.
            } else {
                continue; // IndexError in Python.
            };
            self.take_scopes_of(&mut tree, row, |scope| {
                // show_top_of_file_parent_scope is off: no header starting on row 0.
                if scope > 0 {
                    // A scope starts at most on the row past the last line.
                    let end = (scope + self.header_len[scope] as usize).min(line_count);
                    show[scope.min(end)..end].fill(true);
                }
            });
        }
    }

    /// The rest of grep-ast's `close_small_gaps`: the blank line right after a shown
    /// non-blank one is shown.
    fn show_blank_after_shown(&self, show: &mut [bool]) {
        for i in 0..show.len().saturating_sub(1) {
            if show[i] && !self.blank[i] && self.blank[i + 1] {
                show[i + 1] = true;
            }
        }
    }

    /// grep-ast's `format`: `│` + line for each shown line, one `⋮` for each run of hidden
    /// ones.
    fn format(&self, show: &[bool]) -> String {
        let mut out = String::new();
        let mut gap_open = true;
        for (i, range) in self.lines.iter().enumerate() {
            if show[i] {
                out.push_str(SHOWN);
                out.push_str(&self.text[range.clone()]);
                out.push('\n');
                gap_open = true;
            } else if gap_open {
                out.push_str(GAP);
                gap_open = false;
            }
        }
        out
    }

    /// Calls `f` with every scope of `row` (start row of a node spanning `row`) not yet
    /// taken from `tree`, and takes it: a stabbing query on the segment tree with an
    /// explicit stack.
    fn take_scopes_of(&self, tree: &mut [i64], row: i64, mut f: impl FnMut(usize)) {
        let Ok(row_u) = usize::try_from(row) else {
            return;
        };
        let mut stack = vec![(1_usize, 0_usize, self.leaves - 1)];
        while let Some((node, lo, hi)) = stack.pop() {
            if lo > row_u || tree[node] < row {
                continue;
            }
            if node >= self.leaves {
                f(lo);
                tree[node] = -1;
                let mut p = node / 2;
                while p >= 1 {
                    let m = tree[2 * p].max(tree[2 * p + 1]);
                    if tree[p] == m {
                        break;
                    }
                    tree[p] = m;
                    p /= 2;
                }
                continue;
            }
            let mid = lo + (hi - lo) / 2;
            stack.push((2 * node + 1, mid + 1, hi));
            stack.push((2 * node, lo, mid));
        }
    }
}

impl Scopes {
    /// The scopes a renderer in `dialect` showing `headers` takes from `tree`, the parse
    /// of `code`: what a [`ScopeCache`](crate::ScopeCache) keeps under
    /// [`ScopeKey::new`](crate::ScopeKey::new) for `code`. A caller that parsed a file's
    /// text itself (a tag scan) can keep them there, and the renderer will not parse that
    /// text again. `code` is the text as the renderer reads it (it ends with a line
    /// break).
    pub fn of_tree(code: &str, tree: &Tree, dialect: Dialect, headers: Headers) -> Scopes {
        RowScopes::of(tree, line_count(code, dialect) + 1, headers).into_scopes()
    }
}

/// What the nodes of a syntax tree say about each row: the furthest end row of the nodes
/// starting there, and the multi-row nodes starting there (how many, capped at 2, and the
/// smallest span), from which its header length follows.
struct RowScopes {
    /// Per row: the furthest end row of a node starting on it, −1 where none starts.
    scope_end: Vec<i64>,
    multi_row: Vec<u8>,
    min_span: Vec<usize>,
}

impl RowScopes {
    /// `num_rows` rows without scopes.
    fn empty(num_rows: usize) -> Self {
        RowScopes {
            scope_end: vec![-1; num_rows],
            multi_row: vec![0; num_rows],
            min_span: vec![usize::MAX; num_rows],
        }
    }

    /// The rows' scopes of `tree`, in one iterative walk over every node that starts a
    /// row's scope: the nodes below one that spans a single row are not visited, since
    /// each starts and ends on that row and adds nothing it has not added (such a node is
    /// never a body either).
    fn of(tree: &Tree, num_rows: usize, headers: Headers) -> Self {
        Self::walk(tree, num_rows, headers, |first_row, last_row| {
            last_row > first_row
        })
    }

    /// The rows' scopes of the nodes of `tree` a walk visits when it goes below each node
    /// for which `descend(first row, last row)` holds.
    fn walk(
        tree: &Tree,
        num_rows: usize,
        headers: Headers,
        descend: impl Fn(usize, usize) -> bool,
    ) -> Self {
        let mut rows = RowScopes::empty(num_rows);
        let last = num_rows - 1;
        let mut cursor = tree.walk();
        // The start byte of each ancestor of the cursor's node, innermost last.
        let mut parents: Vec<usize> = Vec::new();
        loop {
            let node = cursor.node();
            let (first_row, last_row) = (node.start_position().row, node.end_position().row);
            // Rows never exceed the line count (every '\n' ends a line); clamp anyway.
            let start = first_row.min(last);
            let end = last_row.clamp(start, last);
            let comment = headers == Headers::Signatures && is_comment(&node);
            let body = headers == Headers::Signatures && is_body(&cursor, parents.last().copied());
            if !comment && !body {
                rows.add_node(start, end);
            }
            if !comment && descend(first_row, last_row) && cursor.goto_first_child() {
                parents.push(node.start_byte());
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return rows;
                }
                parents.pop();
            }
        }
    }

    /// Records a node spanning rows `start..=end`.
    fn add_node(&mut self, start: usize, end: usize) {
        let end_i = i64::try_from(end).unwrap_or(i64::MAX);
        self.scope_end[start] = self.scope_end[start].max(end_i);
        if end > start {
            self.multi_row[start] = self.multi_row[start].saturating_add(1).min(2);
            self.min_span[start] = self.min_span[start].min(end - start);
        }
    }

    /// The [`Scopes`] these rows give.
    fn into_scopes(self) -> Scopes {
        Scopes {
            header_len: self.header_len(),
            scope_end: self.scope_end,
        }
    }

    /// Per row, how many lines the header of a scope starting there shows: the smallest
    /// span of the multi-row nodes starting there when there are at least two (at most
    /// [`HEADER_MAX`]), else 1.
    fn header_len(&self) -> Vec<u32> {
        self.multi_row
            .iter()
            .zip(&self.min_span)
            .map(|(&n, &span)| {
                if n >= 2 {
                    u32::try_from(span.min(HEADER_MAX)).unwrap_or(1)
                } else {
                    1
                }
            })
            .collect()
    }
}

/// Whether the cursor's node is the body of its parent ([`Headers::Signatures`]): it
/// spans several rows, starts after its parent does, and is the parent's `body` field or
/// a node whose kind names a block, a body or a declaration list (grammars without a
/// `body` field: Go's struct fields, Ruby's `body_statement`, C's compound statement).
/// `parent_start` is the start byte of its parent (`None` at the root).
fn is_body(cursor: &tree_sitter::TreeCursor<'_>, parent_start: Option<usize>) -> bool {
    let node = cursor.node();
    let Some(parent_start) = parent_start else {
        return false;
    };
    if node.end_position().row == node.start_position().row || node.start_byte() <= parent_start {
        return false;
    }
    let kind = node.kind();
    cursor.field_name() == Some("body")
        || kind.ends_with("block")
        || kind.ends_with("body")
        || kind.ends_with("body_statement")
        || kind.ends_with("declaration_list")
        || kind == "compound_statement"
}

/// Whether the node is a comment ([`Headers::Signatures`]): no scope, and nothing in it
/// is. A Rust line comment ends on the next row (it holds its newline), so under
/// grep-ast it is a scope of the definition below it, and the last line of a doc
/// comment shows as that definition's header.
fn is_comment(node: &tree_sitter::Node<'_>) -> bool {
    node.kind().contains("comment")
}

/// A max-segment tree over `values` (−1 padding): the nodes, and the index of the first
/// leaf.
fn max_segment_tree(values: &[i64]) -> (Vec<i64>, usize) {
    let leaves = values.len().next_power_of_two();
    let mut tree = vec![-1_i64; 2 * leaves];
    tree[leaves..leaves + values.len()].copy_from_slice(values);
    for node in (1..leaves).rev() {
        tree[node] = tree[2 * node].max(tree[2 * node + 1]);
    }
    (tree, leaves)
}

/// grep-ast's `close_small_gaps`, first part: a single hidden row between two shown ones
/// is shown, judged on the rows shown before closing, out-of-range lines of interest
/// included (grep-ast keeps them in its set of shown rows).
fn close_small_gaps(lois: &[i64], show: &mut [bool]) {
    let line_count = show.len();
    let below = lois.iter().copied().filter(|&i| i < 0);
    let above = lois.iter().copied().filter(|&i| i >= line_count as i64);
    let shown_rows = (0..line_count).filter(|&r| show[r]).map(|r| r as i64);
    let mut closed = Vec::new();
    let mut prev: Option<i64> = None;
    for row in below.chain(shown_rows).chain(above) {
        // Rows may be any i64 (a public API): compare without overflowing.
        if let Some(p) = prev
            && row.checked_sub(p) == Some(2)
            && let Ok(mid) = usize::try_from(p + 1)
            && mid < line_count
        {
            closed.push(mid);
        }
        prev = Some(row);
    }
    for mid in closed {
        show[mid] = true;
    }
}

/// `code` parsed as `lang` within `limits`; `None` (rendered without scopes) when time ran
/// out or the grammar cannot be loaded (which the tags crate reports).
fn parse(lang: Language, code: &str, limits: &Limits) -> Option<Tree> {
    let started = Instant::now();
    let tree = parse_within(lang, code, limits);
    if tree.is_none() && started.elapsed() >= limits.time_per_file {
        tracing::warn!(
            "parsing {} bytes of {lang} took over {:?}: rendered without scopes",
            code.len(),
            limits.time_per_file
        );
    }
    tree
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(code: &str, lang: Language, lois: &[i64]) -> String {
        TreeContext::new(code, Some(lang), Dialect::Aider).render(lois)
    }

    #[test]
    fn method_in_class_shows_class_header() {
        let code = "import os\n\nclass A:\n    x = 1\n\n    def f(self):\n        return 1\n";
        assert_eq!(
            render(code, Language::Python, &[5]),
            "⋮\n│class A:\n│    x = 1\n│\n│    def f(self):\n⋮\n"
        );
    }

    #[test]
    fn no_lines_of_interest_render_nothing() {
        assert_eq!(render("x = 1\n", Language::Python, &[]), "");
    }

    #[test]
    fn no_language_shows_lines_gaps_and_blanks() {
        let ctx = TreeContext::new("a\nb\nc\n\nd\ne\n", None, Dialect::Default);
        assert_eq!(ctx.render(&[0, 2]), "│a\n│b\n│c\n│\n⋮\n");
    }

    #[test]
    fn hostile_lines_of_interest_never_panic() {
        let code = "class A:\n    def f(self):\n        return 1\n";
        let extremes = [
            i64::MIN,
            i64::MIN + 1,
            -5,
            -1,
            0,
            2,
            3,
            4,
            1 << 40,
            i64::MAX,
        ];
        for dialect in [Dialect::Default, Dialect::Aider] {
            let ctx = TreeContext::new(code, Some(Language::Python), dialect);
            let out = ctx.render(&extremes);
            assert!(out.contains("│        return 1\n"), "{dialect:?}: {out}");
            assert_eq!(ctx.render(&[i64::MAX]), "⋮\n");
            assert!(!ctx.render(&[i64::MIN, i64::MAX]).is_empty());
        }
    }

    #[test]
    fn degenerate_files_render() {
        let long = "x".repeat(1 << 20);
        let texts = ["", "\n", "\r", "\r\r\r", "a\rb\rc", "\0\0\n", long.as_str()];
        for text in texts {
            for dialect in [Dialect::Default, Dialect::Aider] {
                for lang in [Some(Language::Python), Some(Language::C), None] {
                    let ctx = TreeContext::new(text, lang, dialect);
                    let last = ctx.line_count() as i64;
                    let _ = ctx.render(&[-1, 0, last - 1, last, last + 1]);
                }
            }
        }
        let ctx = TreeContext::new("a\rb\rc\n", Some(Language::Python), Dialect::Aider);
        assert_eq!(ctx.render(&[1]), "⋮\n│b\n⋮\n");
    }

    #[test]
    fn a_parse_out_of_time_renders_without_scopes() {
        let code = "class A:\n    x = 1\n\n    def f(self):\n        return 1\n";
        let cut = Limits::new(std::time::Duration::ZERO);
        let ctx = TreeContext::new_within(code, Some(Language::Python), Dialect::Default, &cut);
        let plain = TreeContext::new(code, None, Dialect::Default);
        assert_eq!(ctx.render(&[4]), plain.render(&[4]));
        assert_eq!(ctx.render(&[4]), "⋮\n│        return 1\n");
    }

    fn both(code: &str, lang: Language, lois: &[i64]) -> (String, String) {
        let with = |headers| {
            TreeContext::new_with_headers(
                code,
                Some(lang),
                Dialect::Default,
                &Limits::default(),
                headers,
            )
            .render(lois)
        };
        (with(Headers::GrepAst), with(Headers::Signatures))
    }

    /// Issue 24: a method's class body is no scope of its own in signatures, so its
    /// docstring (grep-ast's header of the block that starts on it) is left out.
    #[test]
    fn signatures_leave_out_the_class_docstring() {
        let doc: String = (0..12).map(|i| format!("    line {i}\n")).collect();
        let code = format!(
            "x = 1\nclass A(B):\n    \"\"\"Doc.\n{doc}    \"\"\"\n\n    def f(self):\n        return 1\n"
        );
        let (grep_ast, signatures) = both(&code, Language::Python, &[17]);
        assert!(grep_ast.contains("line 5"), "{grep_ast}");
        assert_eq!(signatures, "⋮\n│class A(B):\n⋮\n│    def f(self):\n⋮\n");
    }

    /// A function whose body opens on its first line shows that body under grep-ast
    /// (two multi-row nodes start there); in signatures only the line.
    #[test]
    fn signatures_leave_out_a_body_opened_on_the_first_line() {
        let code = "let a = 1;\nfunction f(x) {\n  const y = x;\n  return y;\n}\nlet b = 2;\n";
        let (grep_ast, signatures) = both(code, Language::JavaScript, &[1]);
        assert!(grep_ast.contains("const y"), "{grep_ast}");
        assert_eq!(signatures, "⋮\n│function f(x) {\n⋮\n");
    }

    /// A doc comment is no header in signatures: under grep-ast its last line shows
    /// above the function, cut from the rest of it.
    #[test]
    fn signatures_leave_out_the_last_line_of_a_doc_comment() {
        let code = "struct S;\n\nimpl S {\n    /// Says hello\n    /// to everyone.\n    fn hello(&self) {\n        let x = 1;\n    }\n}\n";
        let (grep_ast, signatures) = both(code, Language::Rust, &[5]);
        assert!(grep_ast.contains("/// to everyone."), "{grep_ast}");
        assert_eq!(signatures, "⋮\n│impl S {\n⋮\n│    fn hello(&self) {\n⋮\n");
    }

    /// A signature over several lines still shows them (its parameters are no body).
    #[test]
    fn signatures_keep_a_signature_over_several_lines() {
        let code =
            "x = 1\n\n\ndef f(\n    a,\n    b,\n):\n    one = 1\n    two = 2\n    return a\n";
        let (_, signatures) = both(code, Language::Python, &[3]);
        assert_eq!(signatures, "⋮\n│def f(\n│    a,\n│    b,\n⋮\n");
    }

    /// Leaving out the nodes below single-row ones changes no scope: every fixture of
    /// every language, whole and cut short at a dozen places (broken syntax), under both
    /// headers.
    #[test]
    fn scopes_skip_nothing_a_full_walk_finds() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/languages");
        let mut checked = 0;
        for entry in walk_files(&dir) {
            let Some(lang) = Language::for_path(&entry, Dialect::Default) else {
                continue;
            };
            let Ok(code) = std::fs::read_to_string(&entry) else {
                continue;
            };
            let cuts = (1..=12).map(|i| code.floor_char_boundary(code.len() * i / 12));
            for cut in cuts {
                let text = &code[..cut];
                let Some(tree) = parse(lang, text, &Limits::default()) else {
                    continue;
                };
                let num_rows = split_lines(text, Dialect::Default).len() + 1;
                for headers in [Headers::GrepAst, Headers::Signatures] {
                    assert_eq!(
                        RowScopes::of(&tree, num_rows, headers).into_scopes(),
                        RowScopes::walk(&tree, num_rows, headers, |_, _| true).into_scopes(),
                        "{} cut at {cut}, {headers:?}",
                        entry.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 500, "only {checked} cases: fixtures missing?");
    }

    /// Every file under `dir`, depth first.
    fn walk_files(dir: &Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        let mut todo = vec![dir.to_path_buf()];
        while let Some(d) = todo.pop() {
            for entry in std::fs::read_dir(&d).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    todo.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        files
    }
}
