//! repo-mapper: Aider's repo map in Rust.
//!
//! Given a repository, the files being edited ("chat files") and the names and files
//! mentioned, [`RepoMap::get_repo_map`] returns a compact map of the most relevant
//! definitions, rendered with their enclosing scopes, within a token budget. This facade
//! runs the whole pipeline (see `docs/ARCHITECTURE.md`): tag extraction through the tag
//! store (`repo-mapper-tags`, `repo-mapper-store`), ranking (`repo-mapper-rank`),
//! rendering (`repo-mapper-render`), token counting and the budget search (here).
//!
//! ```no_run
//! use std::collections::BTreeSet;
//! use repo_mapper::{list_files, Config, RepoMap};
//!
//! let root = std::path::Path::new("/path/to/repo");
//! let mut map = RepoMap::new(Config::new(root));
//! let files = list_files(root, None);
//! let chat = vec![root.join("src/main.rs")];
//! let text = map.get_repo_map(&chat, &files, &BTreeSet::new(), &BTreeSet::new(), false);
//! print!("{}", text.unwrap_or_default());
//! ```
//!
//! Two profiles ([`Profile`]): `Default` follows the SPEC and never returns a map over the
//! budget (exact token counts); `Aider` reproduces Aider 0.86.2 (its token estimate and its
//! search, which accepts maps up to 15% over). Nothing here can fail the way Aider's
//! recursion does on big repositories, so there is no "disable the map" latch.

#![warn(missing_docs)]

mod budget;
mod config;
mod guard;
mod map;
mod tokens;
mod walk;

pub use budget::{Fitted, aider_search, strict_search};
pub use config::{Config, Profile, Refresh, parse_profile};
pub use map::{MapReport, Progress, RepoMap, ReportEntry};
pub use repo_mapper_render::{escape_control, push_escaped};
pub use repo_mapper_store::{CacheLocation, Problem, ScanStats};
pub use repo_mapper_tags::{CutShort, Limits};
pub use tokens::{Tokenizer, python_splitlines_keepends};
pub use walk::list_files;
