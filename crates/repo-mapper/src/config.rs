//! Every parameter of a repo map session (behaviour.md §14), each default written once.

use std::path::PathBuf;
use std::str::FromStr;

use repo_mapper_rank::{RankConfig, RankParams, Relevance};
use repo_mapper_store::CacheLocation;
use repo_mapper_tags::{Dialect, Limits};

use crate::Tokenizer;

/// When a [`RepoMap`](crate::RepoMap) recomputes the map instead of returning a cached one
/// (behaviour.md §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Refresh {
    /// Use the cache only when the last computation took over a second; the cache key
    /// includes the mentioned files and identifiers.
    #[default]
    Auto,
    /// Always use the cache when the chat files, other files and budget match.
    Files,
    /// Once computed, return the last map whatever the input.
    Manual,
    /// Never use the cache.
    Always,
}

impl Refresh {
    /// Every mode, in the order the CLI lists them.
    pub const ALL: [Refresh; 4] = [
        Refresh::Auto,
        Refresh::Files,
        Refresh::Manual,
        Refresh::Always,
    ];

    /// The mode's name, as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Refresh::Auto => "auto",
            Refresh::Files => "files",
            Refresh::Manual => "manual",
            Refresh::Always => "always",
        }
    }
}

impl FromStr for Refresh {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Refresh, UnknownName> {
        UnknownName::find("refresh mode", s, &Refresh::ALL, |r| r.name())
    }
}

/// The repo-map profile: whose behaviour a session follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Profile {
    /// The SPEC's behaviour (never over budget, exact token counts) with the ranking
    /// departures measured to find what a task needs ([`Relevance::MEASURED`]; each is
    /// listed in `docs/parity.md`, its gain in `docs/relevance.md`).
    #[default]
    Default,
    /// The SPEC exactly: [`Profile::Default`] without the ranking departures.
    Spec,
    /// Aider 0.86.2's output, byte for byte (see `docs/parity.md`).
    Aider,
}

impl Profile {
    /// Whose tags, rendering and budget search: the SPEC's or Aider's.
    pub fn dialect(self) -> Dialect {
        match self {
            Profile::Default | Profile::Spec => Dialect::Default,
            Profile::Aider => Dialect::Aider,
        }
    }

    /// The ranking's departures from the SPEC.
    pub fn relevance(self) -> Relevance {
        match self {
            Profile::Default => Relevance::MEASURED,
            Profile::Spec | Profile::Aider => Relevance::SPEC,
        }
    }
}

/// Every profile, in the order the CLI lists them.
pub const PROFILES: [Profile; 3] = [Profile::Default, Profile::Spec, Profile::Aider];

/// A profile's name: `default`, `spec` or `aider`.
pub fn profile_name(profile: Profile) -> &'static str {
    match profile {
        Profile::Default => "default",
        Profile::Spec => "spec",
        Profile::Aider => "aider",
    }
}

/// Parses a profile name (`default`, `spec` or `aider`).
pub fn parse_profile(s: &str) -> Result<Profile, UnknownName> {
    UnknownName::find("profile", s, &PROFILES, profile_name)
}

/// A name that is none of the values it could be (a refresh mode, profile or tokenizer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownName {
    /// What was being named, e.g. `refresh mode`.
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The names that exist.
    pub expected: Vec<&'static str>,
}

impl UnknownName {
    /// The value of `values` whose `name` is `given`, or the error naming them all.
    pub(crate) fn find<T: Copy>(
        what: &'static str,
        given: &str,
        values: &[T],
        name: impl Fn(T) -> &'static str,
    ) -> Result<T, UnknownName> {
        values
            .iter()
            .copied()
            .find(|&v| name(v) == given)
            .ok_or_else(|| UnknownName {
                what,
                given: given.to_owned(),
                expected: values.iter().map(|&v| name(v)).collect(),
            })
    }
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let expected = match self.expected.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        write!(
            f,
            "unknown {} `{}` (expected {expected})",
            self.what, self.given
        )
    }
}

impl std::error::Error for UnknownName {}

