//! What the tools do, as plain blocking functions over the facade: check the input, pick
//! the session, map or search, and shape the answer as JSON.

use std::path::{Path, PathBuf};

use repo_mapper::{
    Anchors, Dialect, HitKind, IdentifierQuery, MapRequest, SymbolTarget, Tokenizer,
    escape_control, outline_page, outlines_fingerprint, outlines_listed, parse_profile,
    show_symbol,
};
use serde_json::{Value, json};

use crate::listings::Listings;
use crate::output::{
    OutlineOutput, OutlinedFile, ResultKind, SearchOutput, SearchResult, ShowOutput, ShownSource,
};
use crate::params::{OutlineParams, RepoMapParams, SearchParams, ShowParams};
use crate::sessions::{Busy, Listener, Live, SessionKey, Sessions};

/// A call's input was wrong: one line for the caller (an MCP tool error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

fn fail<T>(message: impl Into<String>) -> Result<T, ToolError> {
    Err(ToolError(message.into()))
}

/// RepoMapper's default budget for `repo_map`.
pub const DEFAULT_TOKEN_LIMIT: usize = 8192;

/// The default cap, in tokens, of a `search_identifiers` answer: below the 25,000 tokens
/// that common clients accept from a tool.
pub const DEFAULT_MAX_TOKENS: usize = 20_000;

/// The roots a server may serve and its live sessions.
#[derive(Debug)]
pub(crate) struct Tools {
    /// Directories the served roots must lie in; empty: any.
    pub allowed: Vec<PathBuf>,
    pub sessions: Sessions,
    /// The walks `outline` resolves imports against.
    pub listings: Listings,
}

impl Tools {
    /// The `repo_map` tool: the map and a report, as JSON; `listener` is told of the
    /// files its scan reads.
    pub(crate) fn repo_map(
        &self,
        p: &RepoMapParams,
        listener: Option<Listener>,
    ) -> Result<Value, ToolError> {
        let root = self.root(&p.project_root)?;
        let profile = match &p.profile {
            Some(name) => parse_profile(name).or_else(|e| fail(e.to_string()))?,
            None => repo_mapper::Profile::default(),
        };
        let key = SessionKey {
            root: root.clone(),
            profile,
            exclude_unranked: p.exclude_unranked.unwrap_or(false),
        };
        let session = self.sessions.get(&key);
        let wait = p.wait.unwrap_or(true);
        session
            .run(wait, listener, |live| map_in(live, &root, p))
            .unwrap_or_else(|Busy(why)| fail(why))
    }

    /// The `search_identifiers` tool: matching definitions and references, as JSON;
    /// `listener` is told of the files its scan reads.
    pub(crate) fn search_identifiers(
        &self,
        p: &SearchParams,
        listener: Option<Listener>,
    ) -> Result<Value, ToolError> {
        let root = self.root(&p.project_root)?;
        if p.query.trim().is_empty() {
            return fail("query is empty");
        }
        let mut query = IdentifierQuery::new(p.query.trim());
        let skip = match p.cursor.as_deref() {
            None => 0,
            Some(cursor) => parse_cursor(cursor)?,
        };
        let page = p.max_results.unwrap_or(query.max_results);
        // One more than the page: whether a next page exists.
        query.max_results = skip.saturating_add(page).saturating_add(1);
        query.context_lines = p.context_lines.unwrap_or(query.context_lines);
        query.definitions = p.include_definitions.unwrap_or(true);
        query.references = p.include_references.unwrap_or(true);
        let key = SessionKey {
            root: root.clone(),
            profile: repo_mapper::Profile::default(),
            exclude_unranked: false,
        };
        let session = self.sessions.get(&key);
        let hits = session.run(p.wait.unwrap_or(true), listener, |live| {
            let files = live.lend_files();
            let hits = live.map.search_identifiers(&files, &query);
            live.give_back(files);
            hits
        });
        let hits = hits.or_else(|Busy(why)| fail(why))?;
        let results: Vec<SearchResult> = hits
            .into_iter()
            .skip(skip)
            .map(|h| SearchResult {
                file: escape_control(&h.file).into_owned(),
                line: h.line,
                name: h.name,
                kind: match h.kind {
                    HitKind::Definition => ResultKind::Definition,
                    HitKind::Reference => ResultKind::Reference,
                },
                context: h.context,
            })
            .collect();
        let cap = p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        let echoed = echoed_query(&query.text);
        Ok(to_value(&page_of(echoed, results, skip, page, cap)?))
    }

