//! Grammar and queries of every supported language, embedded at compile time. Which
//! grammar and which query files a language has is its row of the language table
//! (`language.rs`); this module hands them out and compiles the queries.
//!
//! Tag queries resolve as Aider resolves them (behaviour.md §4.1): `queries/tree-sitter-language-pack/`
//! first, `queries/tree-sitter-languages/` second; repo-mapper's own `queries/repo-mapper/`
//! comes third, for languages Aider has no query for (bash). Identifier queries
//! (`{lang}-idents.scm`, behaviour.md §3.2) are all our own, in `queries/repo-mapper/`.
//!
//! Queries compile once per process, on first use.

// Queries are compiled through tree-sitter's C API and shared across threads.
#![allow(unsafe_code)]

use std::sync::OnceLock;

use tree_sitter::Query;
use tree_sitter_language::LanguageFn;

use crate::capture::{self, Capture};
use crate::ident_walk::IdentWalk;
use crate::tag_walk::TagWalk;
use crate::{Language, scanner_guard};

/// Where an embedded query file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuerySource {
    /// Path under `queries/`, e.g. `tree-sitter-language-pack/python-tags.scm`.
    pub path: &'static str,
    /// The query text.
    pub text: &'static str,
}

/// A language's grammar and query files: one row of the language table (`language.rs`).
pub(crate) struct Spec {
    pub(crate) grammar: LanguageFn,
    pub(crate) tags: QuerySource,
    pub(crate) idents: Option<QuerySource>,
    /// The grammar's external scanner keeps state in globals: one parse at a time, process
    /// wide (concurrent parses corrupt each other and can spin until the deadline).
    pub(crate) parse_serially: bool,
}

/// The tree-sitter grammar of `lang`, its external scanner guarded so that no input can
/// make tree-sitter abort the process (see `scanner_guard`).
pub fn grammar(lang: Language) -> tree_sitter::Language {
    static GUARDED: [OnceLock<tree_sitter::Language>; Language::ALL.len()] =
        [const { OnceLock::new() }; Language::ALL.len()];
    let slot = lang.index();
    GUARDED[slot]
        .get_or_init(|| scanner_guard::guard(unguarded_grammar(lang), slot))
        .clone()
}

/// The grammar of `lang` as its crate ships it.
pub(crate) fn unguarded_grammar(lang: Language) -> tree_sitter::Language {
    lang.spec().grammar.into()
}

/// The tag query file of `lang` (path under `queries/` and text).
pub fn tags_query_source(lang: Language) -> QuerySource {
    lang.spec().tags
}

/// The identifier query file of `lang`, if it has one.
pub fn idents_query_source(lang: Language) -> Option<QuerySource> {
    lang.spec().idents
}

/// Compiled queries of one language.
pub(crate) struct Compiled {
    /// The tag query: compiled when the language is, unless `tag_walk` stands in for it
    /// (then on first use: a run that parses one Python file after an edit does not pay
    /// for compiling a query it does not run).
    pub tags: LazyQuery,
    /// The identifier query, compiled on first use: only a file with definitions and no
    /// references runs it, and only where `ident_walk` does not stand in for it.
    pub idents: Option<LazyQuery>,
    /// The identifier query as a tree walk, when it has the shape one can replace
    /// (see `ident_walk`).
    pub ident_walk: Option<IdentWalk>,
    /// The tag query as a tree walk, where one was proven to find the same nodes (see
    /// `tag_walk`).
    pub tag_walk: Option<TagWalk>,
}

/// A compiled query and, by capture index, the tag each capture makes (`None` for
/// captures that make none), resolved once when the query compiles.
pub(crate) struct TagQuery {
    pub query: Query,
    pub captures: Box<[Option<Capture>]>,
    /// `query`'s C object, to reset a cursor running it (`extract::stop_cursor`).
    pub raw: RawQuery,
}

/// A compiled query's C object, owned by its [`Query`] (the binding does not lend the
/// pointer out, so [`TagQuery::compile`] takes it and rebuilds the `Query` around it).
pub(crate) struct RawQuery(pub *const tree_sitter::ffi::TSQuery);

// SAFETY: tree-sitter only reads a compiled query, from any thread; the pointer lives as
// long as the `Query` beside it, and compiled queries live in statics.
unsafe impl Send for RawQuery {}
// SAFETY: as above.
unsafe impl Sync for RawQuery {}

