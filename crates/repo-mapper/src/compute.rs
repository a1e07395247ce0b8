//! One uncached computation, a step per SPEC section: admit the files (§13.5, issue 12),
//! scan their tags (§5), rank (§6–§8), fit the budget (§10), report.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use repo_mapper_rank::{
    Clues, FileTags, RankRequest, Ranking, Sources, Why, query_term_counts, rank, without_templates,
};
use repo_mapper_render::{MapItem, Renderer};
use repo_mapper_store::{
    OnParse, OpenOptions, PackAhead, Parsed, Problem, ScanOptions, ScanOutput, ScanProgress,
    scan_cached,
};
use repo_mapper_tags::{CountedTags, Dialect, source_from_bytes};

use crate::budget::{Fitted, aider_search, strict_search};
use crate::config::Config;
use crate::guard::{Refusal, RootGuard};
use crate::history::History;
use crate::map::{Computed, Progress, ProgressFn, RepoMap};
use crate::paths::{rel_fname, rel_name};
use crate::request::{
    Anchors, Attempt, MapOutput, MapReport, MapRequest, NoMap, ReportEntry, Timings,
};
use crate::warm::{Counting, Scanned, Stamp, WarmSession, Whole};
use crate::watch::Watch;

/// Files with a problem warned about one by one in a computation; the rest are counted.
const PROBLEMS_SHOWN: usize = 5;

/// The request's files sorted out: those to map, and those left out.
#[derive(Debug, Clone)]
pub(crate) struct Admitted {
    /// (absolute, relative) of every chat or other file that exists inside the root.
    pub(crate) present: Vec<(PathBuf, String)>,
    /// The `stat` of each present file, as the root guard took it.
    pub(crate) stamps: Vec<Stamp>,
    /// Files that do not exist (or are not regular files).
    pub(crate) missing: HashSet<PathBuf>,
    /// Files outside the root, or with names that are not UTF-8.
    refused: HashSet<PathBuf>,
    /// Chat and other files, counted once each.
    num_files: usize,
    /// The present files that are symlinks: their targets may change where no watch on
    /// their directories sees it, so a warm session checks them on every map.
    pub(crate) links: Vec<PathBuf>,
    /// Which of a warm session's full admissions this is (its last scan's reuse tells
    /// them apart by it); 0 outside a warm session.
    pub(crate) generation: u64,
}

impl Admitted {
    /// The state of the admitted files, `digest` ([`Admitted::stamps_digest`]), unless a
    /// stamp is racy at `now` (a file changed that recently may change again without its
    /// stamp changing). Two admissions of the same request with the same state saw the
    /// same file contents.
    pub(crate) fn state(&self, digest: [u8; 32], now: std::time::SystemTime) -> Option<[u8; 32]> {
        (!self.stamps.iter().any(|s| s.racy_at(now))).then_some(digest)
    }

    /// Where `path` is among the present files, which are in path order (a binary
    /// search: a set of paths would hash each one component by component).
    pub(crate) fn find(&self, path: &Path) -> Option<usize> {
        (self.present)
            .binary_search_by(|(abs, _)| abs.as_path().cmp(path))
            .ok()
    }

    /// Per present file: whether it is one of `chat_files`.
    fn chat_flags(&self, chat_files: &[PathBuf]) -> Vec<bool> {
        let mut flags = vec![false; self.present.len()];
        for at in chat_files.iter().filter_map(|chat| self.find(chat)) {
            flags[at] = true;
        }
        flags
    }

    /// A hash of which files are present and each one's [`Stamp`].
    pub(crate) fn stamps_digest(&self) -> [u8; 32] {
        // One buffer hashed once: blake3 costs more per `update` than per byte here.
        let mut bytes = Vec::with_capacity(self.present.len() * 96);
        for ((_, rel), stamp) in self.present.iter().zip(&self.stamps) {
            bytes.extend_from_slice(rel.as_bytes());
            bytes.push(0);
            bytes.extend_from_slice(&stamp.size.to_le_bytes());
            for (secs, nanos) in [stamp.mtime, stamp.ctime] {
                bytes.extend_from_slice(&secs.to_le_bytes());
                bytes.extend_from_slice(&nanos.to_le_bytes());
            }
            bytes.extend_from_slice(&stamp.inode.to_le_bytes());
        }
        *blake3::hash(&bytes).as_bytes()
    }
}