    /// The `show_symbol` tool: a definition's whole source (read and parsed now; no
    /// session), as JSON.
    pub(crate) fn show_symbol(&self, p: &ShowParams) -> Result<Value, ToolError> {
        let root = self.root(&p.project_root)?;
        let Some(target) = SymbolTarget::parse(p.symbol.trim()) else {
            return fail(format!(
                "symbol must be FILE#NAME or FILE:LINE (a line from 1), got {}",
                escape_control(&p.symbol)
            ));
        };
        let cap = p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        let shown = show_symbol(
            &root,
            &target,
            Dialect::Default,
            Some((cap, Tokenizer::default())),
        )
        .or_else(|why| fail(escape_control(&why.to_string()).into_owned()))?;
        let definitions = shown
            .into_iter()
            .map(|d| ShownSource {
                file: escape_control(&d.file).into_owned(),
                name: d.name,
                start_line: d.start_line,
                end_line: d.end_line,
                source: d.source,
                omitted_lines: d.omitted_lines,
            })
            .collect();
        Ok(to_value(&ShowOutput { definitions }))
    }

    /// The `outline` tool: what the files define, as text within the cap and counts per
    /// file (read and parsed now; no session; imports resolved against a kept walk).
    pub(crate) fn outline(&self, p: &OutlineParams) -> Result<Value, ToolError> {
        let root = self.root(&p.project_root)?;
        if p.paths.is_empty() {
            return fail("paths is empty");
        }
        let listing = || self.listings.of(&root);
        let outlines = outlines_listed(&root, &p.paths, Dialect::Default, &listing)
            .or_else(|why| fail(escape_control(&why.to_string()).into_owned()))?;
        let cap = p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
        let request = outlines_fingerprint(&root, &outlines);
        let from = match p.cursor.as_deref() {
            None => 0,
            Some(cursor) => parse_outline_cursor(cursor, request)?,
        };
        let page = outline_page(&outlines, Some((cap, Tokenizer::default())), from);
        if from > 0 && from >= page.lines {
            return fail(format!("cursor {from} is past the outline's end"));
        }
        if page.next == Some(from) {
            return fail(format!(
                "max_tokens {cap} cannot hold one line of this outline"
            ));
        }
        let (text, shown) = (page.text, page.shown);
        let files = outlines
            .iter()
            .zip(shown)
            .map(|(o, shown)| OutlinedFile {
                file: escape_control(&o.file).into_owned(),
                language: o.language.clone(),
                lines: o.lines,
                symbols: o.symbols.len(),
                shown: shown.symbols,
                imports: o.imports.as_ref().map(Vec::len),
                imports_shown: shown.imports,
                warning: o.warning.as_deref().map(|w| escape_control(w).into_owned()),
            })
            .collect();
        Ok(to_value(&OutlineOutput {
            outline: text,
            files,
            next_cursor: page.next.map(|at| outline_cursor(at, request)),
        }))
    }

    /// `project_root` checked: an existing directory, inside an allowed one.
    fn root(&self, given: &str) -> Result<PathBuf, ToolError> {
        if given.is_empty() {
            return fail("project_root is empty");
        }
        let path = Path::new(given);
        if !path.is_absolute() {
            return fail(format!(
                "project_root must be an absolute path, got {given}"
            ));
        }
        let root = match path.canonicalize() {
            Ok(root) if root.is_dir() => root,
            Ok(_) => return fail(format!("project_root {given} is not a directory")),
            Err(e) => return fail(format!("project_root {given} cannot be read: {e}")),
        };
        if self.allowed.is_empty() {
            return project(root, given);
        }
        if !self.allowed.iter().any(|a| root.starts_with(a)) {
            return fail(format!(
                "project_root {given} is outside the roots this server serves"
            ));
        }
        Ok(root)
    }
}

