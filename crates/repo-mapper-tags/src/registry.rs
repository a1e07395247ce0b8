//! Grammar and queries of every supported language, embedded at compile time.
//!
//! Tag queries resolve as Aider resolves them (SPEC §4.1): `queries/tree-sitter-language-pack/`
//! first, `queries/tree-sitter-languages/` second; repo-mapper's own `queries/repo-mapper/`
//! comes third, for languages Aider has no query for (bash). Identifier queries
//! (`{lang}-idents.scm`, SPEC §3.2) are all our own, in `queries/repo-mapper/`.
//!
//! Queries compile once per process, on first use.

use std::sync::OnceLock;

use tree_sitter::Query;
use tree_sitter_language::LanguageFn;

use crate::{Language, scanner_guard};

/// Where an embedded query file comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuerySource {
    /// Path under `queries/`, e.g. `tree-sitter-language-pack/python-tags.scm`.
    pub path: &'static str,
    /// The query text.
    pub text: &'static str,
}

macro_rules! query {
    ($path:literal) => {
        QuerySource {
            path: $path,
            text: include_str!(concat!("../../../queries/", $path)),
        }
    };
}

struct Spec {
    grammar: LanguageFn,
    tags: QuerySource,
    idents: Option<QuerySource>,
}

fn spec(lang: Language) -> Spec {
    use Language as L;
    let (grammar, tags, idents) = match lang {
        L::Arduino => (
            tree_sitter_arduino::LANGUAGE,
            query!("tree-sitter-language-pack/arduino-tags.scm"),
            Some(query!("repo-mapper/arduino-idents.scm")),
        ),
        L::Bash => (
            tree_sitter_bash::LANGUAGE,
            query!("repo-mapper/bash-tags.scm"),
            Some(query!("repo-mapper/bash-idents.scm")),
        ),
        L::C => (
            tree_sitter_c::LANGUAGE,
            query!("tree-sitter-language-pack/c-tags.scm"),
            Some(query!("repo-mapper/c-idents.scm")),
        ),
        L::Chatito => (
            repo_mapper_grammars::CHATITO,
            query!("tree-sitter-language-pack/chatito-tags.scm"),
            Some(query!("repo-mapper/chatito-idents.scm")),
        ),
        L::Clojure => (
            tree_sitter_clojure::LANGUAGE,
            query!("tree-sitter-language-pack/clojure-tags.scm"),
            Some(query!("repo-mapper/clojure-idents.scm")),
        ),
        L::CommonLisp => (
            tree_sitter_commonlisp::LANGUAGE_COMMONLISP,
            query!("tree-sitter-language-pack/commonlisp-tags.scm"),
            Some(query!("repo-mapper/commonlisp-idents.scm")),
        ),
        L::Cpp => (
            tree_sitter_cpp::LANGUAGE,
            query!("tree-sitter-language-pack/cpp-tags.scm"),
            Some(query!("repo-mapper/cpp-idents.scm")),
        ),
        L::CSharp => (
            tree_sitter_c_sharp::LANGUAGE,
            query!("tree-sitter-language-pack/csharp-tags.scm"),
            Some(query!("repo-mapper/csharp-idents.scm")),
        ),
        L::D => (
            tree_sitter_d::LANGUAGE,
            query!("tree-sitter-language-pack/d-tags.scm"),
            Some(query!("repo-mapper/d-idents.scm")),
        ),
        L::Dart => (
            tree_sitter_dart::LANGUAGE,
            query!("tree-sitter-language-pack/dart-tags.scm"),
            Some(query!("repo-mapper/dart-idents.scm")),
        ),
        L::Elisp => (
            tree_sitter_elisp::LANGUAGE,
            query!("tree-sitter-language-pack/elisp-tags.scm"),
            Some(query!("repo-mapper/elisp-idents.scm")),
        ),
        L::Elixir => (
            tree_sitter_elixir::LANGUAGE,
            query!("tree-sitter-language-pack/elixir-tags.scm"),
            Some(query!("repo-mapper/elixir-idents.scm")),
        ),
        L::Elm => (
            tree_sitter_elm::LANGUAGE,
            query!("tree-sitter-language-pack/elm-tags.scm"),
            Some(query!("repo-mapper/elm-idents.scm")),
        ),
        L::Fortran => (
            tree_sitter_fortran::LANGUAGE,
            query!("tree-sitter-languages/fortran-tags.scm"),
            Some(query!("repo-mapper/fortran-idents.scm")),
        ),
        L::Gleam => (
            tree_sitter_gleam::LANGUAGE,
            query!("tree-sitter-language-pack/gleam-tags.scm"),
            Some(query!("repo-mapper/gleam-idents.scm")),
        ),
        L::Go => (
            tree_sitter_go::LANGUAGE,
            query!("tree-sitter-language-pack/go-tags.scm"),
            Some(query!("repo-mapper/go-idents.scm")),
        ),
        L::Haskell => (
            tree_sitter_haskell::LANGUAGE,
            query!("tree-sitter-languages/haskell-tags.scm"),
            Some(query!("repo-mapper/haskell-idents.scm")),
        ),
        L::Hcl => (
            tree_sitter_hcl::LANGUAGE,
            query!("tree-sitter-languages/hcl-tags.scm"),
            Some(query!("repo-mapper/hcl-idents.scm")),
        ),
        L::Java => (
            tree_sitter_java::LANGUAGE,
            query!("tree-sitter-language-pack/java-tags.scm"),
            Some(query!("repo-mapper/java-idents.scm")),
        ),
        L::JavaScript => (
            tree_sitter_javascript::LANGUAGE,
            query!("tree-sitter-language-pack/javascript-tags.scm"),
            Some(query!("repo-mapper/javascript-idents.scm")),
        ),
        L::Julia => (
            tree_sitter_julia::LANGUAGE,
            query!("tree-sitter-languages/julia-tags.scm"),
            Some(query!("repo-mapper/julia-idents.scm")),
        ),
        L::Kotlin => (
            tree_sitter_kotlin_ng::LANGUAGE,
            query!("tree-sitter-languages/kotlin-tags.scm"),
            Some(query!("repo-mapper/kotlin-idents.scm")),
        ),
        L::Lua => (
            tree_sitter_lua::LANGUAGE,
            query!("tree-sitter-language-pack/lua-tags.scm"),
            Some(query!("repo-mapper/lua-idents.scm")),
        ),
        L::Matlab => (
            tree_sitter_matlab::LANGUAGE,
            query!("tree-sitter-language-pack/matlab-tags.scm"),
            Some(query!("repo-mapper/matlab-idents.scm")),
        ),
        L::OCaml => (
            tree_sitter_ocaml::LANGUAGE_OCAML,
            query!("tree-sitter-language-pack/ocaml-tags.scm"),
            Some(query!("repo-mapper/ocaml-idents.scm")),
        ),
        L::OCamlInterface => (
            tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE,
            query!("tree-sitter-language-pack/ocaml_interface-tags.scm"),
            Some(query!("repo-mapper/ocaml_interface-idents.scm")),
        ),
        L::Php => (
            tree_sitter_php::LANGUAGE_PHP,
            query!("tree-sitter-languages/php-tags.scm"),
            Some(query!("repo-mapper/php-idents.scm")),
        ),
        L::Pony => (
            repo_mapper_grammars::PONY,
            query!("tree-sitter-language-pack/pony-tags.scm"),
            Some(query!("repo-mapper/pony-idents.scm")),
        ),
        L::Properties => (
            tree_sitter_properties::LANGUAGE,
            query!("tree-sitter-language-pack/properties-tags.scm"),
            Some(query!("repo-mapper/properties-idents.scm")),
        ),
        L::Python => (
            tree_sitter_python::LANGUAGE,
            query!("tree-sitter-language-pack/python-tags.scm"),
            Some(query!("repo-mapper/python-idents.scm")),
        ),
        L::Ql => (
            tree_sitter_ql::LANGUAGE,
            query!("tree-sitter-languages/ql-tags.scm"),
            Some(query!("repo-mapper/ql-idents.scm")),
        ),
        L::R => (
            tree_sitter_r::LANGUAGE,
            query!("tree-sitter-language-pack/r-tags.scm"),
            Some(query!("repo-mapper/r-idents.scm")),
        ),
        L::Racket => (
            tree_sitter_racket::LANGUAGE,
            query!("tree-sitter-language-pack/racket-tags.scm"),
            Some(query!("repo-mapper/racket-idents.scm")),
        ),
        L::Ruby => (
            tree_sitter_ruby::LANGUAGE,
            query!("tree-sitter-language-pack/ruby-tags.scm"),
            Some(query!("repo-mapper/ruby-idents.scm")),
        ),
        L::Rust => (
            tree_sitter_rust::LANGUAGE,
            query!("tree-sitter-language-pack/rust-tags.scm"),
            Some(query!("repo-mapper/rust-idents.scm")),
        ),
        L::Scala => (
            tree_sitter_scala::LANGUAGE,
            query!("tree-sitter-languages/scala-tags.scm"),
            Some(query!("repo-mapper/scala-idents.scm")),
        ),
        L::Solidity => (
            tree_sitter_solidity::LANGUAGE,
            query!("tree-sitter-language-pack/solidity-tags.scm"),
            Some(query!("repo-mapper/solidity-idents.scm")),
        ),
        L::Swift => (
            tree_sitter_swift::LANGUAGE,
            query!("tree-sitter-language-pack/swift-tags.scm"),
            Some(query!("repo-mapper/swift-idents.scm")),
        ),
        L::Tsx => (
            tree_sitter_typescript::LANGUAGE_TSX,
            query!("tree-sitter-languages/typescript-tags.scm"),
            Some(query!("repo-mapper/tsx-idents.scm")),
        ),
        L::TypeScript => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
            query!("tree-sitter-languages/typescript-tags.scm"),
            Some(query!("repo-mapper/typescript-idents.scm")),
        ),
        L::Udev => (
            repo_mapper_grammars::UDEV,
            query!("tree-sitter-language-pack/udev-tags.scm"),
            Some(query!("repo-mapper/udev-idents.scm")),
        ),
        L::Zig => (
            tree_sitter_zig::LANGUAGE,
            query!("tree-sitter-languages/zig-tags.scm"),
            Some(query!("repo-mapper/zig-idents.scm")),
        ),
    };
    Spec {
        grammar,
        tags,
        idents,
    }
}