/// Gives `ranked` the message's terms, with their counts, its clues, and where the
/// files' text is read.
fn attach_hints<'a>(
    ranked: &mut RankRequest<'a>,
    terms: &'a [(String, u32)],
    clues: Option<&'a Clues>,
    sources: &'a DiskSources<'a>,
) {
    ranked.query = terms.iter().map(|(t, _)| t.as_str()).collect();
    ranked.query_counts = terms.iter().map(|&(_, n)| n).collect();
    ranked.clues = clues;
    ranked.sources = Some(sources);
}

/// The admitted files' text as the ranking reads it ([`Sources`]): from disk, as tag
/// extraction reads it, `None` for a file that is gone, not UTF-8 or over the size the
/// scan parses.
struct DiskSources<'a> {
    files: &'a [(PathBuf, String)],
    max_size: Option<u64>,
}

impl<'a> DiskSources<'a> {
    fn new(files: &'a [(PathBuf, String)], config: &Config) -> Self {
        DiskSources {
            files,
            max_size: config.effective_max_file_size(),
        }
    }
}

impl Sources for DiskSources<'_> {
    fn text(&self, file: usize) -> Option<String> {
        use std::io::Read;
        let (path, _) = self.files.get(file)?;
        let limit = self.max_size.unwrap_or(u64::MAX);
        let mut bytes = Vec::new();
        let opened = std::fs::File::open(path).ok()?;
        opened
            .take(limit.saturating_add(1))
            .read_to_end(&mut bytes)
            .ok()?;
        if bytes.len() as u64 > limit {
            return None;
        }
        source_from_bytes(bytes)
    }
}

/// Frees what a computation read, on a thread of its own: a one-off map's tags are
/// millions of small allocations on a large repository (about 60 ms of the Linux tree's
/// warm run), and the answer need not wait for them. Freed in place when no thread can
/// be started.
fn release<T: Send + 'static>(value: T) {
    // A spawn that fails drops its closure, and the value with it, here.
    let _ = std::thread::Builder::new()
        .name("repo-mapper-free".into())
        .spawn(move || drop(value));
}

impl RepoMap {
    /// The message's terms, each with its count, and its clues: what this profile's
    /// ranking reads of it (nothing when it reads no terms).
    fn message_hints(
        &self,
        request: &MapRequest,
        reads_terms: bool,
    ) -> (Vec<(String, u32)>, Option<Clues>) {
        let Some(message) = request.message.as_deref().filter(|_| reads_terms) else {
            return (Vec::new(), None);
        };
        let relevance = self.config.relevance();
        let message = if relevance.without_templates {
            without_templates(message)
        } else {
            Cow::Borrowed(message)
        };
        let clues = relevance.reads_clues().then(|| Clues::of(&message));
        (query_term_counts(&message), clues)
    }

