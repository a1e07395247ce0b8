//! Running the tag queries over a parsed file.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use tree_sitter::{
    Node, ParseOptions, ParseState, Parser, Point, QueryCursor, QueryCursorOptions,
    QueryCursorState, StreamingIterator, Tree,
};

use crate::capture::Capture;
use crate::limits::{CutShort, Deadline, Limits};
use crate::pycompat::normalize_newlines;
use crate::registry::{self, Compiled, LazyQuery, TagQuery};
use crate::{Dialect, Language, Tag, TagKind};

thread_local! {
    /// One parser per language per thread: parsers are not `Sync` and cost an allocation
    /// to create, so rayon workers keep theirs.
    static PARSERS: RefCell<HashMap<Language, Parser>> = RefCell::new(HashMap::new());
}

/// Reads `path` as Aider's `io.read_text` does, for tag extraction: `None` when the file is
/// not valid UTF-8 (behaviour.md §13.6: such files yield no tags), else the text with `\r\n` and
/// lone `\r` turned into `\n` (Python's universal newlines), so line numbers agree with
/// Aider's on every file.
pub fn read_source(path: &Path) -> io::Result<Option<String>> {
    Ok(source_from_bytes(std::fs::read(path)?))
}

/// A file's bytes as tag extraction sees them: `None` unless valid UTF-8, else the text with
/// newlines normalised (see [`read_source`]).
pub fn source_from_bytes(bytes: Vec<u8>) -> Option<String> {
    String::from_utf8(bytes).ok().map(normalize_newlines)
}

/// Extracts the tags of one file, reading it from disk.
///
/// The language comes from the file name ([`Language::for_path`]); a file of no supported
/// language, an empty file and a file that is not valid UTF-8 yield no tags. Errors are
/// only those of reading the file (missing, unreadable, a directory).
pub fn extract_file(fname: &Path, rel_fname: &str, dialect: Dialect) -> io::Result<Vec<Tag>> {
    let Some(lang) = Language::for_path(fname, dialect) else {
        return Ok(Vec::new());
    };
    let Some(source) = read_source(fname)? else {
        tracing::debug!(file = %fname.display(), "not valid UTF-8: no tags");
        return Ok(Vec::new());
    };
    Ok(extract_source(
        lang,
        &source,
        Arc::from(rel_fname),
        Arc::from(fname),
        dialect,
    ))
}

/// Extracts the tags of `source`, a file in language `lang`, within the default
/// [`Limits`]; see [`extract_source_within`].
pub fn extract_source(
    lang: Language,
    source: &str,
    rel_fname: Arc<str>,
    fname: Arc<Path>,
    dialect: Dialect,
) -> Vec<Tag> {
    extract_source_within(lang, source, rel_fname, fname, dialect, &Limits::default()).tags
}

/// The tags of one file, and whether its extraction was cut short.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Extraction {
    /// The tags found (all of them unless `cut_short`).
    pub tags: Vec<Tag>,
    /// Set when the file's time ran out: which step stopped.
    pub cut_short: Option<CutShort>,
}

/// Extracts the tags of `source`, a file in language `lang`, spending at most
/// `limits.time_per_file` on it.
///
/// Tags come grouped by capture name, in the order the names first appear, each group in
/// source order with every node once (as py-tree-sitter's `QueryCursor.captures` returns
/// them). When the file has definitions but no references, the language's identifier query
/// supplies references with line −1 (behaviour.md §3.2); in [`Dialect::Aider`], pygments' lexer
/// replayed, as Aider does, where it can be (see `docs/parity.md`, T8). A tree with syntax
/// errors still yields the tags its well-formed parts hold. A query that does not compile
/// yields no tags and a warning (the test suite compiles every embedded query, so this is
/// not expected). When time runs out, parsing yields no tags and a query keeps the tags
/// found so far ([`Extraction::cut_short`]).
pub fn extract_source_within(
    lang: Language,
    source: &str,
    rel_fname: Arc<str>,
    fname: Arc<Path>,
    dialect: Dialect,
    limits: &Limits,
) -> Extraction {
    extract_source_parsed(lang, source, rel_fname, fname, dialect, limits).0
}

/// [`extract_source_within`], with the syntax tree it parsed (`None` when there was
/// none: an empty text, a grammar that cannot be loaded, or time ran out while parsing).
pub fn extract_source_parsed(
    lang: Language,
    source: &str,
    rel_fname: Arc<str>,
    fname: Arc<Path>,
    dialect: Dialect,
    limits: &Limits,
) -> (Extraction, Option<Tree>) {
    if source.is_empty() {
        return (Extraction::default(), None);
    }
    let compiled: &'static Compiled = match registry::compiled(lang) {
        Ok(c) => c,
        Err(err) => {
            tracing::warn!("{err}");
            return (Extraction::default(), None);
        }
    };
    let deadline = limits.deadline();
    let tree = match parse_before(lang, source, deadline) {
        Parsed::Tree(tree) => tree,
        Parsed::Failed => return (Extraction::default(), None),
        Parsed::OutOfTime => {
            let out = Extraction {
                tags: Vec::new(),
                cut_short: Some(CutShort::Parse),
            };
            return (out, None);
        }
    };
    // A tag walk finds out for itself whether the tree is too deep (one walk, not two).
    let walks = compiled.tag_walk.is_some();
    let too_deep = !walks && deeper_than(tree.root_node(), MAX_QUERY_START_DEPTH);
    let file = FileRun {
        lang,
        dialect,
        bytes: source.as_bytes(),
        rel_fname,
        fname,
        bounds: QueryBounds {
            deadline,
            max_start_depth: (walks || too_deep).then_some(MAX_QUERY_START_DEPTH),
        },
    };
    let mut out = file.tags(compiled, tree.root_node(), source);
    if too_deep {
        out.cut_short = out.cut_short.or(Some(CutShort::Depth));
    }
    (out, Some(tree))
}

