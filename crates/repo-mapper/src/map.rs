//! [`RepoMap`]: a session over one repository — the map cache of behaviour.md §11 in front of
//! the pipeline ([`crate::compute`]).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet, VecDeque};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use repo_mapper_render::{Headers, Renderer};
use repo_mapper_store::{CacheLocation, PackAhead};
use repo_mapper_tags::Dialect;
use repo_mapper_tags::fxhash::FxBuildHasher;

use crate::cache_dir::trusted_cache;
use crate::compute::sorted_union;
use crate::config::{Config, Refresh};
use crate::history::{HeadWitness, History};
use crate::known_counts::{Hash128, KnownCounts, hash128};
use crate::request::{Anchors, MapOutput, MapReport, MapRequest, NoMap};
use crate::scope_cache::{ScanScopes, scope_cache};
use crate::warm::WarmSession;

/// Distinct requests whose results the map cache keeps (the oldest goes first). Aider's
/// cache is unbounded; a long session must not grow with every chat-file combination.
const MAP_CACHE_ENTRIES: usize = 32;

/// Maps whose parsed files a warm session's renderer keeps ([`Config::warm_session`]).
/// `bench mcp` on Django (200 calls, 50 chat files in turn): 16 maps left the budget
/// search re-parsing files at a median 14 ms per call, 64 take 6 ms, the server's memory
/// unchanged (~120 MiB after 200 calls either way).
const WARM_KEPT_MAPS: u64 = 64;

/// Ranked entries the cached reports may hold together (the newest result is kept
/// whatever its size): on a large repository each report lists every definition, and 32
/// of them were hundreds of megabytes (issue 15: a warm MCP server grew with each chat
/// file).
const MAP_CACHE_REPORT_ENTRIES: usize = 250_000;

/// Progress of the tag scan's reading and parsing, reported to
/// [`RepoMap::set_progress`]'s callback: once with `done` 0 before any file is read (so a
/// caller knows how much parsing is ahead), then once per file, from any thread. Files
/// the tag store vouches for by `stat` are not counted: a warm run reports `total` 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Progress {
    /// Files read (and parsed unless unchanged) so far.
    pub done: usize,
    /// Files to read: new, or changed since the store saw them.
    pub total: usize,
}

pub(crate) type ProgressFn = Box<dyn Fn(Progress) + Send + Sync>;

/// What a computation returns, as the map cache keeps it.
pub(crate) type Computed = Result<MapOutput, NoMap>;

/// The map cache's key (behaviour.md §11): sorted chat and other files, the budget, and in
/// [`Refresh::Auto`] the mentions; and the anchors (behaviour.md §11 predates per-request anchors:
/// they were fixed for a session).
#[derive(Debug, Clone, PartialEq, Eq)]
struct CacheKey {
    chat: Vec<PathBuf>,
    /// blake3 of every file of the request, chat and other, sorted ([`sorted_union`]:
    /// with `chat`, it tells the other files; the list itself is the whole repository).
    files: [u8; 32],
    budget: usize,
    anchors: Anchors,
    mentioned_files: Option<BTreeSet<String>>,
    mentioned_idents: Option<BTreeSet<String>>,
    message: Option<String>,
    /// The history the ranking read ([`History::id`]).
    history: Option<String>,
}

/// A cached result: the request it answers, the state of the files it was made from
/// ([`Admitted::state`](crate::compute::Admitted::state)) and the result.
#[derive(Debug)]
struct Cached {
    key: CacheKey,
    state: Option<[u8; 32]>,
    computed: Computed,
}

