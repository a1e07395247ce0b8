#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod capture;
mod counted;
#[cfg(feature = "extract")]
pub mod explore;
#[cfg(feature = "extract")]
mod extract;
pub mod fxhash;
#[cfg(feature = "extract")]
mod ident_walk;
mod language;
pub mod leb128;
mod limits;
mod names;
pub mod pycompat;
#[cfg(feature = "extract")]
mod pygments;
#[cfg(feature = "extract")]
mod registry;
#[cfg(feature = "extract")]
mod scanner_guard;
mod stamp;
#[cfg(feature = "extract")]
mod tag_walk;
mod terms;

use std::path::Path;
use std::sync::Arc;

pub use capture::known_sub_kind;
pub use counted::{CountedTags, RefCounts, RefNumbers};
#[cfg(feature = "extract")]
pub use extract::{
    Extraction, extract_file, extract_source, extract_source_parsed, extract_source_within,
    parse_within, read_source, source_from_bytes,
};
pub use language::{Language, filename_to_lang};
pub use limits::{CutShort, Deadline, Limits};
pub use names::{NameIds, NameTable};
pub use pycompat::normalize_newlines;
#[cfg(feature = "extract")]
pub use pygments::names as pygments_names;
#[cfg(feature = "extract")]
pub use registry::{
    QueryCompileError, QuerySource, check_queries, grammar, idents_query_source,
    queries_fingerprint, tags_query_source,
};
pub use stamp::{FileStamp, RACY_WINDOW, StatTime, stat_time};
pub use terms::{
    FNV_OFFSET, STOP_WORDS, TERM_HASH_BITS, Terms, code_words, fnv1a, is_stop_word, term_hash,
    terms_fingerprint, word_parts,
};

/// Whose behaviour to follow where repo-mapper and Aider 0.86.2 differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// The SPEC's behaviour: one tag per captured node, more languages and extensions.
    #[default]
    Default,
    /// Aider 0.86.2's observable behaviour, quirks included: grep-ast's extension table
    /// only, no tags where Aider yields none (bash, julia, ql), `.tsx` parsed with the
    /// TypeScript grammar, and the extra copy of each capture group's last node.
    Aider,
}

/// Whether a tag defines its name or refers to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TagKind {
    /// A definition (`name.definition.*` capture).
    Def,
    /// A reference (`name.reference.*` capture, or an identifier from the fallback).
    Ref,
}

impl TagKind {
    /// `"def"` or `"ref"`, as Aider spells them.
    pub fn as_str(self) -> &'static str {
        match self {
            TagKind::Def => "def",
            TagKind::Ref => "ref",
        }
    }
}

/// One definition or reference of an identifier in a file (behaviour.md §2.1).
///
/// Ordered as Aider's `Tag` named tuple sorts: by `rel_fname`, `fname`, `line`, `name`,
/// `kind` (then `sub_kind`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag {
    /// Path relative to the repository root; shared by all tags of a file.
    pub rel_fname: Arc<str>,
    /// Absolute path; shared by all tags of a file.
    pub fname: Arc<Path>,
    /// 1-based line of the captured node (behaviour.md §3.4); −1 for references from the
    /// identifier fallback (behaviour.md §3.2).
    pub line: i32,
    /// The identifier: the captured node's text.
    pub name: String,
    /// Definition or reference.
    pub kind: TagKind,
    /// The capture's sub-kind: `function` for `name.definition.function`, `call` for
    /// `name.reference.call`, `identifier` for the fallback's references.
    pub sub_kind: &'static str,
}

/// Extracts the tags of many files in parallel (rayon), one result per input, in order.
///
/// Each input is `(absolute path, path relative to the root)`. See [`extract_file`].
#[cfg(feature = "extract")]
pub fn extract_files(
    files: &[(std::path::PathBuf, String)],
    dialect: Dialect,
) -> Vec<std::io::Result<Vec<Tag>>> {
    use rayon::prelude::*;
    files
        .par_iter()
        .map(|(fname, rel)| extract_file(fname, rel, dialect))
        .collect()
}