/// The deepest node at which a query match may start in a tree deeper than that.
/// tree-sitter 0.25's query cursor keeps a match's start depth in 16 bits: in a tree
/// deeper than 65,535 the depths wrap, matches are never retired and the query slows to
/// a crawl (issue 12 measured minutes for 33,000 nested JavaScript functions, two nodes
/// each). Below this depth every match is found; deeper ones are not looked for, and the
/// file counts as cut short ([`CutShort::Depth`]).
const MAX_QUERY_START_DEPTH: u32 = 60_000;

/// Whether any node under `root` lies more than `limit` levels down (an iterative walk
/// that stops as soon as it finds one; the depth is counted here, as tree-sitter's own
/// `TreeCursor::depth` walks the cursor's whole stack).
fn deeper_than(root: Node<'_>, limit: u32) -> bool {
    let mut cursor = root.walk();
    let mut depth = 0u32;
    loop {
        if cursor.goto_first_child() {
            depth += 1;
            if depth > limit {
                return true;
            }
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

/// What stops a query early: the file's deadline, and in a tree too deep for tree-sitter's
/// query cursor, the depth below which no match starts.
#[derive(Debug, Clone, Copy)]
struct QueryBounds {
    deadline: Deadline,
    max_start_depth: Option<u32>,
}

/// One file's extraction after parsing: what every step needs.
struct FileRun<'s> {
    lang: Language,
    dialect: Dialect,
    bytes: &'s [u8],
    rel_fname: Arc<str>,
    fname: Arc<Path>,
    bounds: QueryBounds,
}

impl FileRun<'_> {
    fn tag(&self, line: i32, name: String, kind: TagKind, sub_kind: &'static str) -> Tag {
        Tag {
            rel_fname: Arc::clone(&self.rel_fname),
            fname: Arc::clone(&self.fname),
            line,
            name,
            kind,
            sub_kind,
        }
    }

    /// The tags query, the aider dialect's python constants, then the reference fallback.
    fn tags(&self, compiled: &'static Compiled, root: Node<'_>, source: &str) -> Extraction {
        let (lang, dialect) = (self.lang, self.dialect);
        let grammar_drops = |capture: Capture, node: Node<'_>| {
            dialect == Dialect::Aider && aider_grammar_drops(lang, capture, node)
        };
        let found = self.tag_groups(compiled, root, &grammar_drops);
        let (groups, incomplete) = (found.groups, found.incomplete);
        let mut tags = Vec::new();
        let mut saw_def = false;
        let mut saw_ref = false;
        for (capture, nodes) in groups {
            if dialect == Dialect::Aider && aider_never_matches(lang, capture) {
                continue;
            }
            match capture.kind {
                TagKind::Def => saw_def = true,
                TagKind::Ref => saw_ref = true,
            }
            for node in nodes {
                let line = row_to_line(node.start_position().row);
                let name = node_text(node, self.bytes);
                tags.push(self.tag(line, name, capture.kind, capture.sub_kind));
            }
        }
        if dialect == Dialect::Aider && lang == Language::Python {
            saw_def |= self.push_aider_python_constants(root, &mut tags);
        }
        let mut cut_short = incomplete.then_some(CutShort::Query);
        if saw_def
            && !saw_ref
            && cut_short.is_none()
            && !self.push_fallback_refs(compiled, root, source, &mut tags)
        {
            cut_short = Some(CutShort::Query);
        }
        if found.too_deep {
            cut_short = cut_short.or(Some(CutShort::Depth));
        }
        Extraction { tags, cut_short }
    }

    /// The tag query's captures grouped by name: found by the language's tag walk where
    /// it has one (`tag_walk`, bounded by the start-depth bound), else by the query.
    fn tag_groups<'t>(
        &self,
        compiled: &'static Compiled,
        root: Node<'t>,
        drop: &dyn Fn(Capture, Node<'t>) -> bool,
    ) -> FoundTags<'t> {
        let bounds = self.bounds;
        let Some(walk) = &compiled.tag_walk else {
            return self.queried_groups(compiled, root, drop);
        };
        let max_depth = bounds.max_start_depth.unwrap_or(u32::MAX);
        let walked = walk.captures(root, self.bytes, max_depth, bounds.deadline);
        if walked.tied && walked.complete {
            // The query finds the same depth bound; only the walk looked for it.
            let found = self.queried_groups(compiled, root, drop);
            let too_deep = walked.too_deep;
            return FoundTags { too_deep, ..found };
        }
        let mut groups = Groups::new(walk.capture_count());
        for (index, node) in walked.found {
            groups.add(index, walk.role(index), node, drop);
        }
        if self.dialect == Dialect::Aider {
            groups.repeat_last_nodes();
        }
        FoundTags {
            groups: groups.groups,
            incomplete: !walked.complete,
            too_deep: walked.too_deep,
        }
    }

    /// The tag query's captures grouped by name, found by the query (compiled on first
    /// use where a walk stands in for it; none if it does not compile).
    fn queried_groups<'t>(
        &self,
        compiled: &'static Compiled,
        root: Node<'t>,
        drop: &dyn Fn(Capture, Node<'t>) -> bool,
    ) -> FoundTags<'t> {
        let Ok(query) = compiled.tags.get() else {
            return FoundTags::default();
        };
        let (groups, incomplete) =
            captures_by_name(query, root, self.bytes, self.dialect, drop, self.bounds);
        FoundTags {
            groups,
            incomplete,
            too_deep: false,
        }
    }

    /// Pushes what Aider's python constant pattern captures; whether there was any.
    fn push_aider_python_constants(&self, root: Node<'_>, tags: &mut Vec<Tag>) -> bool {
        let constants = aider_python_constants(root);
        // T1: Aider repeats the last node of the capture name.
        for node in constants.iter().chain(constants.last()) {
            let line = row_to_line(node.start_position().row);
            tags.push(self.tag(line, node_text(*node, self.bytes), TagKind::Def, "constant"));
        }
        !constants.is_empty()
    }

    /// Pushes the references of a file with definitions and none: pygments' names replayed
    /// (aider dialect, where it can be) or the identifier query's. False when time ran out.
    fn push_fallback_refs(
        &self,
        compiled: &'static Compiled,
        root: Node<'_>,
        source: &str,
        tags: &mut Vec<Tag>,
    ) -> bool {
        let replayed = match self.dialect {
            Dialect::Aider => self
                .fname
                .file_name()
                .and_then(|base| base.to_str())
                .and_then(|base| crate::pygments::names_before(base, source, self.bounds.deadline)),
            Dialect::Default => None,
        };
        if self.bounds.deadline.expired() {
            return false;
        }
        if let Some(names) = replayed {
            tags.extend(
                names
                    .into_iter()
                    .map(|name| self.tag(-1, name, TagKind::Ref, "identifier")),
            );
            return true;
        }
        if let Some(walk) = &compiled.ident_walk {
            let (found, complete) = walk.captures(
                root,
                self.bytes,
                self.bounds.max_start_depth,
                self.bounds.deadline,
            );
            tags.extend(found.into_iter().map(|(capture, node)| {
                let name = node_text(node, self.bytes);
                self.tag(-1, name, TagKind::Ref, capture.sub_kind)
            }));
            return complete;
        }
        let idents = match compiled.idents.as_ref().map(LazyQuery::get) {
            None => return true,
            Some(Ok(idents)) => idents,
            Some(Err(err)) => {
                tracing::warn!("{err}");
                return true;
            }
        };
        let no_drops = |_: Capture, _: Node<'_>| false;
        let (groups, incomplete) = captures_by_name(
            idents,
            root,
            self.bytes,
            Dialect::Default,
            &no_drops,
            self.bounds,
        );
        for (capture, nodes) in groups {
            if capture.kind != TagKind::Ref {
                continue;
            }
            for node in nodes {
                let name = node_text(node, self.bytes);
                tags.push(self.tag(-1, name, TagKind::Ref, capture.sub_kind));
            }
        }
        !incomplete
    }
}