    /// Scan, rank, fit: one uncached computation within `budget` tokens, of the files
    /// admitted (with how many were checked) since `started`.
    pub(crate) fn compute(
        &mut self,
        request: &MapRequest,
        budget: usize,
        (admitted, checked): (Arc<Admitted>, usize),
        (history, history_took): (Option<&History>, Duration),
        started: Instant,
    ) -> Computed {
        let admitted_at = Instant::now();
        self.renderer.start_map();
        // Only the default profile's relevance reads the terms, and only for a message.
        let reads_terms =
            self.config.dialect() == Dialect::Default && self.config.relevance().lexical();
        let words = reads_terms && request.message.is_some();
        let (scanned, store_fallback) = self.scan(&admitted, words, true);
        let store_fallback = store_fallback.or_else(|| self.untrusted.clone());
        let scanned_at = Instant::now();
        self.after_scan(&admitted, &scanned);
        let anchors = self.admit_anchors(&request.anchors);
        let admitted_names = (&*admitted, &anchors);
        let rel_names = RelNames::new(
            &self.config.root,
            request,
            admitted_names,
            self.config.dialect(),
        );
        let (terms, clues) = self.message_hints(request, reads_terms);
        let sources = DiskSources::new(&admitted.present, &self.config);
        let mut ranked = rank_request(request, &admitted, &scanned, &rel_names);
        attach_hints(&mut ranked, &terms, clues.as_ref(), &sources);
        if let Some(history) = history {
            ranked.co_change = co_change(history, &ranked.files);
        }
        ranked.list_limit = self.list_limit(budget);
        let mut ranking = self.rank(&ranked, &scanned.tags);
        let fit_started = Instant::now();
        let (mut fitted, reached) = self.fit(&ranking, &rel_names.chat, budget);
        if !ranking.complete && reached >= ranking.entries.len() {
            // The search looked at the head's last entry, where the whole list goes on:
            // its probes, and so its answer, could differ. Rank it all (the second
            // ranking's time counts as the fit's).
            ranked.list_limit = None;
            ranking = self.rank(&ranked, &scanned.tags);
            fitted = self.fit(&ranking, &rel_names.chat, budget).0;
        }
        let reporting = Instant::now();
        let full = self.config.full_report;
        let entries = report_entries(&ranking, fitted.as_ref().map_or(0, |f| f.entries), full);
        let file_ranks = if full {
            file_ranks(&ranking)
        } else {
            Vec::new()
        };
        let whys = if full {
            report_whys(&ranking, &entries)
        } else {
            Vec::new()
        };
        let timings = Timings {
            history: history_took,
            admit: admitted_at - started,
            scan: scanned_at - admitted_at,
            rank: ranking.timings,
            fit: reporting - fit_started,
            report: reporting.elapsed(),
        };
        tracing::debug!(?timings, entries = ranking.entries.len(), "map computed");
        let report = Arc::new(MapReport {
            budget,
            tokens: fitted.as_ref().map(|f| f.tokens),
            files: admitted.present.len(),
            checked,
            entries,
            file_ranks,
            whys,
            scan: scanned.stats,
            store_fallback,
            elapsed: history_took + started.elapsed(),
            timings,
        });
        let computed = match fitted {
            Some(f) if !f.text.is_empty() => Ok(MapOutput {
                text: self.with_prefix(&f.text, request.chat_files.is_empty()),
                report,
                from_cache: false,
                attempt: Attempt::Requested,
            }),
            _ => Err(NoMap::NothingFits { budget, report }),
        };
        drop((ranking, ranked));
        self.free_after(scanned);
        computed
    }

    /// Frees what a computation leaves: the scopes the scan took for the render, and,
    /// off the answer's path ([`release`]), the scan's tags (unless a warm session keeps
    /// them).
    fn free_after(&mut self, scanned: Scanned) {
        self.scan_scopes.clear();
        if self.warm.is_none() {
            release(scanned);
        }
    }

    /// What a scan's outcome calls for: a warning per problem.
    fn after_scan(&mut self, admitted: &Admitted, scanned: &Scanned) {
        self.warn_problems(&admitted.present, &scanned.problems);
        self.warn_too_large(scanned.stats.too_large);
    }

