//! Rendering for repo-mapper: the text of the repo map, as Aider 0.86.2 writes it.
//!
//! This is the fourth step of the pipeline (see `docs/ARCHITECTURE.md`): given the ranked
//! definitions (and files shown by name only), [`Renderer::to_tree`] prints each file with
//! the lines of its definitions and the headers of the scopes around them, `⋮` for what is
//! left out (behaviour.md §9, §12). The per-file work is [`TreeContext`], grep-ast 0.9.0's class of
//! that name with the options Aider passes.
//!
//! ```
//! use std::collections::HashSet;
//! use repo_mapper_render::TreeContext;
//! use repo_mapper_tags::{Dialect, Language};
//!
//! let code = "import os\n\nclass Cache:\n    size = 0\n\n    def get(self, key):\n        return key\n";
//! let ctx = TreeContext::new(code, Some(Language::Python), Dialect::Default);
//! // Row 5 (0-based) is `def get`: the header of its class (here the whole class up to
//! // the method, as it is short) comes with it; `⋮` marks what is left out.
//! assert_eq!(
//!     ctx.render(&[5]),
//!     "⋮\n│class Cache:\n│    size = 0\n│\n│    def get(self, key):\n⋮\n"
//! );
//! ```
//!
//! The input of [`Renderer::to_tree`] is a slice of [`MapItem`]: a borrowed
//! [`Tag`](repo_mapper_tags::Tag) or a bare file name, so that any ranked-entry type can be
//! adapted without this crate depending on the ranking crate. Tag lines are 1-based; they
//! become Aider's 0-based rows with [`line_of_interest`].
//!
//! Nothing here recurses on a syntax tree, and rendering a file is linear in its lines.
//! See [`Renderer`] for what [`Dialect::Aider`](repo_mapper_tags::Dialect::Aider) and
//! [`Dialect::Default`](repo_mapper_tags::Dialect::Default) do differently.

#![warn(missing_docs)]

mod context;
mod escape;
mod text;
mod tree;

pub use context::{HEADER_MAX, Headers, TreeContext, render_language};
pub use escape::{escape_control, push_escaped};
pub use tree::{DEFAULT_MAX_LINE_LENGTH, MapItem, Renderer, line_of_interest};