/// The repo map of one repository. Keep it for a session: it holds the map cache, the
/// render caches and the set of files already warned about, all bounded. The tag store is
/// opened for each computation and closed after it, so other processes can use it
/// between calls.
///
/// ```
/// use repo_mapper::{Config, MapRequest, RepoMap};
///
/// let root = std::env::temp_dir().join(format!("repo-mapper-session-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&root)?;
/// std::fs::write(root.join("shop.py"), "class Order:\n    def total(self):\n        return 1\n")?;
/// std::fs::write(root.join("app.py"), "from shop import Order\nprint(Order().total())\n")?;
/// let mut config = Config::new(&root);
/// config.cache = repo_mapper::CacheLocation::Memory;
/// let mut session = RepoMap::new(config);
/// let files = repo_mapper::list_files(&root, None);
/// let request = MapRequest::new(files).with_chat_files(vec![root.join("app.py")]);
/// let map = session.map(&request).expect("a map");
/// assert!(map.text.contains("class Order"));
/// assert!(!map.text.contains("app.py"), "chat files are not shown");
/// assert_eq!(map.report.files, 2);
/// std::fs::remove_dir_all(&root)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct RepoMap {
    pub(crate) config: Config,
    pub(crate) renderer: Renderer,
    /// The scopes the last scan took from its trees, in front of the renderer's scope
    /// cache until the map is rendered.
    pub(crate) scan_scopes: Arc<ScanScopes>,
    map_cache: VecDeque<Cached>,
    last_map: Option<MapOutput>,
    map_processing_time: Duration,
    pub(crate) warned_files: HashSet<PathBuf>,
    /// Whether this session said that files over the size limit were not parsed.
    pub(crate) warned_too_large: bool,
    pub(crate) progress: Option<ProgressFn>,
    /// What is kept between maps when [`Config::warm_session`] is set.
    pub(crate) warm: Option<WarmSession>,
    /// The repository's history as last read ([`Config::history`]).
    history: Option<Arc<History>>,
    /// What `HEAD` named when last read, and the files that say it still does.
    head: Option<HeadWitness>,
    /// The root's tag pack, read ahead from [`RepoMap::new`] for the first scan.
    pub(crate) ahead: Option<PackAhead>,
    /// Token counts of texts counted before, here or by earlier runs.
    pub(crate) counts: KnownCounts,
    /// Why the configured cache directory is not used ([`trusted_cache`]): reported with
    /// every map, as a store that could not be opened is.
    pub(crate) untrusted: Option<repo_mapper_store::StoreFallback>,
}