/// The answer to a search: the results from `skip` on (`results`, at most `page` + 1
/// of them), as many as `page` and the cap of `max_tokens` (the answer's JSON text
/// counted) allow, and where the next page starts if any are left. A page of 0 is an
/// empty last page; a cap that cannot hold one result (its context cut to nothing) is a
/// tool error.
fn page_of(
    query: String,
    mut results: Vec<SearchResult>,
    skip: usize,
    page: usize,
    max_tokens: usize,
) -> Result<SearchOutput, ToolError> {
    if page == 0 {
        results.clear();
    }
    let total = results.len();
    let mut answer = SearchOutput {
        query,
        count: 0,
        results: Vec::new(),
        next_cursor: Some(cursor_at(usize::MAX)),
    };
    let whole_page = page.min(total);
    answer.count = whole_page;
    answer.next_cursor = (total > whole_page).then(|| cursor_at(skip + whole_page));
    answer.results = results;
    answer.results.truncate(whole_page);
    if fits(&to_value(&answer).to_string(), max_tokens) {
        return Ok(answer);
    }
    let results = std::mem::take(&mut answer.results);
    answer.next_cursor = Some(cursor_at(usize::MAX));
    let tokenizer = repo_mapper::Tokenizer::default();
    let mut used = tokenizer.count(&to_value(&answer).to_string());
    let mut kept = 0;
    for result in results.iter().take(page) {
        // Each result's JSON, and the comma before it.
        used += tokenizer.count(&to_value(result).to_string()) + 1;
        if used > max_tokens && kept > 0 {
            break;
        }
        kept += 1;
    }
    answer.results = results;
    answer.results.truncate(kept);
    // The sum of the parts' counts is close to the whole's, not always equal: check the
    // whole, and give back results (or half the one result's context) until it fits.
    loop {
        answer.count = answer.results.len();
        let more = total > answer.count;
        answer.next_cursor = more.then(|| cursor_at(skip + answer.count));
        if fits(&to_value(&answer).to_string(), max_tokens) {
            return Ok(answer);
        }
        if !shrink(&mut answer.results) {
            return fail(format!(
                "max_tokens {max_tokens} cannot hold one result; raise it"
            ));
        }
    }
}

/// The most bytes of the query a search answer echoes.
const ECHOED_QUERY_BYTES: usize = 256;

/// The query as the answer echoes it: whole, or its first [`ECHOED_QUERY_BYTES`] (at a
/// character's boundary) and how many more there were. The answer's tokens are counted
/// when it is longer than the cap, up to three times, and the count of one long word
/// costs far more per byte than anything else a search does (a 10 MB query took 25
/// seconds): an echo of bounded length leaves the search only the linear steps.
fn echoed_query(query: &str) -> String {
    if query.len() <= ECHOED_QUERY_BYTES {
        return query.to_owned();
    }
    let cut = (0..=ECHOED_QUERY_BYTES)
        .rev()
        .find(|&at| query.is_char_boundary(at))
        .unwrap_or(0);
    format!("{}... and {} more bytes", &query[..cut], query.len() - cut)
}

/// Makes `results` smaller: the last result goes, or the only one loses the second half
/// of its context's lines (so that a huge context takes few rounds); `false` when
/// nothing is left to take.
fn shrink(results: &mut Vec<SearchResult>) -> bool {
    if results.len() > 1 {
        results.pop();
        return true;
    }
    let Some(only) = results.first_mut() else {
        return false;
    };
    if only.context.is_empty() {
        return false;
    }
    let lines = only.context.lines().count();
    let keep: Vec<&str> = only.context.lines().take(lines / 2).collect();
    only.context = keep.join("\n");
    true
}

