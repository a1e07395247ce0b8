//! Aider's `to_tree` and `render_tree`, with their two caches.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use rayon::prelude::*;

use repo_mapper_tags::{
    Dialect, FileStamp, Language, Limits, Tag, normalize_newlines, read_source,
};

use crate::context::{Headers, TreeContext, render_language};
use crate::escape::escape_control;
use crate::scopes::{ScopeCache, ScopeKey, Scopes};
use crate::text::{split_lines, truncate_chars};

/// Aider's line cut in `to_tree` (behaviour.md §14 `max_line_length`).
pub const DEFAULT_MAX_LINE_LENGTH: usize = 100;

/// One entry of the ranked list `to_tree` renders: a definition, or a file shown by name
/// only (Aider's bare `(rel_fname,)` tuple).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapItem<'a> {
    /// A definition tag: its file is shown with the tag's line in context.
    Tag(&'a Tag),
    /// A file without tags, shown by its path relative to the root.
    File(&'a str),
}

impl<'a> MapItem<'a> {
    /// The path relative to the root.
    pub fn rel_fname(&self) -> &'a str {
        match self {
            MapItem::Tag(tag) => &tag.rel_fname,
            MapItem::File(rel_fname) => rel_fname,
        }
    }

    /// The order Python gives Aider's tuples: `Tag`s as `(rel_fname, fname, line, name,
    /// kind)`, bare files as `(rel_fname,)`, so a bare file sorts before any tag of the same
    /// `rel_fname`. Strings compare by code point (UTF-8 bytes; paths by their bytes).
    pub fn aider_cmp(&self, other: &MapItem<'_>) -> Ordering {
        self.rel_fname()
            .cmp(other.rel_fname())
            .then_with(|| match (self, other) {
                (MapItem::File(_), MapItem::File(_)) => Ordering::Equal,
                (MapItem::File(_), MapItem::Tag(_)) => Ordering::Less,
                (MapItem::Tag(_), MapItem::File(_)) => Ordering::Greater,
                (MapItem::Tag(a), MapItem::Tag(b)) => path_bytes(&a.fname)
                    .cmp(path_bytes(&b.fname))
                    .then(a.line.cmp(&b.line))
                    .then_with(|| a.name.cmp(&b.name))
                    .then(a.kind.cmp(&b.kind)),
            })
    }
}

impl<'a> From<&'a Tag> for MapItem<'a> {
    fn from(tag: &'a Tag) -> Self {
        MapItem::Tag(tag)
    }
}

