#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod context;
mod escape;
mod scopes;
mod text;
mod tree;

pub use context::{HEADER_MAX, Headers, TreeContext, render_language};
pub use escape::{escape_control, is_hidden_format, push_escaped};
pub use scopes::{ScopeCache, ScopeKey, Scopes};
pub use tree::{DEFAULT_MAX_LINE_LENGTH, MapItem, Renderer, line_of_interest};