/// Captures of Aider's queries that match other nodes under Aider 0.86.2 because its grammar
/// builds a different tree.
///
/// * python `name.definition.constant`: the pattern is
///   `(module (expression_statement (assignment left: (identifier))))`. The pack's python
///   grammar (tree-sitter-language-pack 0.13) has no `expression_statement` node between
///   `module` and a top-level assignment, so the pattern matches only the second assignment
///   of a chain, `a = b = c` tagging `b` (measured on Django's `trans_null.py`), never `a`;
///   [`aider_python_constants`] finds those instead.
fn aider_never_matches(lang: Language, capture: Capture) -> bool {
    matches!(
        (lang, capture.kind, capture.sub_kind),
        (Language::Python, TagKind::Def, "constant")
    )
}

/// The identifiers Aider 0.86.2's python constant pattern captures under its grammar: the
/// left side of the second assignment of each top-level chained assignment (`b` in
/// `a = b = c`), in source order. Only the module's direct children are visited.
fn aider_python_constants(root: Node<'_>) -> Vec<Node<'_>> {
    let mut found = Vec::new();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        if statement.kind() != "expression_statement" || statement.named_child_count() != 1 {
            continue;
        }
        let Some(outer) = statement
            .named_child(0)
            .filter(|n| n.kind() == "assignment")
        else {
            continue;
        };
        let mut inner_cursor = outer.walk();
        for inner in outer.named_children(&mut inner_cursor) {
            if inner.kind() == "assignment"
                && let Some(left) = inner
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
            {
                found.push(left);
            }
        }
    }
    found
}

/// Definitions our grammar finds where the grammar of Aider 0.86.2 (tree-sitter-language-pack
/// 0.13) builds a different tree, so that Aider never sees them.
///
/// * cpp: a function definition with no return type, outside a class body, whose
///   parameters could be call arguments (none, or bare type names) and whose body is
///   `= default` or `= 0`: `A::A() = default;`, `WSTR_LENGTH(self) = 0;`. The pack's
///   tree-sitter-cpp reads these as expression statements (a call assigned `default` or
///   `0`), tree-sitter-cpp 0.23 as a defaulted or pure virtual function (docs/parity.md T17).
fn aider_grammar_drops(lang: Language, capture: Capture, node: Node<'_>) -> bool {
    if lang != Language::Cpp || capture.kind != TagKind::Def {
        return false;
    }
    let mut declarator = node.parent();
    if declarator.is_some_and(|d| d.kind() == "qualified_identifier") {
        declarator = declarator.and_then(|d| d.parent());
    }
    let Some(function) = declarator.filter(|d| d.kind() == "function_declarator") else {
        return false;
    };
    let Some(definition) = function.parent() else {
        return false;
    };
    if definition.kind() != "function_definition"
        || definition.child_by_field_name("type").is_some()
        || definition
            .parent()
            .is_some_and(|p| p.kind() == "field_declaration_list")
    {
        return false;
    }
    let expression_like_params = function.child_by_field_name("parameters").is_some_and(|p| {
        let mut cursor = p.walk();
        p.named_children(&mut cursor).all(|param| {
            param.kind() == "parameter_declaration"
                && param.named_child_count() == 1
                && param
                    .child_by_field_name("type")
                    .is_some_and(|t| t.kind() == "type_identifier")
        })
    });
    let mut cursor = definition.walk();
    let assigned = definition
        .children(&mut cursor)
        .any(|c| matches!(c.kind(), "default_method_clause" | "pure_virtual_clause"));
    expression_like_params && assigned
}

