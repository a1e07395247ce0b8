//! repo-mapper: Aider's repo map in Rust.
//!
//! Given a repository, the files being edited ("chat files") and the names and files
//! mentioned, [`RepoMap::map`] returns a compact map of the most relevant definitions,
//! rendered with their enclosing scopes, within a token budget — or why there is none
//! ([`NoMap`]). This facade runs the whole pipeline (see `docs/ARCHITECTURE.md`): tag
//! extraction through the tag store (`repo-mapper-tags`, `repo-mapper-store`), ranking
//! (`repo-mapper-rank`), rendering (`repo-mapper-render`), token counting and the budget
//! search (here).
//!
//! ```
//! use repo_mapper::{list_files, CacheLocation, Config, MapRequest, RepoMap};
//!
//! let root = std::env::temp_dir().join(format!("repo-mapper-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&root)?;
//! std::fs::write(root.join("shop.py"), "class Order:\n    def total(self):\n        return 1\n")?;
//! std::fs::write(root.join("app.py"), "from shop import Order\nprint(Order().total())\n")?;
//!
//! let mut config = Config::new(&root);
//! config.cache = CacheLocation::Memory; // by default tags persist in {root}/.repo-mapper
//! let mut session = RepoMap::new(config);
//! let request = MapRequest::new(list_files(&root, None))
//!     .with_chat_files(vec![root.join("app.py")])
//!     .with_mentioned_idents(["Order".to_owned()]);
//! let map = session.map(&request).expect("a map");
//! assert_eq!(map.text, "\nshop.py:\n│class Order:\n│    def total(self):\n⋮\n");
//! assert_eq!(map.report.entries[0].ident.as_deref(), Some("Order"));
//! # std::fs::remove_dir_all(&root)?;
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! Two profiles ([`Profile`]): `Default` follows the SPEC and never returns a map over the
//! budget (exact token counts); `Aider` reproduces Aider 0.86.2 (its token estimate and its
//! search, which accepts maps up to 15% over). Nothing here can fail the way Aider's
//! recursion does on big repositories, so there is no "disable the map" latch. The library
//! reads no environment variable and prints nothing: problems go to `tracing`.

#![warn(missing_docs)]

mod answer;
mod budget;
mod compute;
mod config;
mod fallback;
mod guard;
mod map;
mod mentions;
mod paths;
mod request;
mod search;
mod tokens;
mod walk;
mod warm;
mod watch;

pub use answer::Answer;
pub use config::{Config, PROFILES, Profile, Refresh, UnknownName, parse_profile, profile_name};
pub use guard::inside_root;
pub use map::{Progress, RepoMap};
pub use mentions::{Mentions, file_mentions, ident_filename_matches, ident_mentions};
pub use repo_mapper_rank::{PageRankParams, RankConfig, RankParams, RankTimings, Relevance, Stage};
pub use repo_mapper_render::{escape_control, push_escaped};
pub use repo_mapper_store::{
    CacheLocation, Problem, QUIET_LOG_TARGETS, ScanStats, StoreFallback, catches_panic_at,
};
pub use repo_mapper_tags::{CutShort, Dialect, Limits};
pub use request::{
    Anchors, Attempt, MapOutput, MapReport, MapRequest, NoMap, ReportEntry, Timings,
};
pub use search::{HitKind, IdentifierHit, IdentifierQuery};
pub use tokens::Tokenizer;
pub use walk::{Listing, list_files};

/// The README's examples, checked as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