/// The tree-sitter grammar of `lang`, its external scanner guarded so that no input can
/// make tree-sitter abort the process (see `scanner_guard`).
pub fn grammar(lang: Language) -> tree_sitter::Language {
    static GUARDED: [OnceLock<tree_sitter::Language>; Language::ALL.len()] =
        [const { OnceLock::new() }; Language::ALL.len()];
    let slot = slot_index(lang);
    GUARDED[slot]
        .get_or_init(|| scanner_guard::guard(unguarded_grammar(lang), slot))
        .clone()
}

/// The grammar of `lang` as its crate ships it.
pub(crate) fn unguarded_grammar(lang: Language) -> tree_sitter::Language {
    spec(lang).grammar.into()
}

/// The tag query file of `lang` (path under `queries/` and text).
pub fn tags_query_source(lang: Language) -> QuerySource {
    spec(lang).tags
}

/// The identifier query file of `lang`, if it has one.
pub fn idents_query_source(lang: Language) -> Option<QuerySource> {
    spec(lang).idents
}

/// Compiled queries of one language.
pub(crate) struct Compiled {
    pub tags: Query,
    pub idents: Option<Query>,
}

/// A query that did not compile against its grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryCompileError {
    /// The language.
    pub language: Language,
    /// The query file, relative to `queries/`.
    pub path: &'static str,
    /// tree-sitter's message.
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

