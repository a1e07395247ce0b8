//! repo-mapper: Aider's repo map in Rust (facade crate; work in progress).

#![warn(missing_docs)]

mod budget;
mod config;
mod tokens;
mod walk;

pub use budget::{Fitted, aider_search, strict_search};
pub use config::{Config, Profile, Refresh, parse_profile};
pub use tokens::{Tokenizer, python_splitlines_keepends};
pub use walk::list_files;