/// Whether `text` is at most `cap` tokens: counted only when it has more bytes than that
/// (a token is at least one byte), so a small answer costs no count.
fn fits(text: &str, cap: usize) -> bool {
    text.len() <= cap || repo_mapper::Tokenizer::default().count(text) <= cap
}

/// The cursor of the page that starts at result `at`.
fn cursor_at(at: usize) -> String {
    format!("r{at}")
}

/// The result a cursor from [`cursor_at`] starts at.
fn parse_cursor(cursor: &str) -> Result<usize, ToolError> {
    match cursor.strip_prefix('r').and_then(|n| n.parse().ok()) {
        Some(at) => Ok(at),
        None => fail(format!("cursor {cursor:?} is not one this server gave")),
    }
}

/// The cursor of the outline page that starts at line `at` of the request hashed as
/// `request` ([`outlines_fingerprint`]).
fn outline_cursor(at: usize, request: u64) -> String {
    format!("o{at}.{request:016x}")
}

/// The line an [`outline_cursor`] starts at, if it was given for this request (the same
/// root and paths, the files as they were: a cursor from before an edit would skip or
/// repeat lines) and points inside it.
fn parse_outline_cursor(cursor: &str, request: u64) -> Result<usize, ToolError> {
    let parsed = cursor.strip_prefix('o').and_then(|rest| {
        let (at, hash) = rest.split_once('.')?;
        Some((
            at.parse::<usize>().ok()?,
            u64::from_str_radix(hash, 16).ok()?,
        ))
    });
    match parsed {
        Some((at, hash)) if hash == request => Ok(at),
        _ => fail(format!(
            "cursor {cursor:?} is not one this server gave for these paths as they are now"
        )),
    }
}

/// What marks a directory as a project: a version-control directory (or a worktree's
/// `.git` file), or a tag store that repo-mapper already keeps there.
const PROJECT_MARKERS: [&str; 6] = [".git", ".hg", ".svn", ".jj", ".bzr", ".repo-mapper"];

/// `root` if it is a project ([`PROJECT_MARKERS`]): a server started without `--root`
/// must not walk, or write a tag store into, `/`, `/etc` or a home directory because a
/// client named it (issue 23).
fn project(root: PathBuf, given: &str) -> Result<PathBuf, ToolError> {
    if PROJECT_MARKERS.iter().any(|m| root.join(m).exists()) {
        return Ok(root);
    }
    fail(format!(
        "project_root {given} is not a project (it has none of {}); start the server \
         with --root {given} to serve it anyway",
        PROJECT_MARKERS.join(", ")
    ))
}

/// The `repo_map` tool's work on its session: the request, then the facade's answer in
/// the tool's envelope ([`map_within`]), within `max_tokens`.
fn map_in(live: &mut Live, root: &Path, p: &RepoMapParams) -> Result<Value, ToolError> {
    let cap = p.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS);
    let mut budget = p.token_limit.unwrap_or(DEFAULT_TOKEN_LIMIT);
    let mut counts_only = false;
    // The answer's JSON holds more than the map (escapes, the report): when it passes
    // the cap, the next budget is the map's size less what it was over, and a tenth more.
    for _ in 0..4 {
        // Made again for a retry rather than cloned for every call (it lists every file).
        let (request, lent) = request(root, p, live)?;
        let (mut answer, files) = map_within(&mut live.map, request, p, budget);
        if lent {
            live.give_back(files);
        }
        let mut tokens = tokens_within(&answer, cap);
        // What the message mentioned goes before any of the map does, and stays out of
        // the smaller maps made after.
        if (counts_only || tokens > cap) && mention_counts_only(&mut answer) {
            counts_only = true;
            tokens = tokens_within(&answer, cap);
        }
        if tokens <= cap {
            return Ok(answer);
        }
        let over = tokens - cap;
        // The map's tokens (a float: Aider's estimate in its profile).
        let used = answer["report"]["tokens"]
            .as_f64()
            .map_or(budget, |t| t.ceil() as usize);
        budget = budget.min(used).saturating_sub(over + over / 10 + 1);
        if budget == 0 {
            break;
        }
    }
    fail(format!(
        "max_tokens {cap} cannot hold a map and its report; raise it"
    ))
}