type Slot = OnceLock<Result<Compiled, QueryCompileError>>;

static COMPILED: [Slot; Language::ALL.len()] = [const { OnceLock::new() }; Language::ALL.len()];

fn slot_index(lang: Language) -> usize {
    Language::ALL
        .iter()
        .position(|&l| l == lang)
        .expect("every language is in ALL")
}

/// Compiles (once) and returns the queries of `lang`.
pub(crate) fn compiled(lang: Language) -> Result<&'static Compiled, &'static QueryCompileError> {
    COMPILED[slot_index(lang)]
        .get_or_init(|| {
            let spec = spec(lang);
            let language = grammar(lang);
            let compile = |src: QuerySource| {
                Query::new(&language, src.text).map_err(|e| QueryCompileError {
                    language: lang,
                    path: src.path,
                    message: e.to_string(),
                })
            };
            Ok(Compiled {
                tags: compile(spec.tags)?,
                idents: spec.idents.map(compile).transpose()?,
            })
        })
        .as_ref()
}

/// Compiles every embedded query of `lang` and reports the first failure.
pub fn check_queries(lang: Language) -> Result<(), QueryCompileError> {
    compiled(lang).map(|_| ()).map_err(Clone::clone)
}

/// A stable fingerprint of every embedded query (FNV-1a over paths and texts) and of the
/// aider dialect's pygments tables, for cache versioning: it changes whenever any changes.
pub fn queries_fingerprint() -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash ^= 0xff;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    };
    for lang in Language::ALL {
        let spec = spec(lang);
        for src in std::iter::once(spec.tags).chain(spec.idents) {
            feed(src.path.as_bytes());
            feed(src.text.as_bytes());
        }
    }
    // The aider dialect's pygments tables decide its fallback references.
    feed(crate::pygments::DATA.as_bytes());
    hash
}