/// Configuration of a [`RepoMap`](crate::RepoMap) session: behaviour.md §14's parameters plus the
/// tokenizer, the tag-cache location and the per-file bound. What changes from one map to
/// the next (chat files, mentions, anchors) is in [`MapRequest`](crate::MapRequest).
///
/// ```
/// use repo_mapper::{Config, Profile};
///
/// let mut config = Config::new("/path/to/repo").with_profile(Profile::Aider);
/// config.map_tokens = 2048;
/// config.rank.pagerank.damping = 0.9;
/// assert_eq!(config.profile(), Profile::Aider);
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    /// Repository root; relative paths in the map are relative to it.
    pub root: PathBuf,
    /// Token budget of the map (`map_tokens`, default [`Config::DEFAULT_MAP_TOKENS`]).
    /// 0 disables the map.
    pub map_tokens: usize,
    /// Prefix of the map; `{other}` in it becomes `"other "` when there are chat files.
    pub repo_content_prefix: Option<String>,
    /// The model's context window; enables the bigger map when no file is in the chat.
    pub max_context_window: Option<usize>,
    /// Budget multiplier when no file is in the chat (default
    /// [`Config::DEFAULT_MAP_MUL_NO_FILES`]).
    pub map_mul_no_files: usize,
    /// Map cache policy (default auto).
    pub refresh: Refresh,
    /// Lines of the map are cut to this many characters (default
    /// [`Config::DEFAULT_MAX_LINE_LENGTH`]).
    pub max_line_length: usize,
    /// The ranking's numbers: self-edge weight, PageRank parameters, anchor weight,
    /// `exclude_unranked` (behaviour.md §6–§8; defaults in `repo-mapper-rank`). Whose ranking
    /// they serve comes from the profile ([`Config::rank_config`]).
    pub rank: RankParams,
    /// Tokenizer used to count the map's tokens (default cl100k_base).
    pub tokenizer: Tokenizer,
    /// Where the tag store lives (default `{root}/.repo-mapper`).
    pub cache: CacheLocation,
    /// Remove stored tags of files under the root that are not among the files of a
    /// computation. Set it when those files are the whole repository (a walk), so the store
    /// does not grow as files are deleted; leave it off for partial file lists.
    pub prune_cache: bool,
    /// Keep every file's tags in memory between the maps of this session (a long-lived
    /// session such as the MCP server's): each map then stats the files and reads the tag
    /// store only for those whose size, mtime or inode changed. On Linux the session also
    /// watches the files' directories (inotify), and a map of the same files stats only
    /// those the watch saw change (and symlinks); the tag index, the file graph (re-weighted
    /// for each map's chat files and mentions) and the last scan are kept too. Off by
    /// default: a one-shot process reads the store once anyway.
    pub warm_session: bool,
    /// Report every ranked entry and every graph file's PageRank (default on: the CLI's
    /// JSON and the parity harness read them). Off, [`MapReport::entries`] lists only
    /// the entries in the map and [`MapReport::file_ranks`] is empty: building the rest
    /// costs ~0.25 s per map on the Linux tree, and an agent reads only the map's files.
    ///
    /// [`MapReport::entries`]: crate::MapReport::entries
    /// [`MapReport::file_ranks`]: crate::MapReport::file_ranks
    pub full_report: bool,
    /// The bound on the work one file's tags may cost (default 10 s per file).
    pub limits: Limits,
    /// Read symlinks whose target lies outside the root (default off: such files are left
    /// out with a warning, so a map never carries another directory's contents).
    pub follow_external_symlinks: bool,
    /// Files larger than this many bytes are not parsed in the default profile (default
    /// [`Config::DEFAULT_MAX_FILE_SIZE`]; `None`: no limit). The aider profile parses every
    /// file, as Aider does.
    pub max_file_size: Option<u64>,
    /// Read the repository's recent history from git (`git log`, [`HISTORY_COMMITS`]
    /// commits back from `HEAD`) for requests with chat files that do not bring their
    /// own ([`MapRequest::history`](crate::MapRequest::history)); the default profile
    /// orders files by the commits they share with the chat files. Default off: a
    /// library runs no program unless asked (the CLI and the MCP server turn it on).
    ///
    /// [`HISTORY_COMMITS`]: crate::HISTORY_COMMITS
    pub history: bool,
    /// Start reading the root's tag pack when the session is created
    /// ([`RepoMap::new`](crate::RepoMap::new)), on a thread of its own, for its first map
    /// or search to take: worth it when the caller has other work before that map (the
    /// CLI walks the tree). Until a scan takes or drops it, the session holds the pack
    /// unpacked (about 150 MB on the Linux tree). Default off.
    pub read_ahead: bool,
    /// The profile: the dialect of tags, ranking, rendering and budget search.
    profile: Profile,
    /// The ranking's departures, the profile's own unless [`Config::set_relevance`] says.
    relevance: Relevance,
}

