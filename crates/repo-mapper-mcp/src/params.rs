//! The tools' parameters, named as pdavis68/RepoMapper names them (so this server is a
//! drop-in replacement), plus ours (`message`, `profile`, `anchors`).

use schemars::JsonSchema;
use serde::Deserialize;

/// Parameters of the `repo_map` tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct RepoMapParams {
    /// Absolute path of the repository root.
    pub project_root: String,
    /// Files being edited (absolute, or relative to the root): they steer the ranking and
    /// are left out of the map.
    #[serde(default)]
    pub chat_files: Option<Vec<String>>,
    /// The candidate files (absolute, or relative to the root); default: every file of the
    /// repository (the walk follows `.gitignore`).
    #[serde(default)]
    pub other_files: Option<Vec<String>>,
    /// Token budget of the map (default 8192).
    #[serde(default)]
    pub token_limit: Option<usize>,
    /// Leave out files whose PageRank is at most 0.0001.
    #[serde(default)]
    pub exclude_unranked: Option<bool>,
    /// Recompute even if a cached map matches.
    #[serde(default)]
    pub force_refresh: Option<bool>,
    /// Files mentioned in the conversation (absolute, or relative to the root).
    #[serde(default)]
    pub mentioned_files: Option<Vec<String>>,
    /// Identifiers mentioned in the conversation.
    #[serde(default)]
    pub mentioned_idents: Option<Vec<String>>,
    /// The model's context window: with no chat files the budget grows up to 8x within it.
    #[serde(default)]
    pub max_context_window: Option<usize>,
    /// Accepted for compatibility with RepoMapper; diagnostics go to the server's stderr.
    #[serde(default)]
    pub verbose: Option<bool>,
    /// The user's message: the identifiers and files it mentions are added as Aider
    /// derives them, and the default profile ranks with its words.
    #[serde(default)]
    pub message: Option<String>,
    /// `default` (never over budget; ranked with the message's words), `spec` (the rules of
    /// docs/behaviour.md exactly) or `aider` (Aider 0.86.2's output).
    #[serde(default)]
    pub profile: Option<String>,
    /// Anchors: `FILE:IDENT`, `FILE` or an identifier; the ranking starts from them.
    #[serde(default)]
    pub anchors: Option<Vec<String>>,
    /// The answer's cap in tokens (cl100k), its JSON text counted (default 20,000, below
    /// the 25,000 that common clients accept): a map whose answer would pass it is made
    /// again within a smaller `token_limit` (the report says which).
    #[serde(default)]
    pub max_tokens: Option<usize>,
    /// Whether to wait while another call on this repository runs (default true). With
    /// false, a busy repository answers at once with a tool error saying what it is
    /// doing, e.g. `scanning: 1200 of 6868 files`.
    #[serde(default)]
    pub wait: Option<bool>,
}

impl RepoMapParams {
    /// A request for the map of the repository at `project_root`, with defaults elsewhere.
    pub fn new(project_root: impl Into<String>) -> RepoMapParams {
        RepoMapParams {
            project_root: project_root.into(),
            ..RepoMapParams::default()
        }
    }
}

/// Parameters of the `search_identifiers` tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct SearchParams {
    /// Absolute path of the repository root.
    pub project_root: String,
    /// Matched case-insensitively anywhere in an identifier.
    pub query: String,
    /// At most this many results (default 50).
    #[serde(default)]
    pub max_results: Option<usize>,
    /// Lines of context before and after each result (default 2).
    #[serde(default)]
    pub context_lines: Option<usize>,
    /// Whether definitions are results (default true).
    #[serde(default)]
    pub include_definitions: Option<bool>,
    /// Whether references are results (default true).
    #[serde(default)]
    pub include_references: Option<bool>,
    /// The answer's cap in tokens (cl100k), its JSON text counted (default 20,000, below
    /// the 25,000 that common clients accept): results past it are left for the next page
    /// (`next_cursor`).
    #[serde(default)]
    pub max_tokens: Option<usize>,
    /// Go on from a previous answer to the same query: its `next_cursor`.
    #[serde(default)]
    pub cursor: Option<String>,
    /// Whether to wait while another call on this repository runs (default true); see
    /// [`RepoMapParams::wait`].
    #[serde(default)]
    pub wait: Option<bool>,
}

impl SearchParams {
    /// A search for `query` in the repository at `project_root`, with defaults elsewhere.
    pub fn new(project_root: impl Into<String>, query: impl Into<String>) -> SearchParams {
        SearchParams {
            project_root: project_root.into(),
            query: query.into(),
            ..SearchParams::default()
        }
    }
}

/// Parameters of the `show_symbol` tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ShowParams {
    /// Absolute path of the repository root.
    pub project_root: String,
    /// `FILE#NAME` (every definition of NAME in FILE) or `FILE:LINE` (the innermost
    /// definition holding LINE, counted from 1); FILE relative to the root.
    pub symbol: String,
    /// The answer's cap in tokens (cl100k) of source (default 20,000): a definition cut
    /// short ends with a line saying how many lines were left out.
    #[serde(default)]
    pub max_tokens: Option<usize>,
}

/// Parameters of the `outline` tool.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct OutlineParams {
    /// Absolute path of the repository root.
    pub project_root: String,
    /// The files to outline, relative to the root.
    pub paths: Vec<String>,
    /// The outline's cap in tokens (cl100k; default 20,000): the outermost symbols are
    /// kept first, then the imports, then nested symbols; each file ends with `... and N
    /// more` (symbols) and `... and N more imports` for what was left out.
    #[serde(default)]
    pub max_tokens: Option<usize>,
    /// Go on from a previous answer for the same `paths`: its `next_cursor`.
    #[serde(default)]
    pub cursor: Option<String>,
}
