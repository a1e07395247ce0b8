//! [`RepoMap`]: the whole pipeline behind one call, with the map cache of SPEC §11.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use repo_mapper_rank::{FileTags, PageRankParams, RankConfig, RankRequest, Ranking, rank};
use repo_mapper_render::{MapItem, Renderer};
use repo_mapper_store::{
    OpenOptions, Problem, ScanOptions, ScanOutput, ScanStats, open_store, scan,
};
use repo_mapper_tags::Dialect;

use crate::budget::{Fitted, aider_search, strict_search};
use crate::config::{Config, Refresh};
use crate::guard::{Refusal, RootGuard};

/// Files with a problem warned about one by one in a computation; the rest are counted.
const PROBLEMS_SHOWN: usize = 5;

/// Progress of the tag scan, reported to [`RepoMap::set_progress`]'s callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Files scanned so far.
    pub done: usize,
    /// Files to scan.
    pub total: usize,
}

/// One entry of the ranked list, as data (for `--format json` and the parity harness).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportEntry {
    /// File, relative to the root.
    pub file: String,
    /// The identifier, for definition entries.
    pub ident: Option<String>,
    /// The definition's 1-based line, for definition entries.
    pub line: Option<i32>,
    /// Rank of the (file, identifier) for definitions; PageRank of the file for bare
    /// entries in the graph.
    pub rank: Option<f64>,
    /// `anchor`, `important`, `definition`, `graph_file` or `other_file`.
    pub stage: &'static str,
    /// Whether the entry is in the returned map (the map is a prefix of the list).
    pub in_map: bool,
}

/// What the last computation of a [`RepoMap`] produced and how.
#[derive(Debug, Clone, Default)]
pub struct MapReport {
    /// The token budget used (after the no-chat expansion of SPEC §10.3).
    pub budget: usize,
    /// The map's token count: exact in the default profile, Aider's estimate in the
    /// aider profile. `None` when there is no map.
    pub tokens: Option<f64>,
    /// Files mapped (chat and other, existing on disk).
    pub files: usize,
    /// The ranked list, every entry, in order.
    pub entries: Vec<ReportEntry>,
    /// PageRank of every file in the graph, sorted by file.
    pub file_ranks: Vec<(String, f64)>,
    /// What the tag scan did.
    pub scan: ScanStats,
    /// Time taken.
    pub elapsed: Duration,
}

type CacheKey = (
    Option<Vec<PathBuf>>,
    Option<Vec<PathBuf>>,
    usize,
    Option<Vec<String>>,
    Option<Vec<String>>,
);

type ProgressFn = Box<dyn Fn(Progress) + Send + Sync>;

/// The repo map of one repository. Keep it for a session: it holds the map cache, the
/// render caches and the set of missing files already warned about. The tag store is
/// opened for each computation and closed after it, so other processes can use it
/// between calls.
pub struct RepoMap {
    config: Config,
    renderer: Renderer,
    map_cache: HashMap<CacheKey, Option<String>>,
    last_map: Option<Option<String>>,
    map_processing_time: Duration,
    warned_files: HashSet<PathBuf>,
    progress: Option<ProgressFn>,
    report: Option<MapReport>,
}