    /// behaviour.md §6–§8, in a warm session with its kept tag index.
    fn rank<'a>(&mut self, request: &RankRequest<'a>, tags: &[Arc<CountedTags>]) -> Ranking<'a> {
        let config = self.config.rank_config();
        match &mut self.warm {
            Some(warm) => warm.rank(request, tags, &config),
            None => rank(request, &config),
        }
    }

    /// behaviour.md §13.5 and issue 12: every chat and other file passes the root guard (in
    /// parallel); missing and refused files are warned about once per session. A warm
    /// session checks again only the files a file-system watch saw change since its last
    /// admission of the same files ([`Watch`]).
    /// `all` is every file of the request ([`sorted_union`]). Returns the admission and
    /// how many files were checked for it.
    pub(crate) fn admit(&mut self, all: &[&PathBuf]) -> (Arc<Admitted>, usize) {
        let Some(warm) = &mut self.warm else {
            return (Arc::new(self.admit_all(all, 0)), all.len());
        };
        if let Some(kept) = warm.admission(all, &self.config) {
            return kept;
        }
        let generation = self.next_generation();
        // Watch first: a change after a file's `stat` is then always queued.
        let watch = Watch::over(&self.config.root, all.iter().map(|p| p.as_path()));
        let admitted = Arc::new(self.admit_all(all, generation));
        if let Some(warm) = &mut self.warm {
            warm.keep_admission(all, &admitted, watch);
        }
        (admitted, all.len())
    }

    /// The anchors whose files pass the root guard, as chat files do: an anchor file (or
    /// `FILE:IDENT`) outside the root, or no longer a file, is left out with a warning
    /// (once per session), so the map never names a file outside the root (issue 23).
    fn admit_anchors(&mut self, anchors: &Anchors) -> Anchors {
        if anchors.files.is_empty() && anchors.scoped.is_empty() {
            return anchors.clone();
        }
        let mut guard = RootGuard::new(&self.config.root, self.config.follow_external_symlinks);
        let scoped = anchors.scoped.iter().map(|(f, _)| f.as_path());
        guard.resolve_dirs(anchors.files.iter().map(|f| f.as_path()).chain(scoped));
        let mut admit = |f: &PathBuf| match guard.check(f) {
            Ok(_) => true,
            Err(why) => {
                if self.warned_files.insert(f.clone()) {
                    tracing::warn!("repo-map can't include {}: {why}", f.display());
                }
                false
            }
        };
        let mut admitted = anchors.clone();
        admitted.files.retain(|f| admit(f));
        admitted.scoped.retain(|(f, _)| admit(f));
        admitted
    }

    /// A new full admission's generation (a warm session counts them; else 0).
    pub(crate) fn next_generation(&mut self) -> u64 {
        self.warm.as_mut().map_or(0, WarmSession::next_generation)
    }

    /// Every file of `all` through the root guard: a full admission (`generation`).
    pub(crate) fn admit_all(&mut self, all: &[&PathBuf], generation: u64) -> Admitted {
        let root = &self.config.root;
        let mut guard = RootGuard::new(root, self.config.follow_external_symlinks);
        guard.resolve_dirs(all.iter().map(|p| p.as_path()));
        let verdicts: Vec<Result<(String, Stamp, bool), Refusal>> = all
            .par_iter()
            .map(|f| {
                let (meta, link) = guard.check(f)?;
                Ok((rel_fname(root, f), Stamp::of(&meta), link))
            })
            .collect();
        let mut admitted = Admitted {
            present: Vec::with_capacity(all.len()),
            stamps: Vec::with_capacity(all.len()),
            missing: HashSet::new(),
            refused: HashSet::new(),
            num_files: all.len(),
            links: Vec::new(),
            generation,
        };
        for (&f, verdict) in all.iter().zip(verdicts) {
            let why = match verdict {
                Ok((rel, stamp, link)) => {
                    admitted.present.push((f.clone(), rel));
                    admitted.stamps.push(stamp);
                    if link {
                        admitted.links.push(f.clone());
                    }
                    continue;
                }
                Err(why) => why,
            };
            if why == Refusal::NotAFile {
                admitted.missing.insert(f.clone());
            } else {
                admitted.refused.insert(f.clone());
            }
            if self.warned_files.insert(f.clone()) {
                tracing::warn!("repo-map can't include {}: {why}", f.display());
            }
        }
        admitted
    }

    /// behaviour.md §5: the tags of every file, from the store where unchanged (in a warm session,
    /// from memory where the stat is unchanged), and why the store is in memory if it fell
    /// back. With `render`, the scopes of the files parsed now go to
    /// [`ScanScopes`](crate::scope_cache::ScanScopes) for the render that follows.
    pub(crate) fn scan(
        &mut self,
        admitted: &Admitted,
        words: bool,
        render: bool,
    ) -> (Scanned, Option<repo_mapper_store::StoreFallback>) {
        // Read ahead for the first scan only (taken or not, it is dropped after).
        let ahead = self.ahead.take();
        let ahead = ahead.as_ref();
        let (config, progress) = (&self.config, self.progress.as_ref());
        let take_scopes = |parsed: Parsed<'_>| self.scan_scopes.take_from(parsed);
        let on_parse = render.then_some(OnParse(&take_scopes));
        // A warm session keeps the tags for later maps, which may read the words.
        let skip_words = !words && self.warm.is_none();
        let Some(warm) = &mut self.warm else {
            let whole = Whole {
                list: true,
                prune: config.prune_cache,
            };
            // The root guard has just stat'ed every file: the scan need not again.
            let stamps = Some(&admitted.stamps[..]);
            let (out, fallback) = scan_store(
                (config, progress),
                (&admitted.present, stamps),
                (whole, skip_words),
                (ahead, on_parse),
            );
            return (out.into(), fallback);
        };
        let mut read = |files: &[(PathBuf, String)], whole| {
            let how = (whole, skip_words);
            scan_store((config, progress), (files, None), how, (ahead, on_parse))
        };
        let counting = Counting {
            dialect: config.dialect(),
            max_file_size: config.effective_max_file_size(),
        };
        warm.scan(admitted, &counting, config.prune_cache, &mut read)
    }

    /// One warning per file with a problem, once per session; past
    /// [`PROBLEMS_SHOWN`] new ones, a count instead (all of them at debug level).
    fn warn_problems(&mut self, files: &[(PathBuf, String)], problems: &[(usize, Problem)]) {
        let unseen: Vec<&(usize, Problem)> = problems
            .iter()
            .filter(|(i, _)| self.warned_files.insert(files[*i].0.clone()))
            .collect();
        // A summary line only when it saves at least two lines.
        let shown = if unseen.len() <= PROBLEMS_SHOWN + 1 {
            unseen.len()
        } else {
            PROBLEMS_SHOWN
        };
        for (n, (i, problem)) in unseen.iter().enumerate() {
            let rel = &files[*i].1;
            if n < shown {
                tracing::warn!("{rel} {problem}");
            } else {
                tracing::debug!("{rel} {problem}");
            }
        }
        let more = unseen.len() - shown;
        if more > 0 {
            tracing::warn!(
                "{more} more files have no tags or fewer than they hold (-v lists them)"
            );
        }
    }

    /// One warning per session when files were too large to parse (their names at debug
    /// level from the scan would be 80 lines on the Linux tree: the count says enough).
    fn warn_too_large(&mut self, count: usize) {
        let Some(limit) = self.config.effective_max_file_size() else {
            return;
        };
        if count == 0 || std::mem::replace(&mut self.warned_too_large, true) {
            return;
        }
        let files = if count == 1 { "file" } else { "files" };
        tracing::warn!(
            "{count} {files} larger than {} not parsed (--max-filesize raises the limit)",
            human_size(limit)
        );
    }

    /// How many definitions the ranking need list for a map of `budget` tokens: `None`
    /// (all) unless the default profile's search reads only the list's head and no
    /// report asks for the whole list. A map rarely holds more than one entry per token;
    /// the search probes at most twice what fits, and `compute` ranks again in full when
    /// it looks at the head's last entry.
    fn list_limit(&self, budget: usize) -> Option<usize> {
        let head_only = self.config.dialect() == Dialect::Default && !self.config.full_report;
        head_only.then(|| budget.saturating_mul(2).saturating_add(64))
    }

    /// behaviour.md §10.2: the largest prefix of the ranked list that fits the budget, and
    /// how far into the list the search looked.
    fn fit(
        &mut self,
        ranking: &Ranking<'_>,
        chat_rel: &HashSet<String>,
        budget: usize,
    ) -> (Option<Fitted>, usize) {
        let entries = &ranking.entries;
        // Converted as far as the search reaches (a million entries on the Linux tree).
        let mut items: Vec<MapItem<'_>> = Vec::new();
        let counts = &mut self.counts;
        let renderer: &mut Renderer = &mut self.renderer;
        let render = |n: usize| {
            let more = entries[items.len().min(n)..n]
                .iter()
                .map(|e| match e.tag() {
                    Some(tag) => MapItem::Tag(tag),
                    None => MapItem::File(e.rel_fname()),
                });
            items.extend(more);
            renderer.to_tree(&items[..n], chat_rel)
        };
        let n = entries.len();
        let fitted = match self.config.dialect() {
            Dialect::Aider => aider_search(n, budget, render, |t| counts.aider_estimate(t)),
            Dialect::Default => strict_search(n, budget, render, |t| counts.count(t)),
        };
        (fitted, items.len())
    }

    /// The map behind the configured prefix (`{other}` → `"other "` when there are chat
    /// files).
    fn with_prefix(&self, listing: &str, no_chat_files: bool) -> String {
        let other = if no_chat_files { "" } else { "other " };
        let mut out = match &self.config.repo_content_prefix {
            Some(prefix) => python_format_other(prefix, other),
            None => String::new(),
        };
        out.push_str(listing);
        out
    }
}

