#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod answer;
mod budget;
mod cache_dir;
mod compute;
mod config;
mod fallback;
mod guard;
mod history;
mod imports;
mod kept_walk;
mod known_counts;
mod map;
mod mentions;
mod outline;
mod paths;
mod request;
mod scope_cache;
mod search;
mod show;
mod tokens;
mod walk;
mod warm;
mod watch;

pub use answer::Answer;
pub use cache_dir::{
    KEPT_REPOSITORIES, KEPT_UNUSED, mark_cache_used, prune_shared_cache, shared_cache_dir,
    trusted_cache,
};
pub use config::{Config, PROFILES, Profile, Refresh, UnknownName, parse_profile, profile_name};
pub use guard::inside_root;
pub use history::{HISTORY_COMMITS, History};
pub use imports::{Import, ImportCategory};
pub use kept_walk::list_files_kept;
pub use map::{Progress, RepoMap};
pub use mentions::{Mentions, file_mentions, ident_filename_matches, ident_mentions};
pub use outline::{
    DOC_CHARS, FileOutline, OutlinePage, OutlineShown, OutlineSymbol, SIGNATURE_LINES, outline,
    outline_page, outline_shown, outline_text, outlines, outlines_fingerprint, outlines_listed,
};
pub use repo_mapper_rank::{
    PageRankParams, RankConfig, RankParams, RankTimings, Relevance, Stage, Why,
};
pub use repo_mapper_render::{escape_control, push_escaped};
pub use repo_mapper_store::{
    CacheLocation, Problem, QUIET_LOG_TARGETS, ScanStats, StoreFallback, catches_panic_at,
};
pub use repo_mapper_tags::explore::Visibility;
pub use repo_mapper_tags::{CutShort, Dialect, Limits, RACY_WINDOW};
pub use request::{
    Anchors, Attempt, MapOutput, MapReport, MapRequest, NoMap, ReportEntry, Timings,
};
pub use search::{HitKind, IdentifierHit, IdentifierQuery};
pub use show::{ShowError, ShownDefinition, SymbolTarget, show_symbol};
pub use tokens::Tokenizer;
pub use walk::{Listing, list_files};

/// The README's examples, checked as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