impl std::fmt::Debug for RepoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoMap")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl RepoMap {
    /// A repo map with this configuration.
    pub fn new(config: Config) -> RepoMap {
        let renderer = Renderer::new(config.profile)
            .with_max_line_length(config.max_line_length)
            .with_limits(config.limits);
        RepoMap {
            config,
            renderer,
            map_cache: HashMap::new(),
            last_map: None,
            map_processing_time: Duration::ZERO,
            warned_files: HashSet::new(),
            progress: None,
            report: None,
        }
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Calls `f` as files are scanned (from any thread).
    pub fn set_progress(&mut self, f: impl Fn(Progress) + Send + Sync + 'static) {
        self.progress = Some(Box::new(f));
    }

    /// What the last computation produced (`None` before the first, and unchanged when a
    /// call is answered from the map cache).
    pub fn last_report(&self) -> Option<&MapReport> {
        self.report.as_ref()
    }

    /// The repo map (SPEC §10–§13): `None` when the budget is 0, there are no other files,
    /// or nothing fits.
    ///
    /// `chat_fnames` and `other_fnames` are absolute paths (chat files steer the ranking and
    /// are left out of the map); `mentioned_fnames` are paths relative to the root;
    /// `mentioned_idents` identifiers. `force_refresh` bypasses the map cache for reading
    /// only (SPEC §11).
    pub fn get_repo_map(
        &mut self,
        chat_fnames: &[PathBuf],
        other_fnames: &[PathBuf],
        mentioned_fnames: &BTreeSet<String>,
        mentioned_idents: &BTreeSet<String>,
        force_refresh: bool,
    ) -> Option<String> {
        if self.config.map_tokens == 0 || other_fnames.is_empty() {
            return None;
        }
        let mut max_map_tokens = self.config.map_tokens;
        // SPEC §10.3: a bigger map when no file is in the chat.
        if chat_fnames.is_empty()
            && let Some(window) = self.config.max_context_window
        {
            let target = (self.config.map_tokens as i64 * self.config.map_mul_no_files as i64)
                .min(window as i64 - 4096);
            if target > 0 {
                max_map_tokens = target as usize;
            }
        }
        let listing = self.ranked_tags_map(
            chat_fnames,
            other_fnames,
            max_map_tokens,
            mentioned_fnames,
            mentioned_idents,
            force_refresh,
        )?;
        if listing.is_empty() {
            return None;
        }
        let other = if chat_fnames.is_empty() { "" } else { "other " };
        let mut out = match &self.config.repo_content_prefix {
            Some(prefix) => python_format_other(prefix, other),
            None => String::new(),
        };
        out.push_str(&listing);
        Some(out)
    }

    /// SPEC §11: the map cache in front of [`Self::compute`].
    fn ranked_tags_map(
        &mut self,
        chat: &[PathBuf],
        other: &[PathBuf],
        max_map_tokens: usize,
        mentioned_fnames: &BTreeSet<String>,
        mentioned_idents: &BTreeSet<String>,
        force_refresh: bool,
    ) -> Option<String> {
        let sorted = |v: &[PathBuf]| {
            let mut v = v.to_vec();
            v.sort();
            (!v.is_empty()).then_some(v)
        };
        let strings = |s: &BTreeSet<String>| (!s.is_empty()).then(|| s.iter().cloned().collect());
        let auto = self.config.refresh == Refresh::Auto;
        let key: CacheKey = (
            sorted(chat),
            sorted(other),
            max_map_tokens,
            if auto {
                strings(mentioned_fnames)
            } else {
                None
            },
            if auto {
                strings(mentioned_idents)
            } else {
                None
            },
        );
        if !force_refresh {
            if self.config.refresh == Refresh::Manual
                && let Some(Some(last)) = &self.last_map
            {
                return Some(last.clone());
            }
            let use_cache = match self.config.refresh {
                Refresh::Always | Refresh::Manual => false,
                Refresh::Files => true,
                Refresh::Auto => self.map_processing_time > Duration::from_secs(1),
            };
            if use_cache && let Some(hit) = self.map_cache.get(&key) {
                return hit.clone();
            }
        }
        let started = Instant::now();
        let result = self.compute(
            chat,
            other,
            max_map_tokens,
            mentioned_fnames,
            mentioned_idents,
        );
        self.map_processing_time = started.elapsed();
        if let Some(report) = &mut self.report {
            report.elapsed = self.map_processing_time;
        }
        self.map_cache.insert(key, result.clone());
        self.last_map = Some(result.clone());
        result
    }

    /// Scan, rank, fit: one uncached computation.
    fn compute(
        &mut self,
        chat: &[PathBuf],
        other: &[PathBuf],
        max_map_tokens: usize,
        mentioned_fnames: &BTreeSet<String>,
        mentioned_idents: &BTreeSet<String>,
    ) -> Option<String> {
        let profile = self.config.profile;
        let root = self.config.root.clone();
        let chat_set: HashSet<&PathBuf> = chat.iter().collect();
        let mut all: Vec<&PathBuf> = chat.iter().chain(other).collect();
        all.sort();
        all.dedup();
        let num_files = all.len();

        // SPEC §13.5: skip (and warn once about) files missing at ranking time; issue 12:
        // never read a file outside the root.
        let mut guard = RootGuard::new(&root, self.config.follow_external_symlinks);
        let mut present: Vec<(PathBuf, String)> = Vec::with_capacity(all.len());
        let mut missing: HashSet<&PathBuf> = HashSet::new();
        let mut refused: HashSet<&PathBuf> = HashSet::new();
        for f in &all {
            match guard.check(f) {
                Ok(_) => present.push(((*f).clone(), rel_fname(&root, f))),
                Err(why) => {
                    if why == Refusal::NotAFile {
                        missing.insert(*f);
                    } else {
                        refused.insert(*f);
                    }
                    if self.warned_files.insert((*f).clone()) {
                        tracing::warn!("repo-map can't include {}: {why}", f.display());
                    }
                }
            }
        }

        let t_scan = Instant::now();
        let scanned = self.scan(&present, profile);
        let scan_time = t_scan.elapsed();
        self.warn_problems(&present, &scanned.problems);
        let (tags, scan_stats) = (scanned.tags, scanned.stats);

        let files: Vec<FileTags<'_>> = present
            .iter()
            .zip(&tags)
            .map(|((abs, rel), tags)| FileTags {
                rel_fname: rel.as_str(),
                tags: tags.as_slice(),
                chat: chat_set.contains(abs),
            })
            .collect();
        // Aider lists missing other files as bare entries (stage 3); the default profile
        // leaves them out: a map should not name files that do not exist (SPEC §13.5).
        // Files refused for lying outside the root are named by neither.
        let other_rel: Vec<String> = other
            .iter()
            .filter(|f| !refused.contains(f))
            .filter(|f| profile == Dialect::Aider || !missing.contains(f))
            .map(|f| rel_fname(&root, f))
            .collect();
        let chat_rel: HashSet<String> = chat.iter().map(|f| rel_fname(&root, f)).collect();
        let anchor_fnames: Vec<String> = self
            .config
            .anchor_fnames
            .iter()
            .map(|f| rel_fname(&root, f))
            .collect();
        let anchor_scoped: Vec<(String, &str)> = self
            .config
            .anchor_scoped
            .iter()
            .map(|(f, i)| (rel_fname(&root, f), i.as_str()))
            .collect();
        let request = RankRequest {
            files,
            num_files,
            other_rel_fnames: other_rel.iter().map(String::as_str).collect(),
            mentioned_fnames: mentioned_fnames.iter().map(String::as_str).collect(),
            mentioned_idents: mentioned_idents.iter().map(String::as_str).collect(),
            anchor_fnames: anchor_fnames.iter().map(String::as_str).collect(),
            anchor_idents: self
                .config
                .anchor_idents
                .iter()
                .map(String::as_str)
                .collect(),
            anchor_scoped: anchor_scoped
                .iter()
                .map(|(f, i)| (f.as_str(), *i))
                .collect(),
        };
        let rank_config = RankConfig {
            dialect: profile,
            self_edge_weight: self.config.self_edge_weight,
            pagerank: PageRankParams {
                damping: self.config.pagerank_damping,
                tol: self.config.pagerank_tol,
                max_iter: self.config.pagerank_max_iter,
            },
            anchor_weight_multiplier: self.config.anchor_weight_multiplier,
            exclude_unranked: self.config.exclude_unranked,
            ..RankConfig::with_dialect(profile)
        };
        let t_rank = Instant::now();
        let ranking = rank(&request, &rank_config);
        let rank_time = t_rank.elapsed();
        let t_fit = Instant::now();
        let fitted = fit(
            &mut self.renderer,
            profile,
            self.config.tokenizer,
            &ranking,
            &chat_rel,
            max_map_tokens,
        );

        tracing::debug!(
            scan = ?scan_time,
            rank = ?rank_time,
            fit = ?t_fit.elapsed(),
            entries = ranking.entries.len(),
            "map computed"
        );
        let included = fitted.as_ref().map_or(0, |f| f.entries);
        self.report = Some(MapReport {
            budget: max_map_tokens,
            tokens: fitted.as_ref().map(|f| f.tokens),
            files: present.len(),
            entries: report_entries(&ranking, included),
            file_ranks: {
                let mut v: Vec<(String, f64)> = ranking
                    .file_ranks
                    .iter()
                    .map(|(f, r)| ((*f).to_owned(), *r))
                    .collect();
                v.sort_by(|a, b| a.0.cmp(&b.0));
                v
            },
            scan: scan_stats,
            elapsed: Duration::ZERO,
        });
        fitted.map(|f| f.text)
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

    /// The tags of every file, from the store where unchanged.
    fn scan(&self, files: &[(PathBuf, String)], profile: Dialect) -> ScanOutput {
        let opened = open_store(&self.config.cache, &OpenOptions::default());
        let done = AtomicUsize::new(0);
        let total = files.len();
        let progress = self.progress.as_deref();
        let tick = || {
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(p) = progress {
                p(Progress { done: d, total });
            }
        };
        let opts = ScanOptions {
            dialect: profile,
            prune_under: self
                .config
                .prune_cache
                .then_some(self.config.root.as_path()),
            limits: self.config.limits,
        };
        let out = scan(&*opened.store, files, &opts, &tick);
        drop(opened);
        out
    }
}

/// SPEC §10.2: the largest prefix of the ranked list that fits the budget.
fn fit(
    renderer: &mut Renderer,
    profile: Dialect,
    tokenizer: crate::Tokenizer,
    ranking: &Ranking<'_>,
    chat_rel: &HashSet<String>,
    max_map_tokens: usize,
) -> Option<Fitted> {
    let items: Vec<MapItem<'_>> = ranking
        .entries
        .iter()
        .map(|e| match e.tag() {
            Some(tag) => MapItem::Tag(tag),
            None => MapItem::File(e.rel_fname()),
        })
        .collect();
    let render = |n: usize| renderer.to_tree(&items[..n], chat_rel);
    match profile {
        Dialect::Aider => aider_search(items.len(), max_map_tokens, render, |t| {
            tokenizer.aider_estimate(t)
        }),
        Dialect::Default => {
            strict_search(items.len(), max_map_tokens, render, |t| tokenizer.count(t))
        }
    }
}

fn report_entries(ranking: &Ranking<'_>, included: usize) -> Vec<ReportEntry> {
    ranking
        .entries
        .iter()
        .enumerate()
        .map(|(i, e)| ReportEntry {
            file: e.rel_fname().to_owned(),
            ident: e.tag().map(|t| t.name.clone()),
            line: e.tag().map(|t| t.line),
            rank: e.rank(),
            stage: e.stage.as_str(),
            in_map: i < included,
        })
        .collect()
}

/// `os.path.relpath(path, root)` for absolute paths: `..` where `path` is outside `root`.
pub(crate) fn rel_fname(root: &Path, path: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.to_string_lossy().into_owned();
    }
    let p: Vec<Component<'_>> = path.components().collect();
    let r: Vec<Component<'_>> = root.components().collect();
    let common = p.iter().zip(&r).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return path.to_string_lossy().into_owned();
    }
    let mut out = PathBuf::new();
    for _ in common..r.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out.to_string_lossy().into_owned()
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
    fn relpath_like_python() {
        let root = Path::new("/r/repo");
        assert_eq!(rel_fname(root, Path::new("/r/repo/a/b.py")), "a/b.py");
        assert_eq!(rel_fname(root, Path::new("/r/other/c.py")), "../other/c.py");
        assert_eq!(rel_fname(root, Path::new("/x.py")), "../../x.py");
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