/// `chat` and `other` together, sorted and without repeats (a walk's list is sorted
/// already: then only the few chat files are placed, and no path is compared more than
/// once or twice).
pub(crate) fn sorted_union<'p>(chat: &'p [PathBuf], other: &'p [PathBuf]) -> Vec<&'p PathBuf> {
    let mut all: Vec<&PathBuf> = other.iter().collect();
    crate::paths::sort_paths(&mut all).dedup(&mut all);
    for c in chat {
        if let Err(at) = all.binary_search(&c) {
            all.insert(at, c);
        }
    }
    all
}

/// Per file of `files`: its commits shared with the chat files ([`History::co_change`]).
fn co_change(history: &History, files: &[FileTags<'_>]) -> Vec<f64> {
    let chat: Vec<&str> = files
        .iter()
        .filter(|f| f.chat)
        .map(|f| f.rel_fname)
        .collect();
    let names: Vec<&str> = files.iter().map(|f| f.rel_fname).collect();
    history.co_change(&chat, &names)
}

/// The store's scan of `files` (through the root's pack when they are every admitted
/// file; sled opened only if needed, closed after), pruning the records of other files
/// under the root when the list is the whole repository's; with their `stamps` when the
/// root guard has just read them; stored files' code words left unread if `skip_words`
/// (nothing will read them); the root's pack taken from `ahead` if it read it; each file
/// parsed shown to `on_parse`.
fn scan_store(
    (config, progress): (&Config, Option<&ProgressFn>),
    (files, stamps): (&[(PathBuf, String)], Option<&[Stamp]>),
    (whole, skip_words): (Whole, bool),
    (ahead, on_parse): (Option<&PackAhead>, Option<OnParse<'_>>),
) -> (ScanOutput, Option<repo_mapper_store::StoreFallback>) {
    let tick = |p: ScanProgress| {
        if let Some(progress) = progress {
            progress(Progress {
                done: p.read,
                total: p.to_read,
            });
        }
    };
    let options = ScanOptions {
        dialect: config.dialect(),
        pack_root: whole.list.then_some(config.root.as_path()),
        prune_under: whole.prune.then_some(config.root.as_path()),
        limits: config.limits,
        max_file_size: config.effective_max_file_size(),
        stamps,
        skip_words,
        ahead,
        on_parse,
    };
    scan_cached(
        &config.cache,
        &OpenOptions::default(),
        files,
        &options,
        &tick,
    )
}

/// The request's paths relative to the root, as the ranking takes them.
struct RelNames<'r> {
    /// Borrowed from the request's paths where they are plain (no copy of every name).
    other: Vec<Cow<'r, str>>,
    chat: HashSet<String>,
    anchor_files: Vec<String>,
    anchor_scoped: Vec<(String, String)>,
}

impl<'r> RelNames<'r> {
    fn new(
        root: &Path,
        request: &'r MapRequest,
        (admitted, anchors): (&Admitted, &Anchors),
        profile: Dialect,
    ) -> RelNames<'r> {
        // Aider lists missing other files as bare entries (stage 3); the default profile
        // leaves them out: a map should not name files that do not exist (behaviour.md §13.5).
        // Files refused for lying outside the root are named by neither. Chat files are
        // no longer among the other files (`map.rs`'s `without_chat_candidates`).
        let other = request
            .other_files
            .iter()
            .filter(|f| !admitted.refused.contains(*f))
            .filter(|f| profile == Dialect::Aider || !admitted.missing.contains(*f))
            .map(|f| rel_name(root, f))
            .collect();
        RelNames {
            other,
            chat: request
                .chat_files
                .iter()
                .map(|f| rel_fname(root, f))
                .collect(),
            anchor_files: anchors.files.iter().map(|f| rel_fname(root, f)).collect(),
            anchor_scoped: anchors
                .scoped
                .iter()
                .map(|(f, i)| (rel_fname(root, f), i.clone()))
                .collect(),
        }
    }
}