/// What parsing a file within its time gave.
enum Parsed {
    Tree(Tree),
    /// The grammar could not be loaded, or tree-sitter gave up for another reason.
    Failed,
    /// The deadline passed first.
    OutOfTime,
}

fn parse_before(lang: Language, source: &str, deadline: Deadline) -> Parsed {
    if deadline.expired() {
        return Parsed::OutOfTime;
    }
    static SERIAL: Mutex<()> = Mutex::new(());
    let _one_at_a_time = lang
        .spec()
        .parse_serially
        .then(|| SERIAL.lock().unwrap_or_else(PoisonError::into_inner));
    PARSERS.with(|cell| {
        let mut parsers = cell.borrow_mut();
        let parser = match parsers.entry(lang) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let mut parser = Parser::new();
                if let Err(err) = parser.set_language(&registry::grammar(lang)) {
                    tracing::warn!("cannot load the {lang} grammar: {err}");
                    return Parsed::Failed;
                }
                e.insert(parser)
            }
        };
        let mut out_of_time = |_: &ParseState| deadline.expired();
        let options = ParseOptions::new().progress_callback(&mut out_of_time);
        let mut read = |at: usize, _: Point| read_chunk(source, at, deadline);
        match parser.parse_with_options(&mut read, None, Some(options)) {
            Some(_) if deadline.expired() => Parsed::OutOfTime,
            Some(tree) => Parsed::Tree(tree),
            None => {
                // A cancelled parse leaves state behind for resuming; we never resume.
                parser.reset();
                if deadline.expired() {
                    Parsed::OutOfTime
                } else {
                    Parsed::Failed
                }
            }
        }
    })
}

/// Bytes handed to tree-sitter's lexer per read. Some lexers loop over a run of error
/// characters without reaching the parser's progress check (tree-sitter 0.25: a Dart file
/// of 30,000 `é` took 96 s per parse); the lexer asks for text again each time it crosses
/// a chunk, so small chunks give the deadline a place to act, and bound the work between
/// two checks by about `READ_CHUNK`² steps.
const READ_CHUNK: usize = 4096;

/// The text from byte `at`, at most [`READ_CHUNK`] bytes cut at a character boundary; none
/// (end of input) once `deadline` has passed, so that a lexer stuck in a loop ends.
fn read_chunk(source: &str, at: usize, deadline: Deadline) -> &[u8] {
    if at >= source.len() || deadline.expired() {
        return &[];
    }
    let mut end = (at + READ_CHUNK).min(source.len());
    while !source.is_char_boundary(end) {
        end += 1;
    }
    &source.as_bytes()[at..end]
}

/// Parses `source` as `lang` within `limits`: `None` when the grammar cannot be loaded or
/// time runs out (for callers that parse again what extraction parsed, such as rendering).
pub fn parse_within(lang: Language, source: &str, limits: &Limits) -> Option<Tree> {
    match parse_before(lang, source, limits.deadline()) {
        Parsed::Tree(tree) => Some(tree),
        Parsed::Failed | Parsed::OutOfTime => None,
    }
}

/// Captures taken between two looks at the clock in [`captures_by_name`].
const CAPTURES_PER_CLOCK_CHECK: u32 = 64;

/// The captures of `query` that make tags, grouped by capture (that is, by capture name) in
/// order of first appearance, each node once per capture, in source order. (py-tree-sitter's `captures()` returns each group in an
/// order that changes from run to run, so Aider's order cannot be reproduced; source order
/// is the deterministic stand-in.) In [`Dialect::Aider`], each group ends with a second copy of its last
/// node, as Aider 0.86.2's capture loop appends one (behaviour.md §3.5 documents the bug). Which
/// node Aider repeats depends on that run-to-run order; we repeat the last in source order.
/// The flag is set when the groups are incomplete: the deadline stopped the query (the
/// groups hold what came before), or a match had more captures than tree-sitter's cursor
/// can count ([`WrapWatch`]: the groups lack that match's captures past the count).
#[allow(unsafe_code)] // the raw cursor that the deadline callback winds down
fn captures_by_name<'t>(
    query: &'static TagQuery,
    root: Node<'t>,
    source: &[u8],
    dialect: Dialect,
    drop: &dyn Fn(Capture, Node<'t>) -> bool,
    bounds: QueryBounds,
) -> (Vec<(Capture, Vec<Node<'t>>)>, bool) {
    let deadline = bounds.deadline;
    let mut groups = Groups::new(query.captures.len());
    let raw = QueryCursor::new().into_raw();
    // SAFETY: `raw` comes from `into_raw` just above; `cursor` owns it from here on and
    // outlives every use of `raw` (the callback below, which lives no longer than it).
    let mut cursor = unsafe { QueryCursor::from_raw(raw) };
    cursor.set_max_start_depth(bounds.max_start_depth);
    let out_of_time = Cell::new(false);
    // Whether the deadline has passed; the first time it has, the cursor is told to stop.
    let expired = || {
        let expired = deadline.expired();
        if expired && !out_of_time.replace(true) {
            // SAFETY: `raw` is the live cursor (see above), and tree-sitter is between
            // steps whenever this runs (in its progress callback, or in the binding's
            // predicate check between two `next_capture` calls).
            unsafe { stop_cursor(raw, query.raw.0, root) };
        }
        expired
    };
    let mut check = |_: &QueryCursorState| expired();
    let options = QueryCursorOptions::new().progress_callback(&mut check);
    // The binding checks text predicates (`#eq?`) itself and, when one fails, asks for the
    // next capture without returning here: a query whose predicates fail thousands of
    // times (a fuzzed HCL file, 9,600 attributes in one block) would spin there past any
    // deadline. Every predicate reads node text through this provider, which watches the
    // clock too.
    let text = |node: Node<'_>| {
        expired();
        std::iter::once(&source[node.byte_range()])
    };
    let mut captures = cursor.captures_with_options(&query.query, root, text, options);
    let mut taken = 0u32;
    let mut wraps = WrapWatch::default();
    while let Some((m, index)) = captures.next() {
        // Each capture taken can cost a scan of every pending match (tree-sitter's
        // `next_capture`), which its progress callback does not see: after the deadline,
        // stop taking them rather than drain thousands quadratically.
        taken = taken.wrapping_add(1);
        if taken.is_multiple_of(CAPTURES_PER_CLOCK_CHECK) && deadline.expired() {
            out_of_time.set(true);
            break;
        }
        if wraps.wrapped(m.id(), *index, m.captures.len()) {
            // The cursor would deliver this match's first captures again, for ever: drop
            // the match (its captures past the count are lost) and go on with the others.
            m.remove();
            continue;
        }
        let capture = m.captures[*index];
        if let Some(role) = query.captures[capture.index as usize] {
            groups.add(capture.index, role, capture.node, drop);
        }
    }
    if dialect == Dialect::Aider {
        groups.repeat_last_nodes();
    }
    (groups.groups, out_of_time.get() || wraps.seen_any)
}

