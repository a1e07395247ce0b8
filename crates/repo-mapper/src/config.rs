//! Every parameter of a repo map (SPEC §14), with its default.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::str::FromStr;

use repo_mapper_store::CacheLocation;
use repo_mapper_tags::{Dialect, Limits};

use crate::Tokenizer;

/// When a [`RepoMap`](crate::RepoMap) recomputes the map instead of returning a cached one
/// (SPEC §11).
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
    type Err = String;

    fn from_str(s: &str) -> Result<Refresh, String> {
        match s {
            "auto" => Ok(Refresh::Auto),
            "files" => Ok(Refresh::Files),
            "manual" => Ok(Refresh::Manual),
            "always" => Ok(Refresh::Always),
            other => Err(format!(
                "unknown refresh mode `{other}` (expected auto, files, manual or always)"
            )),
        }
    }
}

/// The repo-map profile: [`Dialect::Default`] follows the SPEC and never exceeds the budget;
/// [`Dialect::Aider`] reproduces Aider 0.86.2 (see `docs/parity.md`).
pub type Profile = Dialect;

/// Parses a profile name (`default` or `aider`).
pub fn parse_profile(s: &str) -> Result<Profile, String> {
    match s {
        "default" => Ok(Dialect::Default),
        "aider" => Ok(Dialect::Aider),
        other => Err(format!(
            "unknown profile `{other}` (expected default or aider)"
        )),
    }
}

/// Configuration of a [`RepoMap`](crate::RepoMap): SPEC §14's parameters plus the
/// profile, tokenizer and tag-cache location.
#[derive(Debug, Clone)]
pub struct Config {
    /// Repository root; relative paths in the map are relative to it.
    pub root: PathBuf,
    /// Token budget of the map (`map_tokens`, default 1024). 0 disables the map.
    pub map_tokens: usize,
    /// Prefix of the map; `{other}` in it becomes `"other "` when there are chat files.
    pub repo_content_prefix: Option<String>,
    /// The model's context window; enables the bigger map when no file is in the chat.
    pub max_context_window: Option<usize>,
    /// Budget multiplier when no file is in the chat (default 8).
    pub map_mul_no_files: usize,
    /// Map cache policy (default auto).
    pub refresh: Refresh,
    /// Drop bare file entries whose PageRank is at most 0.0001.
    pub exclude_unranked: bool,
    /// Weight of the self-edge of an unreferenced definition (default 0.1).
    pub self_edge_weight: f64,
    /// Lines of the map are cut to this many characters (default 100).
    pub max_line_length: usize,
    /// PageRank damping (default 0.85).
    pub pagerank_damping: f64,
    /// PageRank convergence tolerance (default 1e-6).
    pub pagerank_tol: f64,
    /// PageRank iteration limit (default 100).
    pub pagerank_max_iter: usize,
    /// Files used as restart seeds and always shown (SPEC §7.1a–b).
    pub anchor_fnames: Vec<PathBuf>,
    /// Identifiers whose defining files are restart seeds.
    pub anchor_idents: BTreeSet<String>,
    /// (file, identifier) pairs: the file is a seed, the identifier's edges are boosted.
    pub anchor_scoped: Vec<(PathBuf, String)>,
    /// Weight of anchors relative to chat files (default 10).
    pub anchor_weight_multiplier: f64,
    /// Profile: SPEC (`default`) or Aider 0.86.2 (`aider`).
    pub profile: Profile,
    /// Tokenizer used to count the map's tokens (default cl100k_base).
    pub tokenizer: Tokenizer,
    /// Where the tag store lives (default `{root}/.repo-mapper`, or
    /// `REPO_MAPPER_CACHE_DIR`).
    pub cache: CacheLocation,
    /// Remove stored tags of files under the root that are not among the files of a
    /// computation. Set it when those files are the whole repository (a walk), so the store
    /// does not grow as files are deleted; leave it off for partial file lists.
    pub prune_cache: bool,
    /// The bound on the work one file's tags may cost (default 10 s per file).
    pub limits: Limits,
    /// Read symlinks whose target lies outside the root (default off: such files are left
    /// out with a warning, so a map never carries another directory's contents).
    pub follow_external_symlinks: bool,
}

impl Config {
    /// The defaults of SPEC §14 for a repository at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Config {
        let root = root.into();
        Config {
            cache: CacheLocation::default_for(&root),
            root,
            map_tokens: 1024,
            repo_content_prefix: None,
            max_context_window: None,
            map_mul_no_files: 8,
            refresh: Refresh::Auto,
            exclude_unranked: false,
            self_edge_weight: 0.1,
            max_line_length: 100,
            pagerank_damping: 0.85,
            pagerank_tol: 1e-6,
            pagerank_max_iter: 100,
            anchor_fnames: Vec::new(),
            anchor_idents: BTreeSet::new(),
            anchor_scoped: Vec::new(),
            anchor_weight_multiplier: 10.0,
            profile: Profile::Default,
            tokenizer: Tokenizer::Cl100kBase,
            prune_cache: false,
            limits: Limits::default(),
            follow_external_symlinks: false,
        }
    }
}