/// behaviour.md §6–§8's input: the files with their tags, the mentions and the anchors.
fn rank_request<'a>(
    request: &'a MapRequest,
    admitted: &'a Admitted,
    scanned: &'a Scanned,
    rel: &'a RelNames<'a>,
) -> RankRequest<'a> {
    let chat = admitted.chat_flags(&request.chat_files);
    let files = (admitted.present.iter().zip(&scanned.tags).zip(chat))
        .map(|(((_, rel), tags), chat)| FileTags::counted(rel, tags).with_chat(chat))
        .collect();
    let strs = |v: &'a [String]| v.iter().map(String::as_str).collect();
    let mut ranked = RankRequest::new(files, admitted.num_files);
    ranked.other_rel_fnames = rel.other.iter().map(|o| o.as_ref()).collect();
    ranked.mentioned_fnames = request.mentioned_files.iter().map(String::as_str).collect();
    ranked.mentioned_idents = request
        .mentioned_idents
        .iter()
        .map(String::as_str)
        .collect();
    ranked.anchor_fnames = strs(&rel.anchor_files);
    ranked.anchor_idents = request.anchors.idents.iter().map(String::as_str).collect();
    ranked.anchor_scoped = rel
        .anchor_scoped
        .iter()
        .map(|(f, i)| (f.as_str(), i.as_str()))
        .collect();
    ranked
}