fn path_bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// The 0-based row of a tag's line, as Aider stores it: our lines are 1-based, Aider's
/// rows 0-based. Line −1 (references from the identifier fallback) stays −1, as Aider's
/// pygments references carry −1.
pub fn line_of_interest(tag_line: i32) -> i64 {
    let line = i64::from(tag_line);
    if line > 0 { line - 1 } else { line }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct RenderKey {
    rel_fname: Arc<str>,
    lois: Vec<i64>,
    stamp: Option<FileStamp>,
}

#[derive(Debug)]
struct CachedContext {
    /// The file's stamp when it was read.
    stamp: Option<FileStamp>,
    /// Whether the stamp had settled when the file was read; a racy stamp may hold
    /// through another write, so such a context serves only the map that read it.
    settled: bool,
    /// The [`Renderer::start_map`] generation that read it.
    read_in: u64,
    /// The [`Renderer::start_map`] generation that last used it.
    used: u64,
    /// `None`: the file could not be read ([`Dialect::Default`] renders it as `""`).
    context: Option<TreeContext>,
}

impl CachedContext {
    /// Whether it may serve the map of `generation` a file now stamped `stamp`.
    fn serves(&self, stamp: Option<FileStamp>, generation: u64) -> bool {
        self.stamp == stamp && (self.settled || self.read_in == generation)
    }
}

/// Renders ranked definitions as repo-map text: Aider 0.86.2's `to_tree` and
/// `render_tree`, with both of its caches (behaviour.md §9).
///
/// * The **render cache** maps `(rel_fname, sorted lines of interest, stamp)` to the
///   rendered text; clear it with [`Renderer::clear_render_cache`] at the start of each
///   uncached map computation (behaviour.md §9.2).
/// * The **context cache** keeps one [`TreeContext`] per `rel_fname`, replaced when the
///   file's [`FileStamp`] (size, mtime, ctime, inode) changes. Aider keeps it for the whole session; here
///   [`Renderer::start_map`] also drops the contexts the previous map did not use, so a
///   long session holds the files of at most two maps (of the last
///   [`Renderer::with_kept_maps`] maps and the current one; neither cache changes the output:
///   both are checked against the file's stamp, and a file read while its stamp was racy
///   is read again).
///
/// # Dialects
///
/// Both dialects share one code path. [`Dialect::Aider`] reproduces Aider byte for byte,
/// quirks included; [`Dialect::Default`] fixes these:
///
/// * **Line splitting.** grep-ast splits the file with Python's `str.splitlines()`, which
///   also breaks at `\f`, `\v`, `\x1c`–`\x1e`, `\x85`, `\u2028` and `\u2029`; tree-sitter
///   counts rows at `\n` only, so after such a character every row shows the wrong line
///   (a form feed — common in C, Lisp and older Python sources — shifts the rest of the
///   file by one). `to_tree`'s line cut splits the same way. Default splits at `\n` only.
/// * **Unreadable files.** Aider renders an unreadable or non-UTF-8 file as the text
///   `"\n"`, which prints `⋮` (or `│` when row 0 is of interest). Default follows
///   behaviour.md §9.2 (an unreadable file renders as `""`) and §14 (undecodable bytes are replaced).
/// * **Negative lines of interest** (possible only for identifier-fallback references)
///   index rows from the end in Python; Default ignores them.
/// * **A bare entry whose `rel_fname` is empty** is dropped by Aider (`elif cur_fname:`);
///   Default emits it, as behaviour.md §9.1 step 5b says.
///
/// Everything else — scopes, headers, gap closing, blank-line pickup, sorting, chat-file
/// skipping, the line cut — has no quirk worth fixing and is the same in both.
#[derive(Debug)]
pub struct Renderer {
    dialect: Dialect,
    max_line_length: usize,
    limits: Limits,
    render_cache: HashMap<RenderKey, String>,
    contexts: HashMap<Arc<str>, CachedContext>,
    /// Bumped by [`Renderer::start_map`].
    generation: u64,
    /// Maps whose files' contexts [`Renderer::start_map`] keeps (1: the previous map's).
    kept_maps: u64,
    /// How a definition's scopes show.
    headers: Headers,
    /// Where files' scopes are kept between runs, if anywhere.
    scope_cache: Option<Arc<dyn ScopeCache>>,
    /// Files parsed so far (not found in the scope cache).
    parses: u64,
}

impl Renderer {
    /// A renderer with empty caches and lines cut at [`DEFAULT_MAX_LINE_LENGTH`].
    pub fn new(dialect: Dialect) -> Self {
        Renderer {
            dialect,
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            limits: Limits::default(),
            render_cache: HashMap::new(),
            contexts: HashMap::new(),
            generation: 0,
            kept_maps: 1,
            headers: Headers::GrepAst,
            scope_cache: None,
            parses: 0,
        }
    }

    /// Keeps each parsed file's [`Scopes`] in `cache`, and takes them from there instead
    /// of parsing a file whose text (in this language, dialect and [`Headers`]) it holds:
    /// a later run renders the same map without parsing the files again.
    pub fn with_scope_cache(mut self, cache: Arc<dyn ScopeCache>) -> Self {
        self.scope_cache = Some(cache);
        self
    }

    /// How many files this renderer has parsed (files whose scopes came from the scope
    /// cache are not counted).
    pub fn parses(&self) -> u64 {
        self.parses
    }

    /// Shows the scopes around a definition as `headers` says (default
    /// [`Headers::GrepAst`], Aider's).
    pub fn with_headers(mut self, headers: Headers) -> Self {
        self.headers = headers;
        self
    }

    /// Keeps the parsed files of the last `maps` maps (at least 1) instead of the last
    /// one's: a long-lived session whose requests change (another chat file each time)
    /// then parses a file again only when none of those maps showed it.
    pub fn with_kept_maps(mut self, maps: u64) -> Self {
        self.kept_maps = maps.max(1);
        self
    }

    /// Cuts output lines at `max_line_length` characters instead (behaviour.md §14).
    pub fn with_max_line_length(mut self, max_line_length: usize) -> Self {
        self.max_line_length = max_line_length;
        self
    }

    /// Parses each file within `limits` (default [`Limits::default`]); a file whose parse
    /// runs out of time renders without scopes.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The line cut, in characters.
    pub fn max_line_length(&self) -> usize {
        self.max_line_length
    }

    /// Empties the render cache (not the context cache), as Aider does at the start of
    /// each uncached map computation.
    pub fn clear_render_cache(&mut self) {
        self.render_cache.clear();
    }

    /// Call at the start of each uncached map computation: empties the render cache (as
    /// Aider does) and drops every context the previous map did not use, which bounds a
    /// long session's memory by the files of its last two maps.
    pub fn start_map(&mut self) {
        self.clear_render_cache();
        let previous = self.generation;
        let kept = self.kept_maps;
        self.contexts.retain(|_, c| c.used + kept > previous);
        self.generation += 1;
    }

    /// Files whose parsed context is cached.
    pub fn cached_contexts(&self) -> usize {
        self.contexts.len()
    }

    /// Aider's `to_tree` (behaviour.md §9.1): the map text for `items`, skipping files in
    /// `chat_rel_fnames`.
    ///
    /// Items are sorted as Aider sorts its tuples ([`MapItem::aider_cmp`]) and grouped by
    /// `rel_fname`. A group that starts with a tag prints `\n{rel_fname}:\n` and the file
    /// rendered around its tags' lines ([`Renderer::render_tree`], read from the first
    /// tag's `fname`); a group that starts with a bare file prints `\n{rel_fname}\n` (tags
    /// sorting after a bare entry of the same file are then ignored, as in Aider). Every
    /// line is cut to [`max_line_length`](Renderer::max_line_length) characters and the
    /// text ends with one `\n`. No items give `""`; items all in chat files give `"\n"`.
    ///
    /// File names are printed with their control characters escaped ([`escape_control`]:
    /// `a\nb.py` for a name with a newline, `\x1b` for ESC), in both dialects, so a name
    /// is one line and cannot drive a terminal; Aider prints them raw. Other names print
    /// unchanged.
    pub fn to_tree<S>(&mut self, items: &[MapItem<'_>], chat_rel_fnames: &HashSet<S>) -> String
    where
        S: Borrow<str> + Hash + Eq,
    {
        if items.is_empty() {
            return String::new();
        }
        let mut sorted: Vec<&MapItem<'_>> = items.iter().collect();
        sorted.sort_by(|a, b| a.aider_cmp(b)); // stable, as Python's sort
        self.prepare_contexts(&files_to_render(&sorted, chat_rel_fnames));

        let mut output = String::new();
        let mut cur_fname: Option<&str> = None;
        let mut cur_abs_fname: Option<&Path> = None;
        let mut lois: Option<Vec<i64>> = None;
        for item in sorted.into_iter().map(Some).chain(std::iter::once(None)) {
            let this_rel_fname = item.map(MapItem::rel_fname);
            if this_rel_fname.is_some_and(|f| chat_rel_fnames.contains(f)) {
                continue;
            }
            if this_rel_fname != cur_fname {
                if let Some(lines) = lois.take() {
                    let rel = cur_fname.unwrap_or_default();
                    let abs = cur_abs_fname.unwrap_or(Path::new(""));
                    output.push('\n');
                    output.push_str(&escape_control(rel));
                    output.push_str(":\n");
                    output.push_str(&self.render_tree(abs, rel, &lines));
                } else if let Some(rel) = cur_fname
                    && (!rel.is_empty() || self.dialect == Dialect::Default)
                {
                    output.push('\n');
                    output.push_str(&escape_control(rel));
                    output.push('\n');
                }
                if let Some(MapItem::Tag(tag)) = item {
                    lois = Some(Vec::new());
                    cur_abs_fname = Some(&tag.fname);
                }
                cur_fname = this_rel_fname;
            }
            if let (Some(lines), Some(MapItem::Tag(tag))) = (lois.as_mut(), item) {
                lines.push(line_of_interest(tag.line));
            }
        }

        let mut cut = String::with_capacity(output.len() + 1);
        for (i, range) in split_lines(&output, self.dialect).into_iter().enumerate() {
            if i > 0 {
                cut.push('\n');
            }
            cut.push_str(truncate_chars(&output[range], self.max_line_length));
        }
        cut.push('\n');
        cut
    }

    /// Aider's `render_tree` (behaviour.md §9.2): file `abs_fname` (`rel_fname` relative to the
    /// root) shown around `lines_of_interest` (0-based rows, see [`line_of_interest`]).
    ///
    /// The file is read as Aider's `io.read_text` reads it (UTF-8, universal newlines) and
    /// given a final newline; its language comes from `rel_fname` ([`render_language`]).
    /// Results are cached by `(rel_fname, sorted lines, stamp)`, contexts by `rel_fname`
    /// and checked against the file's [`FileStamp`]. See [`Renderer`] for unreadable files.
    pub fn render_tree(
        &mut self,
        abs_fname: &Path,
        rel_fname: &str,
        lines_of_interest: &[i64],
    ) -> String {
        let stamp = stamp_of(abs_fname);
        let mut lois = lines_of_interest.to_vec();
        lois.sort_unstable();
        let rel: Arc<str> = Arc::from(rel_fname);
        let key = RenderKey {
            rel_fname: Arc::clone(&rel),
            lois,
            stamp,
        };
        if let Some(hit) = self.render_cache.get(&key) {
            return hit.clone();
        }

        let generation = self.generation;
        let fresh = self
            .fresh_context(rel_fname, stamp)
            .map(|c| c.used = generation);
        if fresh.is_none() {
            let read_at = SystemTime::now();
            let (context, parsed) = self.builder().build(abs_fname, rel_fname);
            self.parses += u64::from(parsed);
            self.keep_context(rel, stamp, read_at, context);
        }
        let rendered = self
            .contexts
            .get(rel_fname)
            .and_then(|c| c.context.as_ref())
            .map(|c| c.render(lines_of_interest))
            .unwrap_or_default();
        self.render_cache.insert(key, rendered.clone());
        rendered
    }

    /// The cached context of `rel_fname` if it may serve a file now stamped `stamp`.
    fn fresh_context(
        &mut self,
        rel_fname: &str,
        stamp: Option<FileStamp>,
    ) -> Option<&mut CachedContext> {
        let generation = self.generation;
        self.contexts
            .get_mut(rel_fname)
            .filter(|c| c.serves(stamp, generation))
    }

    /// Caches `context`, read at `read_at` from the file stamped `stamp`, as used by the
    /// current map.
    fn keep_context(
        &mut self,
        rel: Arc<str>,
        stamp: Option<FileStamp>,
        read_at: SystemTime,
        context: Option<TreeContext>,
    ) {
        let cached = CachedContext {
            stamp,
            settled: stamp.is_some_and(|s| !s.racy_at(read_at)),
            read_in: self.generation,
            used: self.generation,
            context,
        };
        self.contexts.insert(rel, cached);
    }

    /// Builds, on every core, the contexts of `files` (absolute and relative names) that
    /// are not cached: a map's first render parses its files side by side instead of one
    /// after another ([`Renderer::render_tree`] then finds them cached).
    fn prepare_contexts(&mut self, files: &[(&Path, &str)]) {
        let (generation, contexts) = (self.generation, &self.contexts);
        // A context this map already used was checked against its file then (and
        // `render_tree` checks it again): only the others are worth a `stat` here.
        let used_now = |rel: &str| contexts.get(rel).is_some_and(|c| c.used == generation);
        let missing: Vec<(&Path, &str, Option<FileStamp>)> = files
            .iter()
            .filter(|&&(_, rel)| !used_now(rel))
            .map(|&(abs, rel)| (abs, rel, stamp_of(abs)))
            .filter(|&(_, rel, stamp)| {
                let cached = contexts.get(rel);
                !cached.is_some_and(|c| c.serves(stamp, generation))
            })
            .collect();
        if missing.len() < 2 {
            return;
        }
        let builder = self.builder();
        let built: Vec<_> = missing
            .par_iter()
            .map(|&(abs, rel, stamp)| {
                let read_at = SystemTime::now();
                (rel, stamp, read_at, builder.build(abs, rel))
            })
            .collect();
        for (rel, stamp, read_at, (context, parsed)) in built {
            self.parses += u64::from(parsed);
            self.keep_context(Arc::from(rel), stamp, read_at, context);
        }
    }

    fn builder(&self) -> Builder<'_> {
        Builder {
            dialect: self.dialect,
            limits: &self.limits,
            headers: self.headers,
            scope_cache: self.scope_cache.as_deref(),
        }
    }
}

/// The files `to_tree` renders around tags, in its order: (absolute, relative) name of
/// each group of `sorted` items that starts with a tag, chat files left out.
fn files_to_render<'i, S>(
    sorted: &[&'i MapItem<'i>],
    chat_rel_fnames: &HashSet<S>,
) -> Vec<(&'i Path, &'i str)>
where
    S: Borrow<str> + Hash + Eq,
{
    let mut files = Vec::new();
    let mut current: Option<&str> = None;
    for item in sorted {
        let rel = item.rel_fname();
        if chat_rel_fnames.contains(rel) || current == Some(rel) {
            continue;
        }
        current = Some(rel);
        if let MapItem::Tag(tag) = item {
            files.push((&*tag.fname, rel));
        }
    }
    files
}

/// The stamp of the file at `path`, if it can be read.
fn stamp_of(path: &Path) -> Option<FileStamp> {
    std::fs::metadata(path).ok().map(|m| FileStamp::of(&m))
}

/// What building a file's context needs: the renderer's settings, shared by the threads
/// that build several at once.
struct Builder<'r> {
    dialect: Dialect,
    limits: &'r Limits,
    headers: Headers,
    scope_cache: Option<&'r dyn ScopeCache>,
}