/// The tag query's captures of one file, grouped by name.
#[derive(Default)]
struct FoundTags<'t> {
    /// As [`captures_by_name`] gives them.
    groups: Vec<(Capture, Vec<Node<'t>>)>,
    /// Whether the groups lack captures (see [`captures_by_name`]).
    incomplete: bool,
    /// Whether a tag walk found the tree deeper than [`QueryBounds::max_start_depth`].
    too_deep: bool,
}

/// The most captures of one match tree-sitter's query cursor can count as consumed: it
/// keeps the count in 12 bits (`consumed_capture_count`, tree-sitter 0.25's `query.c`).
const MAX_CONSUMED_CAPTURES: usize = (1 << 12) - 1;

/// Watches the capture loop for tree-sitter's consumed-capture wrap. A match of more than
/// [`MAX_CONSUMED_CAPTURES`] captures (a fuzzed HCL `locals` block of 9,600 attributes, whose
/// `(attribute …)+` pattern captures two nodes each) makes the cursor's count wrap to 0
/// after the 4,096th capture: it delivers the same match again from its first capture, for
/// ever, and no other match after it. That shows as one match id delivered with its
/// capture index going back. Only matches that large are watched: smaller ones cannot
/// wrap. (A quantifier's copy of a match keeps its id and its count, so it may repeat an
/// index, which is not a wrap; were a copy of a match that large to go back, it would be
/// dropped too: tags lost, never time.)
#[derive(Default)]
struct WrapWatch {
    /// Per watched match id, the capture index last delivered.
    last_index: HashMap<u32, usize>,
    /// Whether any match wrapped.
    seen_any: bool,
}

impl WrapWatch {
    /// Whether delivering capture `index` of match `id` (of `captures` captures) is the
    /// cursor wrapping; notes the delivery otherwise.
    fn wrapped(&mut self, id: u32, index: usize, captures: usize) -> bool {
        if captures <= MAX_CONSUMED_CAPTURES {
            return false;
        }
        let wrapped = self
            .last_index
            .insert(id, index)
            .is_some_and(|last| index < last);
        if wrapped {
            self.last_index.remove(&id);
            self.seen_any = true;
            tracing::debug!(
                "a query match of {captures} captures wrapped tree-sitter's capture count; \
                 those after the first {} are left out",
                MAX_CONSUMED_CAPTURES + 1
            );
        }
        wrapped
    }
}

/// Stops the query cursor `raw` (running `query` on `root`): it is reset, which drops
/// every match under way and every capture it holds, and may start no match, so the
/// capture iterator returns at once. (The progress callback's `true` only pauses
/// tree-sitter's capture iterator, which goes on walking while finished matches wait for
/// unfinished ones, each step a scan of every waiting match: a fuzzed Julia file ran 3 s
/// past a 1 s limit, 10,000 nested Elm `let`s 5 s. Making it skip what it holds instead,
/// by moving the cursor's range, loops forever on a match of more than 4,095 captures,
/// whose 12-bit consumed-capture count wraps: a fuzzed HCL block of 9,600 attributes.)
///
/// # Safety
/// `raw` is a live query cursor that nothing else is using at the time, between two steps
/// of tree-sitter's (its progress callback returns right after), and `query` the live
/// query it runs.
#[allow(unsafe_code)]
unsafe fn stop_cursor(
    raw: *mut tree_sitter::ffi::TSQueryCursor,
    query: *const tree_sitter::ffi::TSQuery,
    root: Node<'_>,
) {
    // SAFETY: the caller's promise; `exec` only clears the cursor's lists and rewinds it.
    unsafe {
        tree_sitter::ffi::ts_query_cursor_exec(raw, query, root.into_raw());
        tree_sitter::ffi::ts_query_cursor_set_max_start_depth(raw, 0);
    }
}

/// Captured nodes grouped by capture, groups in order of first appearance, each node once
/// per capture.
struct Groups<'t> {
    /// Per capture index, its group's position in `groups`.
    group_of: Vec<Option<usize>>,
    groups: Vec<(Capture, Vec<Node<'t>>)>,
    /// (capture index, node id) of every node already taken.
    seen: HashSet<(u32, usize)>,
}

impl<'t> Groups<'t> {
    fn new(captures: usize) -> Self {
        Groups {
            group_of: vec![None; captures],
            groups: Vec::new(),
            seen: HashSet::new(),
        }
    }