/// One report entry per ranked entry (a million on the Linux tree: built in parallel).
/// The ranked list as data: every entry, or with `full` unset only the `included` ones
/// (the map's prefix).
fn report_entries(ranking: &Ranking<'_>, included: usize, full: bool) -> Vec<ReportEntry> {
    let reported = if full {
        &ranking.entries[..]
    } else {
        &ranking.entries[..included.min(ranking.entries.len())]
    };
    reported
        .par_iter()
        .enumerate()
        .map(|(i, e)| ReportEntry {
            file: e.rel_fname().to_owned(),
            ident: e.tag().map(|t| t.name.clone()),
            line: e.tag().map(|t| t.line),
            rank: e.rank(),
            stage: e.stage,
            in_map: i < included,
        })
        .collect()
}

/// [`MapReport::whys`]: the ranking's signals for each file of the reported entries
/// that has one, sorted by file.
fn report_whys(ranking: &Ranking<'_>, entries: &[ReportEntry]) -> Vec<(String, Why)> {
    let files: HashSet<&str> = entries.iter().map(|e| e.file.as_str()).collect();
    let mut whys: Vec<(String, Why)> = (ranking.whys())
        .filter(|(f, _)| files.contains(f))
        .map(|(f, why)| (f.to_owned(), why))
        .collect();
    whys.sort_by(|a, b| a.0.cmp(&b.0));
    whys
}

fn file_ranks(ranking: &Ranking<'_>) -> Vec<(String, f64)> {
    let mut ranks: Vec<(String, f64)> = ranking
        .file_ranks
        .iter()
        .map(|(f, r)| ((*f).to_owned(), *r))
        .collect();
    ranks.sort_by(|a, b| a.0.cmp(&b.0));
    ranks
}

/// `1 MiB`, `512 KiB`, `1000 bytes`: a size as a person reads it (the map's warnings, and
/// `show`'s and `outline`'s about the same limit).
pub(crate) fn human_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if bytes >= unit && bytes.is_multiple_of(unit) {
            return format!("{} {name}", bytes / unit);
        }
    }
    format!("{bytes} bytes")
}

/// Python's `prefix.format(other=…)` for the one field Aider passes: `{other}` is
/// replaced, `{{` and `}}` become single braces.
fn python_format_other(prefix: &str, other: &str) -> String {
    prefix
        .replace("{{", "\u{0}")
        .replace("}}", "\u{1}")
        .replace("{other}", other)
        .replace('\u{0}', "{")
        .replace('\u{1}', "}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(1 << 20), "1 MiB");
        assert_eq!(human_size(512 << 10), "512 KiB");
        assert_eq!(human_size(3 << 30), "3 GiB");
        assert_eq!(human_size(1000), "1000 bytes");
    }

    #[test]
    fn prefix_formatting() {
        assert_eq!(
            python_format_other("Here are {other}files:\n", "other "),
            "Here are other files:\n"
        );
        assert_eq!(python_format_other("{{literal}} {other}", ""), "{literal} ");
    }
}