/// The tokens of `answer`'s JSON text, or its bytes when they are at most `cap` (a token
/// is at least one byte: a short answer needs no count).
fn tokens_within(answer: &Value, cap: usize) -> usize {
    let text = answer.to_string();
    match text.len() {
        bytes if bytes <= cap => bytes,
        _ => repo_mapper::Tokenizer::default().count(&text),
    }
}

/// Empties the lists of the report's `mentions`, keeping their counts; whether there was
/// anything to take out.
fn mention_counts_only(answer: &mut Value) -> bool {
    let mentions = (answer.get_mut("report")).and_then(|report| report.get_mut("mentions"));
    let Some(mentions) = mentions.and_then(Value::as_object_mut) else {
        return false;
    };
    let mut emptied = false;
    for list in ["files", "idents"] {
        if let Some(Value::Array(names)) = mentions.get_mut(list) {
            emptied |= !names.is_empty();
            names.clear();
        }
    }
    emptied
}

/// One map of `request` within `budget` tokens, in the tool's envelope: `map` (empty
/// without one), `report` (the rest, with `token_limit`) and `error`.
fn map_within(
    map: &mut repo_mapper::RepoMap,
    request: MapRequest,
    p: &RepoMapParams,
    budget: usize,
) -> (Value, Vec<PathBuf>) {
    map.set_budget(budget, p.max_context_window);
    let mut answer = map.answer(request, p.message.as_deref(), true);
    let files = answer.take_other_files();
    let mut report = answer.to_json(map.config());
    let map = match report.remove("map") {
        Some(Value::String(map)) => map,
        _ => String::new(),
    };
    let error = match report.remove("error") {
        Some(Value::String(error)) => Some(error),
        _ => None,
    };
    report.insert("token_limit".into(), json!(budget));
    // `RepoMapOutput`'s shape, its parts moved rather than serialised again.
    (json!({"map": map, "report": report, "error": error}), files)
}

/// An answer as JSON (serialising these types cannot fail: string keys, no floats that
/// JSON lacks).
fn to_value<T: serde::Serialize>(answer: &T) -> Value {
    serde_json::to_value(answer).unwrap_or_default()
}

/// The map request of `p`: paths resolved against `root`, which they must lie in; with
/// no other files given, every file of the repository, lent by the session (then `true`:
/// the answer gives them back).
fn request(
    root: &Path,
    p: &RepoMapParams,
    live: &mut Live,
) -> Result<(MapRequest, bool), ToolError> {
    let paths = |list: &Option<Vec<String>>, what: &str| -> Result<Vec<PathBuf>, ToolError> {
        let list = list.as_deref().unwrap_or_default();
        list.iter().map(|f| inside(root, f, what)).collect()
    };
    let chat = paths(&p.chat_files, "chat_files")?;
    let mut other = paths(&p.other_files, "other_files")?;
    let mentioned: Vec<String> = paths(&p.mentioned_files, "mentioned_files")?
        .iter()
        .map(|f| relative(root, f))
        .collect();
    let lent = other.is_empty();
    if lent {
        other = live.lend_files();
    }
    let anchors = Anchors::resolve(p.anchors.as_deref().unwrap_or_default(), root, root);
    let request = MapRequest::new(other)
        .with_chat_files(chat)
        .with_mentioned_files(mentioned)
        .with_mentioned_idents(p.mentioned_idents.clone().unwrap_or_default())
        .with_anchors(anchors)
        .with_force_refresh(p.force_refresh.unwrap_or(false));
    Ok((request, lent))
}

/// `file`, inside `root`, relative to it.
fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned()
}

/// `file` (absolute, or relative to `root`) as an absolute path inside `root`.
fn inside(root: &Path, file: &str, what: &str) -> Result<PathBuf, ToolError> {
    match repo_mapper::inside_root(root, root, Path::new(file)) {
        Some(path) => Ok(path),
        None => fail(format!("{what}: {file} is outside project_root")),
    }
}