    /// Adds `node`, captured by capture `index` (which makes tags as `role`), unless it was
    /// added before or `drop` drops it.
    fn add(
        &mut self,
        index: u32,
        role: Capture,
        node: Node<'t>,
        drop: &dyn Fn(Capture, Node<'t>) -> bool,
    ) {
        if !self.seen.insert((index, node.id())) || drop(role, node) {
            return;
        }
        let groups = &mut self.groups;
        let group = *self.group_of[index as usize].get_or_insert_with(|| {
            groups.push((role, Vec::new()));
            groups.len() - 1
        });
        groups[group].1.push(node);
    }

    /// Aider 0.86.2's extra copy of each group's last node (behaviour.md §3.5).
    fn repeat_last_nodes(&mut self) {
        for (_, nodes) in &mut self.groups {
            if let Some(&last) = nodes.last() {
                nodes.push(last);
            }
        }
    }
}

fn node_text(node: Node<'_>, source: &[u8]) -> String {
    String::from_utf8_lossy(&source[node.byte_range()]).into_owned()
}

fn row_to_line(row: usize) -> i32 {
    i32::try_from(row).map_or(i32::MAX, |r| r.saturating_add(1))
}

#[cfg(test)]
#[allow(clippy::print_stderr)] // the corpus tests print what they covered
mod tests {
    use super::*;

    /// Issue 14: for every file under `dir` whose language has an identifier walk, the
    /// walk finds exactly the nodes the identifier query captures, in the same order.
    /// Returns the languages that walked and the files compared.
    fn walk_agrees_with_query_under(dir: &Path) -> (HashSet<Language>, usize) {
        let (mut langs, mut files) = (HashSet::new(), 0);
        for path in files_under(dir) {
            if compare_walk_and_query(&path) {
                langs.insert(Language::for_path(&path, Dialect::Default).unwrap());
                files += 1;
            }
        }
        (langs, files)
    }