impl std::fmt::Debug for RepoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoMap")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl RepoMap {
    /// A session with this configuration. It starts, on threads of their own, what its
    /// first map needs first: the tokenizer's rank map and, with [`Config::read_ahead`],
    /// the root's tag pack (so that reading them overlaps what the caller does before
    /// that map, such as the walk). The rank map is not started here when the cache
    /// directory knows the counts of earlier maps (a map whose request it knows may need
    /// none); a long-lived session ([`Config::warm_session`]) always starts it. A cache
    /// directory someone else could change is not used ([`trusted_cache`]).
    pub fn new(mut config: Config) -> RepoMap {
        let (cache, untrusted) =
            trusted_cache(std::mem::replace(&mut config.cache, CacheLocation::Memory));
        config.cache = cache;
        let counts_dir = match &config.cache {
            CacheLocation::Dir(dir) => Some(dir.as_path()),
            CacheLocation::Memory => None,
        };
        let counts = KnownCounts::open(counts_dir, config.tokenizer);
        if config.warm_session || !counts.knows_any_request() {
            config.tokenizer.warm_up();
        }
        let ahead = config
            .read_ahead
            .then(|| PackAhead::start(&config.cache, &config.root, config.dialect()))
            .flatten();
        let headers = if config.relevance().signatures {
            Headers::Signatures
        } else {
            Headers::GrepAst
        };
        let mut renderer = Renderer::new(config.dialect())
            .with_headers(headers)
            .with_max_line_length(config.max_line_length)
            .with_limits(config.limits)
            .with_kept_maps(if config.warm_session {
                WARM_KEPT_MAPS
            } else {
                1
            });
        let scan_scopes = Arc::new(ScanScopes::new(config.dialect(), headers));
        renderer = renderer.with_scope_cache(scope_cache(&config.cache, Arc::clone(&scan_scopes)));
        RepoMap {
            scan_scopes,
            warm: config.warm_session.then(WarmSession::default),
            history: None,
            head: None,
            config,
            renderer,
            map_cache: VecDeque::new(),
            last_map: None,
            map_processing_time: Duration::ZERO,
            warned_files: HashSet::new(),
            warned_too_large: false,
            progress: None,
            ahead,
            counts,
            untrusted,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Sets the token budget and the model's context window for the maps that follow (a
    /// long-lived session serves requests with different budgets; the map cache keys on
    /// the budget).
    pub fn set_budget(&mut self, map_tokens: usize, max_context_window: Option<usize>) {
        self.config.map_tokens = map_tokens;
        self.config.max_context_window = max_context_window;
    }

    /// Calls `f` as files are read and parsed (see [`Progress`]).
    pub fn set_progress(&mut self, f: impl Fn(Progress) + Send + Sync + 'static) {
        self.progress = Some(Box::new(f));
    }

    /// The repo map for `request` (behaviour.md §10–§13), or why there is none.
    ///
    /// A cached map answers only under the freshness rule ([`Refresh`]): in
    /// [`Refresh::Auto`], only if no file it was made from changed since (every file's
    /// [`FileStamp`](repo_mapper_tags::FileStamp) is the same, and none was racy then).
    pub fn map(&mut self, request: &MapRequest) -> Result<MapOutput, NoMap> {
        if self.config.map_tokens == 0 {
            return Err(NoMap::ZeroBudget);
        }
        let request = &*without_chat_candidates(request);
        if request.other_files.is_empty() {
            return Err(NoMap::NoFiles);
        }
        let budget = self.budget(request.chat_files.is_empty());
        let reading = Instant::now();
        let history = self.history_for(request);
        let history_took = reading.elapsed();
        // Every file of the request, sorted once: hashed for the key, then admitted.
        let all = sorted_union(&request.chat_files, &request.other_files);
        let key = self.cache_key(request, &all, budget, history.as_deref());
        if !request.force_refresh
            && let Some(hit) = self.cached_whatever_changed(&key)
        {
            return hit;
        }
        let started = Instant::now();
        let (admitted, checked) = self.admit(&all);
        // Only `auto` reuses a map for files in the same state; a warm session built the
        // tokenizer's rank map from the start and keeps no requests.
        let auto = self.config.refresh == Refresh::Auto;
        let keeps_requests = !self.config.warm_session;
        let now = SystemTime::now();
        let state = auto
            .then(|| admitted.stamps_digest())
            .and_then(|d| admitted.state(d, now));
        let counted = keeps_requests.then(|| self.count_key(&key, request));
        if counted.is_some_and(|c| !self.counts.knows_request(&c)) {
            self.config.tokenizer.warm_up();
        }
        if !request.force_refresh
            && let Some(hit) = self.cached_if_unchanged(&key, state.as_ref())
        {
            return hit;
        }
        let admitted = (admitted, checked);
        let history = (history.as_deref(), history_took);
        let computed = self.compute(request, budget, admitted, history, started);
        if let Some(counted) = counted {
            self.counts.counted_request(counted);
        }
        self.counts.save();
        self.remember(key, state, &computed);
        computed
    }

    /// What names `request`'s maps for the known counts: the map cache's key with the
    /// request's message and mentions (which that key holds only in [`Refresh::Auto`])
    /// and the settings that change what is rendered. The files' state is not in it: a
    /// request met again after an edit usually renders what it rendered before (an edit
    /// inside a body changes no line the map shows), and a count that misses builds the
    /// rank map then, in a few milliseconds.
    fn count_key(&self, key: &CacheKey, request: &MapRequest) -> Hash128 {
        let named = format!(
            "{key:?}|{:?}|{:?}|{:?}|{:?}|{}",
            request.message,
            request.mentioned_files,
            request.mentioned_idents,
            self.config.dialect(),
            self.config.max_line_length,
        );
        hash128(named.as_bytes())
    }

    /// The history the ranking reads for `request`: its own, or with [`Config::history`]
    /// the repository's (kept while `HEAD` names the same commit); none without chat
    /// files, or where the profile does not read it.
    fn history_for(&mut self, request: &MapRequest) -> Option<Arc<History>> {
        let read = self.config.dialect() == Dialect::Default
            && self.config.relevance().co_change_weight > 0.0
            && !request.chat_files.is_empty();
        if !read {
            return None;
        }
        if let Some(own) = &request.history {
            return Some(Arc::clone(own));
        }
        if !self.config.history {
            return None;
        }
        let root = &self.config.root;
        let head = match self.head.as_ref().filter(|w| w.still_holds()) {
            Some(witness) => witness.commit.clone(),
            None => {
                self.head = HeadWitness::read(root);
                self.head.as_ref()?.commit.clone()
            }
        };
        if let Some(kept) = self.history.as_ref().filter(|h| h.id() == head) {
            return Some(Arc::clone(kept));
        }
        self.history = History::read_git_at(root, head).map(Arc::new);
        self.history.clone()
    }

    /// Aider's `RepoMap.get_repo_map` with its arguments and meaning: the map, or `None`.
    ///
    /// `chat_fnames` and `other_fnames` are absolute paths; `mentioned_fnames` are relative
    /// to the root. [`RepoMap::map`] takes the same as a [`MapRequest`] and says why there
    /// is no map.
    pub fn get_repo_map(
        &mut self,
        chat_fnames: &[PathBuf],
        other_fnames: &[PathBuf],
        mentioned_fnames: &BTreeSet<String>,
        mentioned_idents: &BTreeSet<String>,
        force_refresh: bool,
    ) -> Option<String> {
        let request = MapRequest {
            chat_files: chat_fnames.to_vec(),
            other_files: other_fnames.to_vec(),
            mentioned_files: mentioned_fnames.clone(),
            mentioned_idents: mentioned_idents.clone(),
            force_refresh,
            ..MapRequest::default()
        };
        self.map(&request).ok().map(|out| out.text)
    }

    /// behaviour.md §10.3: the budget, bigger when no file is in the chat and the model's context
    /// window is known.
    fn budget(&self, no_chat_files: bool) -> usize {
        let c = &self.config;
        match c.max_context_window {
            Some(window) if no_chat_files => {
                let target =
                    (c.map_tokens as i64 * c.map_mul_no_files as i64).min(window as i64 - 4096);
                if target > 0 {
                    target as usize
                } else {
                    c.map_tokens
                }
            }
            _ => c.map_tokens,
        }
    }

    fn cache_key(
        &self,
        request: &MapRequest,
        all: &[&PathBuf],
        budget: usize,
        history: Option<&History>,
    ) -> CacheKey {
        let sorted = |v: &[PathBuf]| {
            let mut v = v.to_vec();
            crate::paths::sort_paths(&mut v);
            v
        };
        let auto = self.config.refresh == Refresh::Auto;
        let if_auto = |s: &BTreeSet<String>| (auto && !s.is_empty()).then(|| s.clone());
        CacheKey {
            chat: sorted(&request.chat_files),
            files: digest(all),
            budget,
            anchors: request.anchors.clone(),
            mentioned_files: if_auto(&request.mentioned_files),
            mentioned_idents: if_auto(&request.mentioned_idents),
            message: request.message.clone().filter(|_| auto),
            history: history.map(|h| h.id().to_owned()),
        }
    }

    /// behaviour.md §11's modes that reuse a map whatever changed on disk: [`Refresh::Manual`]
    /// (the last map) and [`Refresh::Files`] (the map of the same request).
    fn cached_whatever_changed(&self, key: &CacheKey) -> Option<Computed> {
        match self.config.refresh {
            Refresh::Manual => self.last_map.as_ref().map(|last| Ok(hit(last))),
            Refresh::Files => self.cached_entry(key).map(|(_, computed)| computed),
            Refresh::Auto | Refresh::Always => None,
        }
    }

    /// [`Refresh::Auto`]: Aider's rule (the last map took over a second), and only when
    /// the files the cached map was made from are as they were (`state`: see
    /// [`Admitted::state`](crate::compute::Admitted::state); `None` when a file is racy, and then nothing is reused).
    fn cached_if_unchanged(&self, key: &CacheKey, state: Option<&[u8; 32]>) -> Option<Computed> {
        let slow = self.map_processing_time > Duration::from_secs(1);
        if self.config.refresh != Refresh::Auto || !slow {
            return None;
        }
        let (made_from, computed) = self.cached_entry(key)?;
        (state.is_some() && made_from.as_ref() == state).then_some(computed)
    }

    /// The cached result for `key` (marked as from the cache) and the state of the files
    /// it was made from.
    fn cached_entry(&self, key: &CacheKey) -> Option<(Option<[u8; 32]>, Computed)> {
        let entry = self.map_cache.iter().find(|e| e.key == *key)?;
        let computed = entry.computed.as_ref().map(hit).map_err(Clone::clone);
        Some((entry.state, computed))
    }

    /// Keeps a computation for the cache (bounded to [`MAP_CACHE_ENTRIES`] results and
    /// [`MAP_CACHE_REPORT_ENTRIES`] ranked entries).
    fn remember(&mut self, key: CacheKey, state: Option<[u8; 32]>, computed: &Computed) {
        self.map_processing_time = report_of(computed).map_or(Duration::ZERO, |r| r.elapsed);
        self.last_map = computed.as_ref().ok().cloned();
        self.map_cache.retain(|e| e.key != key);
        let computed = computed.clone();
        self.map_cache.push_back(Cached {
            key,
            state,
            computed,
        });
        let size = |c: &Computed| report_of(c).map_or(0, |r| r.entries.len());
        let mut held: usize = self.map_cache.iter().map(|e| size(&e.computed)).sum();
        while self.map_cache.len() > 1
            && (self.map_cache.len() > MAP_CACHE_ENTRIES || held > MAP_CACHE_REPORT_ENTRIES)
        {
            if let Some(gone) = self.map_cache.pop_front() {
                held -= size(&gone.computed);
            }
        }
    }
}

/// blake3 of `sorted` (in that order), each path's bytes followed by a NUL.
fn digest(sorted: &[&PathBuf]) -> [u8; 32] {
    // One buffer hashed once: blake3 costs more per `update` than per byte of a path.
    let mut bytes = Vec::with_capacity(sorted.iter().map(|f| f.as_os_str().len() + 1).sum());
    for f in sorted {
        bytes.extend_from_slice(f.as_os_str().as_encoded_bytes());
        bytes.push(0);
    }
    *blake3::hash(&bytes).as_bytes()
}

/// `request` with its chat files taken out of its other files (a copy only when some are
/// there): a chat file is never an other file (behaviour.md §2.2), as in Aider, whose other files
/// are all files less the chat files. The command and the server both pass every file of
/// the walk; left in, an untagged chat file was a stage-3 entry counted by the budget
/// search (soak case 7-1660), and a request whose files were all in the chat printed a
/// blank map where Aider gives none (soak cases 7-6779, 7-7169, 7-7691).
fn without_chat_candidates(request: &MapRequest) -> Cow<'_, MapRequest> {
    if request.chat_files.is_empty() {
        return Cow::Borrowed(request);
    }
    let chat = ChatSet::new(&request.chat_files);
    if !request.other_files.iter().any(|f| chat.contains(f)) {
        return Cow::Borrowed(request);
    }
    // Each field but the other files cloned (`..request.clone()` copied them all again).
    Cow::Owned(MapRequest {
        chat_files: request.chat_files.clone(),
        other_files: (request.other_files.iter())
            .filter(|f| !chat.contains(f))
            .cloned()
            .collect(),
        mentioned_files: request.mentioned_files.clone(),
        mentioned_idents: request.mentioned_idents.clone(),
        message: request.message.clone(),
        anchors: request.anchors.clone(),
        force_refresh: request.force_refresh,
        history: request.history.clone(),
    })
}