impl Config {
    /// Aider's default map budget, in tokens.
    pub const DEFAULT_MAP_TOKENS: usize = 1024;
    /// Aider's budget multiplier when no file is in the chat.
    pub const DEFAULT_MAP_MUL_NO_FILES: usize = 8;
    /// Aider's line cut, in characters.
    pub const DEFAULT_MAX_LINE_LENGTH: usize = repo_mapper_render::DEFAULT_MAX_LINE_LENGTH;
    /// Files above 1 MiB are generated (register tables, amalgamations, bundles) far more
    /// often than written: on the Linux tree, 83 such files hold 30% of the bytes of C and
    /// not one definition of its map (`docs/performance.md`).
    pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 20;

    /// The defaults of behaviour.md §14 for a repository at `root`, in the default profile.
    pub fn new(root: impl Into<PathBuf>) -> Config {
        let root = root.into();
        Config {
            cache: CacheLocation::default_for(&root),
            root,
            map_tokens: Config::DEFAULT_MAP_TOKENS,
            repo_content_prefix: None,
            max_context_window: None,
            map_mul_no_files: Config::DEFAULT_MAP_MUL_NO_FILES,
            refresh: Refresh::default(),
            max_line_length: Config::DEFAULT_MAX_LINE_LENGTH,
            rank: RankParams::default(),
            tokenizer: Tokenizer::default(),
            prune_cache: false,
            warm_session: false,
            full_report: true,
            limits: Limits::default(),
            follow_external_symlinks: false,
            max_file_size: Some(Config::DEFAULT_MAX_FILE_SIZE),
            history: false,
            read_ahead: false,
            profile: Profile::Default,
            relevance: Profile::Default.relevance(),
        }
    }

    /// The profile.
    pub fn profile(&self) -> Profile {
        self.profile
    }

    /// Whose tags, ranking, rendering and budget search: the profile's dialect, the only
    /// place a session reads it from.
    pub fn dialect(&self) -> Dialect {
        self.profile.dialect()
    }

    /// The ranking's departures from the SPEC (the profile's, unless set); read in the
    /// default dialect only, by the ranking and by the renderer ([`Relevance::signatures`]).
    pub fn relevance(&self) -> Relevance {
        self.relevance
    }

    /// Replaces the profile's ranking departures (experiments: `cargo xtask relevance
    /// --set`). [`Config::set_profile`] puts the profile's own back.
    pub fn set_relevance(&mut self, relevance: Relevance) {
        self.relevance = relevance;
    }

    /// What the ranking follows: the profile's dialect, the relevance and [`Config::rank`].
    pub fn rank_config(&self) -> RankConfig {
        let mut config = RankConfig::with_dialect(self.dialect());
        config.relevance = self.relevance;
        config.params = self.rank;
        config
    }

    /// The size above which files are not parsed, in the configured profile.
    pub fn effective_max_file_size(&self) -> Option<u64> {
        match self.dialect() {
            Dialect::Aider => None,
            Dialect::Default => self.max_file_size,
        }
    }

    /// Sets the profile, and the ranking departures to the profile's own.
    pub fn set_profile(&mut self, profile: Profile) {
        self.profile = profile;
        self.relevance = profile.relevance();
    }

    /// This configuration in `profile`.
    pub fn with_profile(mut self, profile: Profile) -> Config {
        self.set_profile(profile);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_say_what_exists() {
        for r in Refresh::ALL {
            assert_eq!(r.name().parse::<Refresh>(), Ok(r));
        }
        for p in PROFILES {
            assert_eq!(parse_profile(profile_name(p)), Ok(p));
        }
        let err = "sometimes".parse::<Refresh>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown refresh mode `sometimes` (expected auto, files, manual or always)"
        );
        let err = parse_profile("x").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown profile `x` (expected default, spec or aider)"
        );
    }
}