    /// Every file under `dir`, at any depth.
    fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
        let (mut files, mut stack) = (Vec::new(), vec![dir.to_path_buf()]);
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).unwrap().flatten() {
                let is_dir = entry.file_type().unwrap().is_dir();
                let list = if is_dir { &mut stack } else { &mut files };
                list.push(entry.path());
            }
        }
        files
    }

    /// Whether `path` has a walk to compare (and then, that it agrees).
    fn compare_walk_and_query(path: &Path) -> bool {
        let Some(lang) = Language::for_path(path, Dialect::Default) else {
            return false;
        };
        let compiled = registry::compiled(lang).unwrap();
        let (Some(walk), Some(query)) = (&compiled.ident_walk, &compiled.idents) else {
            return false;
        };
        let query = query.get().unwrap();
        let Ok(Some(source)) = read_source(path) else {
            return false;
        };
        let limits = Limits::default();
        let Some(tree) = parse_within(lang, &source, &limits) else {
            return false;
        };
        let (root, bytes) = (tree.root_node(), source.as_bytes());
        let bounds = QueryBounds {
            deadline: limits.deadline(),
            max_start_depth: None,
        };
        let no_drops = |_: Capture, _: Node<'_>| false;
        let (groups, _) = captures_by_name(query, root, bytes, Dialect::Default, &no_drops, bounds);
        let from_query: Vec<(&str, std::ops::Range<usize>)> = groups
            .into_iter()
            .flat_map(|(c, nodes)| nodes.into_iter().map(move |n| (c.sub_kind, n.byte_range())))
            .collect();
        let (found, complete) = walk.captures(root, bytes, None, limits.deadline());
        assert!(complete);
        let from_walk: Vec<(&str, std::ops::Range<usize>)> = found
            .into_iter()
            .map(|(c, n)| (c.sub_kind, n.byte_range()))
            .collect();
        assert_eq!(from_walk, from_query, "{}", path.display());
        true
    }

    #[test]
    fn the_identifier_walk_finds_what_the_query_finds_on_every_fixture() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let (langs, files) = walk_agrees_with_query_under(&fixtures);
        assert!(langs.contains(&Language::C), "{langs:?}");
        assert!(files >= 20, "{files} files");
        eprintln!("{files} files agree ({langs:?})");
    }

    /// The same on any directory: `REPO_MAPPER_WALK_CHECK=DIR cargo test --release -p
    /// repo-mapper-tags walk_agrees_on -- --ignored` (run on the Linux tree for issue 14).
    #[test]
    #[ignore]
    fn walk_agrees_on_a_directory_from_the_environment() {
        let dir = std::env::var_os("REPO_MAPPER_WALK_CHECK").expect("REPO_MAPPER_WALK_CHECK");
        let (langs, files) = walk_agrees_with_query_under(Path::new(&dir));
        eprintln!("{files} files agree ({langs:?})");
    }

    /// The tag query's captures of `source` (a file in `lang`), as (sub-kind, byte range)
    /// in the query's order: by the query when `walk` is false, else by the tag walk.
    fn query_tags(
        lang: Language,
        source: &str,
        walk: bool,
    ) -> Vec<(&'static str, std::ops::Range<usize>)> {
        let compiled = registry::compiled(lang).unwrap();
        let limits = Limits::default();
        let tree = parse_within(lang, source, &limits).unwrap();
        let bounds = QueryBounds {
            deadline: limits.deadline(),
            max_start_depth: None,
        };
        let no_drops = |_: Capture, _: Node<'_>| false;
        let (root, bytes) = (tree.root_node(), source.as_bytes());
        let (groups, incomplete) = if walk {
            let file = FileRun {
                lang,
                dialect: Dialect::Default,
                bytes,
                rel_fname: Arc::from("a"),
                fname: Arc::from(Path::new("a")),
                bounds,
            };
            let found = file.tag_groups(compiled, root, &no_drops);
            (found.groups, found.incomplete)
        } else {
            let query = compiled.tags.get().unwrap();
            captures_by_name(query, root, bytes, Dialect::Default, &no_drops, bounds)
        };
        assert!(!incomplete);
        groups
            .into_iter()
            .flat_map(|(c, nodes)| nodes.into_iter().map(move |n| (c.sub_kind, n.byte_range())))
            .collect()
    }

    /// Whether the tag walk leaves `source` to the query: two of its captures start at
    /// one byte.
    fn walk_ties(lang: Language, source: &str) -> bool {
        let walk = registry::compiled(lang).unwrap().tag_walk.as_ref().unwrap();
        let limits = Limits::default();
        let tree = parse_within(lang, source, &limits).unwrap();
        let walked = walk.captures(
            tree.root_node(),
            source.as_bytes(),
            u32::MAX,
            limits.deadline(),
        );
        walked.tied
    }

    /// The languages whose tag query has a walk.
    const WALKED: [Language; 3] = [Language::Python, Language::JavaScript, Language::C];

    /// Whether the files under `dir` in a language with a tag walk get the same captures
    /// from walk and query (asserted); per language, how many were compared and how many
    /// of them the walk left to the query (ties).
    fn tag_walk_agrees_with_query_under(dir: &Path) -> HashMap<Language, (usize, usize)> {
        let mut files: HashMap<Language, (usize, usize)> = HashMap::new();
        for path in files_under(dir) {
            if let Some(lang) = Language::for_path(&path, Dialect::Default)
                && WALKED.contains(&lang)
                && let Ok(Some(source)) = read_source(&path)
            {
                let walked = query_tags(lang, &source, true);
                assert_eq!(
                    walked,
                    query_tags(lang, &source, false),
                    "{}",
                    path.display()
                );
                let counts = files.entry(lang).or_default();
                counts.0 += 1;
                counts.1 += usize::from(walk_ties(lang, &source));
            }
        }
        files
    }

    #[test]
    fn python_javascript_and_c_extraction_walk_the_tree() {
        for lang in WALKED {
            let compiled = registry::compiled(lang).unwrap();
            let source = registry::tags_query_source(lang);
            assert!(
                compiled.tag_walk.is_some(),
                "{} changed: prove the walk again (tag_walk.rs), then update its PROVEN_* \
                 fingerprint to {:#x}",
                source.path,
                crate::fnv1a(crate::FNV_OFFSET, source.text.bytes())
            );
        }
    }

    #[test]
    fn the_tag_walk_finds_what_the_query_finds_on_every_fixture() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let files = tag_walk_agrees_with_query_under(&fixtures);
        eprintln!("files that agree: {files:?}");
        assert!(files[&Language::Python].0 >= 10, "{files:?}");
        assert!(files[&Language::JavaScript].0 >= 3, "{files:?}");
        assert_eq!(files[&Language::JavaScript].1, 0, "{files:?}");
        assert!(files[&Language::C].0 >= 3, "{files:?}");
        assert_eq!(files[&Language::C].1, 0, "{files:?}");
    }

    /// The same on any directory: `REPO_MAPPER_TAG_WALK_CHECK=DIR cargo test --release -p
    /// repo-mapper-tags tag_walk_agrees_on -- --ignored` (run on Django 5.2 for issue 26).
    #[test]
    #[ignore]
    fn tag_walk_agrees_on_a_directory_from_the_environment() {
        let dir =
            std::env::var_os("REPO_MAPPER_TAG_WALK_CHECK").expect("REPO_MAPPER_TAG_WALK_CHECK");
        let files = tag_walk_agrees_with_query_under(Path::new(&dir));
        eprintln!("files that agree: {files:?}");
    }

    #[test]
    fn the_tag_walk_keeps_the_query_order_where_a_call_holds_an_earlier_call() {
        // `bar`'s call is met first, but `foo` (inside it) starts before `bar`; groups
        // come in order of first appearance, each in source order.
        let src = "x = foo(1).bar(2)\nclass A(B):\n    def f(self): g(h(i).j())\n";
        let walked = query_tags(Language::Python, src, true);
        assert_eq!(walked, query_tags(Language::Python, src, false));
        let names: Vec<&str> = walked.iter().map(|(_, r)| &src[r.clone()]).collect();
        assert_eq!(names, ["x", "foo", "bar", "g", "h", "j", "A", "f"]);
    }

    #[test]
    fn the_javascript_walk_keeps_the_predicates_and_the_comments_patterns() {
        let src = "// a\n/* b */\nclass A { constructor() {} m() { require(x); r(); } }\n\
                   const f = () => 1, g = 2, h = function () {};\n\
                   o.p = function () {}; q = () => 0; ({ k: () => 1, l: 2 });\n\
                   new a.B(); s.t(); function* u() {}\n";
        let walked = query_tags(Language::JavaScript, src, true);
        assert_eq!(walked, query_tags(Language::JavaScript, src, false));
        let names: Vec<&str> = walked.iter().map(|(_, r)| &src[r.clone()]).collect();
        assert!(!walk_ties(Language::JavaScript, src));
        assert_eq!(
            names,
            ["A", "m", "r", "t", "f", "h", "p", "q", "k", "u", "a.B"]
        );
    }

    #[test]
    fn captures_at_one_byte_are_left_to_the_query() {
        // `new`'s match ends at its constructor `async`t`?.\nfunction`, before the call
        // `async`t`` below it is met: the query gives the class first, though the call's
        // pattern comes first.
        let src = "=new async `t`?.\nfunction ";
        assert!(walk_ties(Language::JavaScript, src));
        let tags = query_tags(Language::JavaScript, src, true);
        assert_eq!(tags, query_tags(Language::JavaScript, src, false));
        assert_eq!(tags, [("class", 5..25), ("call", 5..10)]);
    }

    /// Up to 60 of `tokens` in any order: broken syntax, error recovery and missing
    /// nodes included.
    fn soup(tokens: &[&'static str]) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let token = prop::sample::select(tokens.to_vec());
        prop::collection::vec(token, 0..60).prop_map(|tokens| tokens.concat())
    }

    /// Python-ish tokens.
    const PYTHON_TOKENS: &[&str] = &[
        "a", "b", "f", "x.y", "=", "==", "(", ")", ":", ",", ".", "\n", "\n    ", "def ", "class ",
        "return ", "lambda ", "if ", "else", "[", "]", "@d\n", "*", "1", "'s'", "#c\n", "async ",
        "await ", "print ", "match ", "type ", "\\\n", "->",
    ];

    /// JavaScript-ish tokens, every kind the walk looks for within reach.
    const JAVASCRIPT_TOKENS: &[&str] = &[
        "a",
        "b",
        "require",
        "constructor",
        ".",
        "x.y",
        "=",
        "=>",
        "(",
        ")",
        "{",
        "}",
        ":",
        ",",
        ";",
        "\n",
        "function ",
        "function* ",
        "class ",
        "new ",
        "const ",
        "let ",
        "var ",
        "return ",
        "async ",
        "static ",
        "get ",
        "#p",
        "[",
        "]",
        "1",
        "'s'",
        "`t`",
        "// c\n",
        "/* d */",
        "*",
        "?.",
        "extends ",
    ];

    /// C-ish tokens: declarations, typedefs, structs, unions and enums, broken or not.
    const C_TOKENS: &[&str] = &[
        "a",
        "b",
        "t",
        "int ",
        "struct ",
        "union ",
        "enum ",
        "typedef ",
        "static ",
        "*",
        "(",
        ")",
        "{",
        "}",
        ";",
        ",",
        "=",
        "1",
        "[",
        "]",
        "\n",
        "#define X\n",
        "#if A\n",
        "#endif\n",
        "void ",
        "const ",
        "...",
        ":",
        "// c\n",
        "f(x)",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        #[test]
        fn the_c_walk_finds_what_the_query_finds_in_any_token_soup(src in soup(C_TOKENS)) {
            proptest::prop_assert_eq!(
                query_tags(Language::C, &src, true),
                query_tags(Language::C, &src, false)
            );
        }

        #[test]
        fn the_tag_walk_finds_what_the_query_finds_in_any_token_soup(src in soup(PYTHON_TOKENS)) {
            proptest::prop_assert_eq!(
                query_tags(Language::Python, &src, true),
                query_tags(Language::Python, &src, false)
            );
        }

        #[test]
        fn the_javascript_walk_finds_what_the_query_finds_in_any_token_soup(
            src in soup(JAVASCRIPT_TOKENS)
        ) {
            proptest::prop_assert_eq!(
                query_tags(Language::JavaScript, &src, true),
                query_tags(Language::JavaScript, &src, false)
            );
        }
    }

    /// (line, name) of the tags of `src` that `keep` selects.
    fn lines_names(
        lang: Language,
        src: &str,
        dialect: Dialect,
        keep: impl Fn(&Tag) -> bool,
    ) -> Vec<(i32, String)> {
        extract_source(
            lang,
            src,
            Arc::from("a"),
            Arc::from(Path::new("a")),
            dialect,
        )
        .into_iter()
        .filter(|t| keep(t))
        .map(|t| (t.line, t.name))
        .collect()
    }

    #[test]
    fn aider_drops_what_its_cpp_grammar_reads_as_an_expression() {
        let src = "class A {\n  A() = default;\n};\nA::A() = default;\nint A::g() = default;\nA::A(int x) = default;\nvoid f() {\n#if X\n  LEN(self) = 0;\n#endif\n}\n";
        let defs = |dialect| {
            lines_names(Language::Cpp, src, dialect, |t| {
                t.kind == TagKind::Def && t.sub_kind != "class" && t.name != "f"
            })
        };
        let expect = |v: &[(i32, &str)]| -> Vec<(i32, String)> {
            v.iter().map(|&(l, n)| (l, n.to_owned())).collect()
        };
        // Aider's grammar reads lines 4 and 9 as assignments: no definitions there, and the
        // repeated last method (T1) is line 6's.
        assert_eq!(
            defs(Dialect::Aider),
            expect(&[(2, "A"), (5, "g"), (6, "A"), (6, "A")])
        );
        assert_eq!(
            defs(Dialect::Default),
            expect(&[(2, "A"), (9, "LEN"), (4, "A"), (5, "g"), (6, "A")])
        );
    }

    #[test]
    fn aider_python_constants_follow_its_grammar() {
        let src = "a = 1\nb = c = d = 2\ndef f():\n    x = y = 3\n";
        let consts =
            |dialect| lines_names(Language::Python, src, dialect, |t| t.sub_kind == "constant");
        // Aider's python grammar matches only the second assignment of a top-level chain,
        // and repeats the last capture (T1).
        assert_eq!(
            consts(Dialect::Aider),
            [(2, "c".to_owned()), (2, "c".to_owned())]
        );
        assert_eq!(
            consts(Dialect::Default),
            [(1, "a".to_owned()), (2, "b".to_owned())]
        );
    }

    /// Regression (found in issue 14's session, 1 run in 3 of `tests/fixtures.rs`):
    /// tree-sitter-properties keeps its scanner state in a C global, so `.properties` files
    /// parsed on several threads at once spun until the deadline and came out empty.
    #[test]
    fn properties_files_parse_on_many_threads_at_once() {
        let fixture = "../../fixtures/languages/properties/app.properties";
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(fixture);
        let src = std::fs::read_to_string(path).unwrap();
        let limits = Limits::new(std::time::Duration::from_secs(30));
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..50 {
                        let (rel, abs) = (Arc::from("a"), Arc::from(Path::new("/a")));
                        let out = extract_source_within(
                            Language::Properties,
                            &src,
                            rel,
                            abs,
                            Dialect::Default,
                            &limits,
                        );
                        assert!(out.cut_short.is_none() && !out.tags.is_empty());
                    }
                });
            }
        });
    }
}