/// A request's chat files, to find among its other files (every file of the repository,
/// on each call of a server): equal paths have equal file names, so a path is hashed
/// whole only when its name is a chat file's.
struct ChatSet<'c> {
    names: HashSet<Option<&'c OsStr>, FxBuildHasher>,
    paths: HashSet<&'c PathBuf>,
}

impl<'c> ChatSet<'c> {
    fn new(chat: &'c [PathBuf]) -> Self {
        ChatSet {
            names: chat.iter().map(|c| c.file_name()).collect(),
            paths: chat.iter().collect(),
        }
    }

    fn contains(&self, f: &PathBuf) -> bool {
        self.names.contains(&f.file_name()) && self.paths.contains(f)
    }
}

/// Files [`take_out`] took out of a list: each with its place in it, in order.
pub(crate) type Taken = Vec<(usize, PathBuf)>;

/// Takes the `chat` files out of `files`, in place, with where they were: a request that
/// owns its other files then needs no copy of them without its chat files
/// ([`without_chat_candidates`]), and gives them back whole ([`put_back`]). One pass,
/// however many chat files there are (a request may put every file in the chat); none
/// when there are no chat files.
pub(crate) fn take_out(files: &mut Vec<PathBuf>, chat: &[PathBuf]) -> Taken {
    let mut taken = Taken::new();
    if chat.is_empty() {
        return taken;
    }
    let set = ChatSet::new(chat);
    let mut at = 0;
    files.retain_mut(|f| {
        let keep = !set.contains(f);
        if !keep {
            taken.push((at, std::mem::take(f)));
        }
        at += 1;
        keep
    });
    taken
}