impl Builder<'_> {
    /// The context of the file at `abs_fname` (`None` if unreadable in the default
    /// dialect), and whether it was parsed.
    fn build(&self, abs_fname: &Path, rel_fname: &str) -> (Option<TreeContext>, bool) {
        let mut code = match self.dialect {
            // io.read_text: None on any error (missing, unreadable, not UTF-8), then `or ""`.
            Dialect::Aider => match read_source(abs_fname) {
                Ok(Some(code)) => code,
                Ok(None) => {
                    tracing::warn!(file = %abs_fname.display(), "not valid UTF-8: rendered empty");
                    String::new()
                }
                Err(err) => {
                    tracing::warn!(file = %abs_fname.display(), "cannot read: {err}");
                    String::new()
                }
            },
            Dialect::Default => match std::fs::read(abs_fname) {
                Ok(bytes) => normalize_newlines(match String::from_utf8(bytes) {
                    Ok(code) => code,
                    Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
                }),
                Err(err) => {
                    tracing::warn!(file = %abs_fname.display(), "cannot read: {err}");
                    return (None, false);
                }
            },
        };
        if !code.ends_with('\n') {
            code.push('\n');
        }
        let language = render_language(Path::new(rel_fname), self.dialect);
        if language.is_none() {
            tracing::debug!(file = rel_fname, "no grammar: rendered without scopes");
        }
        let (context, parsed) = self.context_of(code, language);
        (Some(context), parsed)
    }

    /// The context of `code`: from the scope cache when it holds this text's scopes, else
    /// parsed, its scopes then kept in the cache; whether it was parsed.
    fn context_of(&self, code: String, language: Option<Language>) -> (TreeContext, bool) {
        let lines = split_lines(&code, self.dialect);
        let rows = lines.len() + 1;
        let cached = self.scope_cache.zip(language).map(|(cache, lang)| {
            let key = ScopeKey::new(&code, lang, self.dialect, self.headers);
            (cache, key)
        });
        if let Some((cache, key)) = &cached
            && let Some(scopes) = cache
                .get(key)
                .and_then(|bytes| Scopes::decode(&bytes, rows))
        {
            return (
                TreeContext::assemble(code, lines, scopes, self.dialect),
                false,
            );
        }
        let how = (self.dialect, self.limits, self.headers);
        let (context, scopes) = TreeContext::parsed_lines(code, lines, language, how);
        if let (Some((cache, key)), Some(scopes)) = (cached, scopes) {
            cache.put(&key, &scopes.encode());
        }
        (context, true)
    }
}
