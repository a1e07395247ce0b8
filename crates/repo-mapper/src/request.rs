//! What one map is asked for ([`MapRequest`]) and what comes back ([`MapOutput`] or
//! [`NoMap`], each with its [`MapReport`]).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use repo_mapper_rank::{RankTimings, Stage};
use repo_mapper_store::{ScanStats, StoreFallback};

use crate::history::History;

/// One map's input: the files, what the conversation mentions, and the anchors.
///
/// ```
/// use std::path::PathBuf;
/// use repo_mapper::MapRequest;
///
/// let files = vec![PathBuf::from("/r/a.py"), PathBuf::from("/r/b.py")];
/// let request = MapRequest::new(files)
///     .with_chat_files(vec![PathBuf::from("/r/a.py")])
///     .with_mentioned_idents(["Order".to_owned()]);
/// assert_eq!(request.chat_files.len(), 1);
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct MapRequest {
    /// Absolute paths of the files being edited: they steer the ranking and are left out
    /// of the map.
    pub chat_files: Vec<PathBuf>,
    /// Absolute paths of the repository's other files: the candidates for the map. Empty →
    /// [`NoMap::NoFiles`].
    pub other_files: Vec<PathBuf>,
    /// Files mentioned in the conversation, relative to the root.
    pub mentioned_files: BTreeSet<String>,
    /// Identifiers mentioned in the conversation.
    pub mentioned_idents: BTreeSet<String>,
    /// The user's message. The default profile reads its words against each file's path
    /// and definitions ([`Relevance`](repo_mapper_rank::Relevance)); the `spec` and
    /// `aider` profiles ignore it (derive mentions with [`RepoMap::mentions`](crate::RepoMap::mentions)).
    pub message: Option<String>,
    /// Files and identifiers the ranking must start from (behaviour.md §7.1a–b).
    pub anchors: Anchors,
    /// Bypass the map cache for reading (behaviour.md §11); the result is still cached.
    pub force_refresh: bool,
    /// Which files changed together in the repository's recent commits: the default
    /// profile orders files by their commits shared with the chat files. `None`: the
    /// session reads it from git when [`Config::history`](crate::Config::history) is on.
    pub history: Option<Arc<History>>,
}

impl MapRequest {
    /// A request to map `other_files`, with no chat files, mentions or anchors.
    pub fn new(other_files: Vec<PathBuf>) -> MapRequest {
        MapRequest {
            other_files,
            ..MapRequest::default()
        }
    }

    /// With these chat files.
    pub fn with_chat_files(mut self, chat_files: Vec<PathBuf>) -> MapRequest {
        self.chat_files = chat_files;
        self
    }

    /// With these mentioned files (relative to the root).
    pub fn with_mentioned_files(mut self, files: impl IntoIterator<Item = String>) -> MapRequest {
        self.mentioned_files = files.into_iter().collect();
        self
    }

    /// With these mentioned identifiers.
    pub fn with_mentioned_idents(mut self, idents: impl IntoIterator<Item = String>) -> MapRequest {
        self.mentioned_idents = idents.into_iter().collect();
        self
    }

    /// With this user message.
    pub fn with_message(mut self, message: impl Into<String>) -> MapRequest {
        self.message = Some(message.into());
        self
    }

    /// With these anchors.
    pub fn with_anchors(mut self, anchors: Anchors) -> MapRequest {
        self.anchors = anchors;
        self
    }

    /// Bypassing the map cache for reading, or not.
    pub fn with_force_refresh(mut self, force_refresh: bool) -> MapRequest {
        self.force_refresh = force_refresh;
        self
    }

    /// With this history (instead of the one the session would read).
    pub fn with_history(mut self, history: Arc<History>) -> MapRequest {
        self.history = Some(history);
        self
    }
}

/// Where the ranking must start, whatever the chat files (behaviour.md §7.1a–b): anchor files are
/// restart seeds and always shown; identifiers make their defining files seeds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Anchors {
    /// Absolute paths of files to seed from and always show.
    pub files: Vec<PathBuf>,
    /// Identifiers whose defining files are seeds.
    pub idents: BTreeSet<String>,
    /// (absolute file, identifier) pairs: the file is a seed, the identifier's edges are
    /// boosted.
    pub scoped: Vec<(PathBuf, String)>,
}

impl Anchors {
    /// No anchors.
    pub fn new() -> Anchors {
        Anchors::default()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.idents.is_empty() && self.scoped.is_empty()
    }

    /// behaviour.md §17.4: each value is `FILE:IDENT` if FILE exists, else `FILE` if it exists,
    /// else an identifier. Files are tried as given (absolute, or relative to `cwd`) and
    /// relative to `root`.
    ///
    /// ```
    /// use repo_mapper::Anchors;
    ///
    /// let root = std::env::temp_dir();
    /// let anchors = Anchors::resolve(&["NoSuchFile.py:Order".to_owned()], &root, &root);
    /// assert!(anchors.idents.contains("NoSuchFile.py:Order"));
    /// ```
    pub fn resolve(values: &[String], root: &Path, cwd: &Path) -> Anchors {
        let existing = |s: &str| -> Option<PathBuf> {
            let p = Path::new(s);
            [cwd.join(p), root.join(p)]
                .into_iter()
                .find(|c| c.is_file())
        };
        let mut anchors = Anchors::new();
        for value in values {
            if let Some((file, ident)) = value.rsplit_once(':')
                && !ident.is_empty()
                && let Some(path) = existing(file)
            {
                anchors.scoped.push((path, ident.to_owned()));
            } else if let Some(path) = existing(value) {
                anchors.files.push(path);
            } else {
                anchors.idents.insert(value.clone());
            }
        }
        anchors
    }
}