/// `files` with what [`take_out`] took out of them back in place, in one pass.
pub(crate) fn put_back(files: Vec<PathBuf>, taken: Taken) -> Vec<PathBuf> {
    if taken.is_empty() {
        return files;
    }
    let mut whole = Vec::with_capacity(files.len() + taken.len());
    let mut rest = files.into_iter();
    for (at, f) in taken {
        // The files that were before it, then it (its place, if the list is that long).
        let before = at.saturating_sub(whole.len());
        whole.extend(rest.by_ref().take(before));
        whole.push(f);
    }
    whole.extend(rest);
    whole
}

/// A result as the cache gives it back.
fn hit(out: &MapOutput) -> MapOutput {
    MapOutput {
        from_cache: true,
        ..out.clone()
    }
}

fn report_of(computed: &Computed) -> Option<&Arc<MapReport>> {
    match computed {
        Ok(out) => Some(&out.report),
        Err(NoMap::NothingFits { report, .. }) => Some(report),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{CacheLocation, Tokenizer, list_files};
    use std::path::Path;

    fn session(root: &Path, warm: bool) -> RepoMap {
        let mut config = Config::new(root);
        config.cache = CacheLocation::Memory;
        config.warm_session = warm;
        RepoMap::new(config)
    }

    fn request(root: &Path) -> MapRequest {
        MapRequest::new(list_files(root, None)).with_chat_files(vec![root.join("app.py")])
    }

    #[test]
    fn a_session_reads_the_pack_ahead_only_when_asked_and_until_its_first_scan() {
        let dir = tempfile::tempdir().unwrap();
        shop(dir.path());
        let mut config = Config::new(dir.path());
        config.cache = CacheLocation::Dir(dir.path().join(".cache"));
        assert!(
            RepoMap::new(config.clone()).ahead.is_none(),
            "off by default"
        );
        config.read_ahead = true;
        let mut map = RepoMap::new(config);
        assert!(map.ahead.is_some());
        map.map(&request(dir.path())).unwrap();
        assert!(map.ahead.is_none(), "the first scan took it");
    }

    /// A request's chat files come out of its other files (every copy; a chat file not
    /// listed, or one differing only in a `.` component, found as `Path` finds it) and go
    /// back where they were.
    #[test]
    fn chat_files_taken_out_of_the_other_files_go_back_in_place() {
        let paths = |names: &[&str]| -> Vec<PathBuf> {
            names.iter().map(|n| Path::new("/r").join(n)).collect()
        };
        let other = paths(&["a.py", "b/a.py", "b/c.py", "d.py", "e/c.py", "a.py"]);
        let mut files = other.clone();
        let taken = take_out(&mut files, &paths(&["b/./c.py", "a.py", "x.py"]));
        assert_eq!(files, paths(&["b/a.py", "d.py", "e/c.py"]));
        assert_eq!(taken.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [0, 2, 5]);
        assert_eq!(put_back(files, taken), other);
        let mut none = other.clone();
        assert!(take_out(&mut none, &[]).is_empty());
        assert_eq!(none, other);
        // Every file in the chat: all taken out, all put back.
        let mut all = other.clone();
        let taken = take_out(&mut all, &other);
        assert!(all.is_empty());
        assert_eq!(taken.len(), other.len());
        assert_eq!(put_back(all, taken), other);
        // The last files taken: the rest stays in front.
        let mut tail = other.clone();
        let taken = take_out(&mut tail, &paths(&["e/c.py", "d.py"]));
        assert_eq!(taken.iter().map(|(i, _)| *i).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(put_back(tail, taken), other);
    }

    /// The answer gives its request's other files back as they were given, chat files
    /// among them included, with a message and without one.
    #[test]
    fn an_answer_gives_the_other_files_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        shop(dir.path());
        let mut map = session(dir.path(), false);
        for message in [None, Some("fix Order")] {
            let given = request(dir.path());
            let other = given.other_files.clone();
            assert!(other.contains(&given.chat_files[0]));
            let mut answer = map.answer(given, message, true);
            assert!(answer.result.is_ok());
            assert_eq!(answer.take_other_files(), other, "{message:?}");
            assert!(answer.take_other_files().is_empty(), "moved out once");
        }
    }

    /// `shop.py` (class `Order`), `util.py` (`helper_fn`) and `app.py`, which uses both.
    fn shop(root: &Path) {
        let write = |name: &str, text: &str| std::fs::write(root.join(name), text).unwrap();
        write(
            "shop.py",
            "class Order:\n    def total(self):\n        return 1\n",
        );
        write("util.py", "def helper_fn():\n    return 2\n");
        write(
            "app.py",
            "from shop import Order\nOrder().total()\nhelper_fn()\n",
        );
    }

    /// Issue 23: Aider's `auto` rule reuses the last map when it took over a second; a
    /// changed file must still invalidate it, in a warm session and a plain one alike.
    #[test]
    fn a_changed_file_invalidates_the_cached_map() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |name: &str, text: &str| std::fs::write(root.join(name), text).unwrap();
        shop(root);
        let settle =
            || std::thread::sleep(repo_mapper_tags::RACY_WINDOW + Duration::from_millis(50));
        settle();
        let mut sessions = [session(root, true), session(root, false)];
        for s in &mut sessions {
            let first = s.map(&request(root)).unwrap();
            assert!(first.text.contains("def helper_fn"), "{}", first.text);
            s.map_processing_time = Duration::from_secs(5); // as if the map took 5 s
            assert!(s.map(&request(root)).unwrap().from_cache, "nothing changed");
        }
        // Edited, then settled: only the stamps can tell.
        write(
            "shop.py",
            "class Order:\n    def total(self):\n        return 1\n    def grand_total(self):\n        return 3\n",
        );
        write("util.py", "");
        write(
            "app.py",
            "from shop import Order\nOrder().grand_total()\nhelper_fn()\n",
        );
        settle();
        for s in &mut sessions {
            s.map_processing_time = Duration::from_secs(5);
            let again = s.map(&request(root)).unwrap();
            assert!(!again.from_cache, "three files changed");
            assert!(again.text.contains("def grand_total"), "{}", again.text);
            assert!(!again.text.contains("def helper_fn"), "{}", again.text);
        }
        // Edited just now: racy, so no cached map is trusted whatever the stamps say.
        write("util.py", "def helper_fn():\n    return 2\n");
        for s in &mut sessions {
            s.map_processing_time = Duration::from_secs(5);
            let racy = s.map(&request(root)).unwrap();
            assert!(
                !racy.from_cache && racy.text.contains("def helper_fn"),
                "{}",
                racy.text
            );
        }
    }

    /// Issue 26: a run renders the files its tag scan parsed with the scopes the scan
    /// took from their trees (`ScanScopes`); a second run renders them from the scope
    /// cache on disk, parsing none of them, and shows the same map; an edited file is
    /// parsed once, by the tag scan (the map equals a fresh run's).
    #[test]
    fn a_second_run_renders_without_parsing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |name: &str, text: &str| std::fs::write(root.join(name), text).unwrap();
        shop(root);
        let run = || {
            let mut config = Config::new(root);
            config.cache = CacheLocation::Dir(root.join(".cache"));
            let mut session = RepoMap::new(config);
            let text = session.map(&request(root)).unwrap().text;
            (text, session.renderer.parses())
        };
        let (first, parsed) = run();
        assert!(
            first.contains("def total") && first.contains("def helper_fn"),
            "{first}"
        );
        assert_eq!(
            parsed, 0,
            "shop.py and util.py rendered with the scopes the scan took"
        );
        assert_eq!(run(), (first, 0));
        write("util.py", "def helper_fn(edited):\n    return 3\n");
        let (edited, parsed) = run();
        assert_eq!(parsed, 0, "util.py rendered with the scopes its scan took");
        assert!(edited.contains("def helper_fn(edited)"), "{edited}");
        let mut config = Config::new(root);
        config.cache = CacheLocation::Memory;
        let mut fresh = RepoMap::new(config);
        assert_eq!(fresh.map(&request(root)).unwrap().text, edited);
    }

    /// Issue 26: a second run of the same request over the same files takes every count
    /// from the counts the first kept (so it needs no rank map), and shows the same
    /// map; after an edit that changes the map, the request is still the one known (no
    /// file's state names it), and its new texts are counted, exactly.
    #[test]
    fn a_second_run_of_a_request_counts_nothing_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        shop(root);
        let run = || {
            let mut config = Config::new(root);
            config.cache = CacheLocation::Dir(root.join(".cache"));
            let mut session = RepoMap::new(config);
            let map = session.map(&request(root)).unwrap();
            let counts = &session.counts;
            (
                map.text,
                map.report.tokens,
                counts.fresh(),
                counts.requests(),
            )
        };
        let (first, tokens, counted, requests) = run();
        assert!(counted > 0);
        assert_eq!(requests, 1);
        assert_eq!(run(), (first.clone(), tokens, 0, 1));
        std::fs::write(
            root.join("util.py"),
            "def helper_fn(a, b, c):\n    return 3\n",
        )
        .unwrap();
        let (edited, tokens, counted, requests) = run();
        assert_ne!(edited, first);
        assert!(counted > 0, "the edited map's texts are new");
        assert_eq!(requests, 1, "the same request over files in another state");
        let exact = Tokenizer::Cl100kBase.count(&edited);
        assert_eq!(tokens, Some(exact as f64));
    }
}