impl TagQuery {
    /// Compiles `src` for `lang` against `language` and resolves its captures.
    fn compile(
        lang: Language,
        language: &tree_sitter::Language,
        src: QuerySource,
    ) -> Result<TagQuery, QueryCompileError> {
        let error = |message: String| QueryCompileError {
            language: lang,
            path: src.path,
            message,
        };
        let compiled = Query::new(language, src.text).map_err(|e| error(e.to_string()))?;
        let raw = compiled.into_raw();
        // SAFETY: `raw` is a query `into_raw` just gave up, compiled from `src.text`.
        let query = unsafe { Query::from_raw(raw, src.text) }.map_err(|e| error(e.to_string()))?;
        let captures = query
            .capture_names()
            .iter()
            .map(|name| {
                capture::resolve(name).map_err(|sub_kind| {
                    error(format!(
                        "capture @{name}: sub-kind `{sub_kind}` is not in SUB_KINDS (src/capture.rs)"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(TagQuery {
            query,
            captures,
            raw: RawQuery(raw),
        })
    }
}

/// A query that did not compile against its grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryCompileError {
    /// The language.
    pub language: Language,
    /// The query file, relative to `queries/`.
    pub path: &'static str,
    /// tree-sitter's message, or which capture has a sub-kind repo-mapper does not know.
    pub message: String,
}

impl std::fmt::Display for QueryCompileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "query {} does not compile for {}: {}",
            self.path, self.language, self.message
        )
    }
}

impl std::error::Error for QueryCompileError {}

/// A query compiled on first use ([`LazyQuery::get`]).
pub(crate) struct LazyQuery {
    lang: Language,
    src: QuerySource,
    compiled: OnceLock<Result<TagQuery, QueryCompileError>>,
}

impl LazyQuery {
    fn new(lang: Language, src: QuerySource) -> LazyQuery {
        LazyQuery {
            lang,
            src,
            compiled: OnceLock::new(),
        }
    }

    /// The query, compiled now if it was not yet.
    pub(crate) fn get(&self) -> Result<&TagQuery, &QueryCompileError> {
        self.compiled
            .get_or_init(|| TagQuery::compile(self.lang, &grammar(self.lang), self.src))
            .as_ref()
    }
}

type Slot = OnceLock<Result<Compiled, QueryCompileError>>;

static COMPILED: [Slot; Language::ALL.len()] = [const { OnceLock::new() }; Language::ALL.len()];

/// Compiles (once) and returns the queries of `lang`.
pub(crate) fn compiled(lang: Language) -> Result<&'static Compiled, &'static QueryCompileError> {
    COMPILED[lang.index()]
        .get_or_init(|| {
            let spec = lang.spec();
            let language = grammar(lang);
            let tag_walk = match lang {
                Language::Python => TagWalk::python(spec.tags.text, &language),
                Language::JavaScript => TagWalk::javascript(spec.tags.text, &language),
                Language::C => TagWalk::c(spec.tags.text, &language),
                _ => None,
            };
            let ident_walk = spec
                .idents
                .and_then(|src| IdentWalk::parse(src.text, &language));
            let compiled = Compiled {
                tags: LazyQuery::new(lang, spec.tags),
                tag_walk,
                idents: spec.idents.map(|src| LazyQuery::new(lang, src)),
                ident_walk,
            };
            // A query run on every file of the language fails here, not at its first file.
            if compiled.tag_walk.is_none() {
                compiled.tags.get().map_err(Clone::clone)?;
            }
            Ok(compiled)
        })
        .as_ref()
}

/// Compiles every embedded query of `lang` and reports the first failure.
pub fn check_queries(lang: Language) -> Result<(), QueryCompileError> {
    let compiled = compiled(lang).map_err(Clone::clone)?;
    compiled.tags.get().map_err(Clone::clone)?;
    if let Some(idents) = &compiled.idents {
        idents.get().map_err(Clone::clone)?;
    }
    Ok(())
}

/// A stable fingerprint of every embedded query (their paths and texts) and of the aider
/// dialect's pygments tables, for cache versioning: it changes whenever any changes.
/// Computed once per process (a megabyte of text, read eight bytes at a step).
pub fn queries_fingerprint() -> u64 {
    static FINGERPRINT: OnceLock<u64> = OnceLock::new();
    *FINGERPRINT.get_or_init(|| {
        let mut hash = crate::FNV_OFFSET;
        let mut feed = |bytes: &[u8]| hash = fold_words(hash, bytes);
        for lang in Language::ALL {
            let spec = lang.spec();
            for src in std::iter::once(spec.tags).chain(spec.idents) {
                feed(src.path.as_bytes());
                feed(src.text.as_bytes());
            }
        }
        // The aider dialect's pygments tables decide its fallback references.
        feed(crate::pygments::DATA.as_bytes());
        hash
    })
}

/// FNV-1a's step over `bytes` taken as little-endian 64-bit words (the last one padded
/// with 0xff bytes, never part of UTF-8, so that texts' ends count), then mixed. Each
/// step is a bijection of the hash for a given word, so changing any one word of any text
/// always changes the result.
fn fold_words(hash: u64, bytes: &[u8]) -> u64 {
    let step = |h: u64, word: u64| (h ^ word).wrapping_mul(0x0100_0000_01b3);
    let mut chunks = bytes.chunks_exact(8);
    let mut h = chunks.by_ref().fold(hash, |h, chunk| {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        step(h, u64::from_le_bytes(word))
    });
    let mut last = [0xffu8; 8];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = step(h, u64::from_le_bytes(last));
    // Carry the high bits down (a multiply only carries up).
    h ^ (h >> 29) ^ (h >> 47)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn sub_kinds_are_exactly_those_of_the_embedded_queries() {
        let mut used = BTreeSet::from(["identifier"]);
        for lang in Language::ALL {
            let compiled = compiled(lang).expect("every embedded query compiles");
            let queries = std::iter::once(&compiled.tags).chain(&compiled.idents);
            let queries = queries.map(|q| q.get().expect("every embedded query compiles"));
            used.extend(
                queries
                    .flat_map(|q| q.captures.iter().flatten())
                    .map(|c| c.sub_kind),
            );
        }
        let listed: BTreeSet<&str> = capture::SUB_KINDS.iter().copied().collect();
        assert_eq!(
            listed, used,
            "SUB_KINDS (src/capture.rs) lists no more, no less"
        );
    }
}