/// A map and how it was made.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct MapOutput {
    /// The map, with [`Config::repo_content_prefix`](crate::Config::repo_content_prefix)
    /// in front if one is set.
    pub text: String,
    /// What the computation that produced it did (shared with the map cache).
    pub report: Arc<MapReport>,
    /// Whether the map came from the map cache (then `report` is that of the computation
    /// that made it).
    pub from_cache: bool,
    /// Which attempt of Aider's fallback chain produced it ([`RepoMap::map_with_fallback`](crate::RepoMap::map_with_fallback));
    /// [`Attempt::Requested`] from [`RepoMap::map`](crate::RepoMap::map).
    pub attempt: Attempt,
}

/// The attempts of Aider's progressive fallback (`Coder.get_repo_map`), in order: each runs
/// only when the one before produced no map.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Attempt {
    /// 1: the request as made (chat files, other files, mentions).
    #[default]
    Requested,
    /// 2: no chat files, every file a candidate, mentions and anchors kept.
    NoChatFiles,
    /// 3: no chat files, no mentions, no anchors.
    Unhinted,
}

impl Attempt {
    /// The attempt's number, 1–3.
    pub fn number(self) -> u8 {
        match self {
            Attempt::Requested => 1,
            Attempt::NoChatFiles => 2,
            Attempt::Unhinted => 3,
        }
    }
}

/// Why there is no map.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum NoMap {
    /// The token budget is 0.
    ZeroBudget,
    /// The request has no other files, or only chat files among them.
    NoFiles,
    /// Nothing fits in the budget, or no file has anything to show.
    NothingFits {
        /// The budget used (after the no-chat expansion of behaviour.md §10.3).
        budget: usize,
        /// What the computation did.
        report: Arc<MapReport>,
    },
}

impl NoMap {
    /// The report of the computation, when there was one.
    pub fn report(&self) -> Option<&MapReport> {
        match self {
            NoMap::NothingFits { report, .. } => Some(report),
            NoMap::ZeroBudget | NoMap::NoFiles => None,
        }
    }
}

impl std::fmt::Display for NoMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoMap::ZeroBudget => f.write_str("the token budget is 0"),
            NoMap::NoFiles => f.write_str("no files to map"),
            NoMap::NothingFits { budget, .. } => write!(
                f,
                "nothing fits in {budget} tokens, or no file has anything to show"
            ),
        }
    }
}

impl std::error::Error for NoMap {}

/// What one computation produced and how.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct MapReport {
    /// The token budget used (after the no-chat expansion of behaviour.md §10.3).
    pub budget: usize,
    /// The map's token count: exact in the default profile, Aider's estimate in the
    /// aider profile. `None` when there is no map.
    pub tokens: Option<f64>,
    /// Files mapped (chat and other, existing on disk and inside the root).
    pub files: usize,
    /// The ranked list, every entry, in order (only those in the map without
    /// [`Config::full_report`](crate::Config::full_report)).
    pub entries: Vec<ReportEntry>,
    /// PageRank of every file in the graph, sorted by file (none without
    /// [`Config::full_report`](crate::Config::full_report)).
    pub file_ranks: Vec<(String, f64)>,
    /// Why the default profile placed the files of `entries`: the signals it read of
    /// each ([`Why`](crate::Why)), sorted by file (none without
    /// [`Config::full_report`](crate::Config::full_report)); a file none of them points
    /// at is not here, nor any file in the `spec` and `aider` profiles.
    pub whys: Vec<(String, crate::Why)>,
    /// Files checked against the root for this map (an `lstat` each): all of them, or in a
    /// warm session whose file-system watch holds, only those it saw change since the last
    /// map of the same files (see [`Config::warm_session`](crate::Config::warm_session)).
    pub checked: usize,
    /// What the tag scan did.
    pub scan: ScanStats,
    /// Why the tag store was kept in memory although a directory was configured.
    pub store_fallback: Option<StoreFallback>,
    /// Time the computation took.
    pub elapsed: Duration,
    /// Where that time went, step by step.
    pub timings: Timings,
}

/// Where one computation spent its time, a field per pipeline step.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timings {
    /// Reading the repository's history ([`Config::history`]: `git rev-parse`, and
    /// `git log` when `HEAD` moved).
    ///
    /// [`Config::history`]: crate::Config::history
    pub history: Duration,
    /// Checking every file against the root (one `lstat` each).
    pub admit: Duration,
    /// The tag scan: stat, store reads, extraction of changed files, write-back.
    pub scan: Duration,
    /// The ranking: index, graph, PageRank, the ranked list.
    pub rank: RankTimings,
    /// Rendering and counting candidate maps until the largest that fits is found.
    pub fit: Duration,
    /// The report's ranked entries and file ranks, as data ([`Config::full_report`]).
    ///
    /// [`Config::full_report`]: crate::Config::full_report
    pub report: Duration,
}

/// One entry of the ranked list, as data (for `--format json` and the parity harness).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ReportEntry {
    /// File, relative to the root.
    pub file: String,
    /// The identifier, for definition entries.
    pub ident: Option<String>,
    /// The definition's 1-based line, for definition entries.
    pub line: Option<i32>,
    /// Rank of the (file, identifier) for definitions (in the default profile, times the
    /// [`Relevance`](crate::Relevance) factors that ordered the list); PageRank of the
    /// file for bare entries in the graph.
    pub rank: Option<f64>,
    /// Which ranking stage produced it (`Stage::as_str` names it).
    pub stage: Stage,
    /// Whether the entry is in the returned map (the map is a prefix of the list).
    pub in_map: bool,
}
