//! Which language a file is in, decided from its name alone.
//!
//! [`filename_to_lang`] reproduces grep-ast 0.9.0's `filename_to_lang` with the
//! tree-sitter-language-pack table Aider 0.86.2 runs with: the full base name is looked up
//! first (`Makefile`, `go.mod`, …), then the extension as Python's `os.path.splitext` computes
//! it. It names every language grep-ast knows, including the many repo-mapper has no tag
//! query for; [`Language`] is the subset we extract tags from.

use std::path::Path;

use crate::{Dialect, pycompat};

/// Declares the languages from one table (see its invocation below): the [`Language`]
/// enum, [`Language::ALL`], [`Language::name`] and, with the `extract` feature, each
/// language's grammar and query files ([`Language::spec`]), all indexed by `lang as usize`.
///
/// A row is `Variant "name" => grammar, tags "path", idents "path";`, paths under
/// `queries/` (the `idents` part may be left out). Rows are in name order, so the enum's
/// order, `ALL`'s and the names' agree (a test checks it).
macro_rules! languages {
    (
        $(#[$attr:meta])*
        pub enum Language;
        $(
            $variant:ident $name:literal => $grammar:path,
                tags $tags:literal $(, idents $idents:literal)? $(, parse $parse:ident)?;
        )*
    ) => {
        $(#[$attr])*
        pub enum Language {
            $($variant,)*
        }

        impl Language {
            /// Every supported language, in name order (which is also the enum's order:
            /// `Language::ALL[lang as usize] == lang`).
            pub const ALL: [Language; [$(Language::$variant),*].len()] = [$(Language::$variant),*];

            /// The language's name: grep-ast's name, except `tsx` for [`Language::Tsx`].
            pub fn name(self) -> &'static str {
                match self {
                    $(Language::$variant => $name,)*
                }
            }

            /// The grammar and embedded query files of the language.
            #[cfg(feature = "extract")]
            pub(crate) fn spec(self) -> &'static crate::registry::Spec {
                use crate::registry::{QuerySource, Spec};
                static SPECS: [Spec; Language::ALL.len()] = [$(Spec {
                    grammar: $grammar,
                    tags: QuerySource {
                        path: $tags,
                        text: include_str!(concat!("../../../queries/", $tags)),
                    },
                    idents: languages!(@optional $(QuerySource {
                        path: $idents,
                        text: include_str!(concat!("../../../queries/", $idents)),
                    })?),
                    parse_serially: languages!(@serially $($parse)?),
                }),*];
                &SPECS[self.index()]
            }
        }
    };
    (@serially) => { false };
    (@serially serially) => { true };
    (@optional) => { None };
    (@optional $source:expr) => { Some($source) };
}

languages! {
    /// A language repo-mapper extracts tags from.
    ///
    /// Names follow grep-ast (`csharp`, `ocaml_interface`, …), see [`Language::name`].
    /// [`Language::Tsx`] is `.tsx`: grep-ast calls it `typescript` and Aider parses it with the
    /// TypeScript grammar; repo-mapper's default dialect uses the TSX grammar, which accepts JSX.
    ///
    /// Adding a language is one row here (in name order) and its grammar's dependency in
    /// `Cargo.toml` (listed under the `extract` feature).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[allow(missing_docs)] // The variants are language names.
    pub enum Language;

    // Variant "name" => grammar,
    //     tags query, idents query (paths under `queries/`; see `registry.rs` for which
    //     directory a language's tag query comes from).
    Arduino "arduino" => tree_sitter_arduino::LANGUAGE,
        tags "tree-sitter-language-pack/arduino-tags.scm", idents "repo-mapper/arduino-idents.scm";
    Bash "bash" => tree_sitter_bash::LANGUAGE,
        tags "repo-mapper/bash-tags.scm", idents "repo-mapper/bash-idents.scm";
    C "c" => tree_sitter_c::LANGUAGE,
        tags "tree-sitter-language-pack/c-tags.scm", idents "repo-mapper/c-idents.scm";
    Chatito "chatito" => repo_mapper_grammars::CHATITO,
        tags "tree-sitter-language-pack/chatito-tags.scm", idents "repo-mapper/chatito-idents.scm";
    Clojure "clojure" => tree_sitter_clojure::LANGUAGE,
        tags "tree-sitter-language-pack/clojure-tags.scm", idents "repo-mapper/clojure-idents.scm";
    CommonLisp "commonlisp" => tree_sitter_commonlisp::LANGUAGE_COMMONLISP,
        tags "tree-sitter-language-pack/commonlisp-tags.scm", idents "repo-mapper/commonlisp-idents.scm";
    Cpp "cpp" => tree_sitter_cpp::LANGUAGE,
        tags "tree-sitter-language-pack/cpp-tags.scm", idents "repo-mapper/cpp-idents.scm";
    CSharp "csharp" => tree_sitter_c_sharp::LANGUAGE,
        tags "tree-sitter-language-pack/csharp-tags.scm", idents "repo-mapper/csharp-idents.scm";
    D "d" => tree_sitter_d::LANGUAGE,
        tags "tree-sitter-language-pack/d-tags.scm", idents "repo-mapper/d-idents.scm";
    Dart "dart" => tree_sitter_dart::LANGUAGE,
        tags "tree-sitter-language-pack/dart-tags.scm", idents "repo-mapper/dart-idents.scm";
    Elisp "elisp" => tree_sitter_elisp::LANGUAGE,
        tags "tree-sitter-language-pack/elisp-tags.scm", idents "repo-mapper/elisp-idents.scm";
    Elixir "elixir" => tree_sitter_elixir::LANGUAGE,
        tags "tree-sitter-language-pack/elixir-tags.scm", idents "repo-mapper/elixir-idents.scm";
    Elm "elm" => tree_sitter_elm::LANGUAGE,
        tags "tree-sitter-language-pack/elm-tags.scm", idents "repo-mapper/elm-idents.scm";
    Fortran "fortran" => tree_sitter_fortran::LANGUAGE,
        tags "tree-sitter-languages/fortran-tags.scm", idents "repo-mapper/fortran-idents.scm";
    Gleam "gleam" => tree_sitter_gleam::LANGUAGE,
        tags "tree-sitter-language-pack/gleam-tags.scm", idents "repo-mapper/gleam-idents.scm";
    Go "go" => tree_sitter_go::LANGUAGE,
        tags "tree-sitter-language-pack/go-tags.scm", idents "repo-mapper/go-idents.scm";
    Haskell "haskell" => tree_sitter_haskell::LANGUAGE,
        tags "tree-sitter-languages/haskell-tags.scm", idents "repo-mapper/haskell-idents.scm";
    Hcl "hcl" => tree_sitter_hcl::LANGUAGE,
        tags "tree-sitter-languages/hcl-tags.scm", idents "repo-mapper/hcl-idents.scm";
    Java "java" => tree_sitter_java::LANGUAGE,
        tags "tree-sitter-language-pack/java-tags.scm", idents "repo-mapper/java-idents.scm";
    JavaScript "javascript" => tree_sitter_javascript::LANGUAGE,
        tags "tree-sitter-language-pack/javascript-tags.scm", idents "repo-mapper/javascript-idents.scm";
    Julia "julia" => tree_sitter_julia::LANGUAGE,
        tags "tree-sitter-languages/julia-tags.scm", idents "repo-mapper/julia-idents.scm";
    Kotlin "kotlin" => tree_sitter_kotlin_ng::LANGUAGE,
        tags "tree-sitter-languages/kotlin-tags.scm", idents "repo-mapper/kotlin-idents.scm";
    Lua "lua" => tree_sitter_lua::LANGUAGE,
        tags "tree-sitter-language-pack/lua-tags.scm", idents "repo-mapper/lua-idents.scm";
    Matlab "matlab" => tree_sitter_matlab::LANGUAGE,
        tags "tree-sitter-language-pack/matlab-tags.scm", idents "repo-mapper/matlab-idents.scm";
    OCaml "ocaml" => tree_sitter_ocaml::LANGUAGE_OCAML,
        tags "tree-sitter-language-pack/ocaml-tags.scm", idents "repo-mapper/ocaml-idents.scm";
    OCamlInterface "ocaml_interface" => tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE,
        tags "tree-sitter-language-pack/ocaml_interface-tags.scm", idents "repo-mapper/ocaml_interface-idents.scm";
    Php "php" => tree_sitter_php::LANGUAGE_PHP,
        tags "tree-sitter-languages/php-tags.scm", idents "repo-mapper/php-idents.scm";
    Pony "pony" => repo_mapper_grammars::PONY,
        tags "tree-sitter-language-pack/pony-tags.scm", idents "repo-mapper/pony-idents.scm";
    Properties "properties" => tree_sitter_properties::LANGUAGE,
        tags "tree-sitter-language-pack/properties-tags.scm", idents "repo-mapper/properties-idents.scm",
        // tree-sitter-properties 0.3's scanner keeps its state in a C global.
        parse serially;
    Python "python" => tree_sitter_python::LANGUAGE,
        tags "tree-sitter-language-pack/python-tags.scm", idents "repo-mapper/python-idents.scm";
    Ql "ql" => tree_sitter_ql::LANGUAGE,
        tags "tree-sitter-languages/ql-tags.scm", idents "repo-mapper/ql-idents.scm";
    R "r" => tree_sitter_r::LANGUAGE,
        tags "tree-sitter-language-pack/r-tags.scm", idents "repo-mapper/r-idents.scm";
    Racket "racket" => tree_sitter_racket::LANGUAGE,
        tags "tree-sitter-language-pack/racket-tags.scm", idents "repo-mapper/racket-idents.scm";
    Ruby "ruby" => tree_sitter_ruby::LANGUAGE,
        tags "tree-sitter-language-pack/ruby-tags.scm", idents "repo-mapper/ruby-idents.scm";
    Rust "rust" => tree_sitter_rust::LANGUAGE,
        tags "tree-sitter-language-pack/rust-tags.scm", idents "repo-mapper/rust-idents.scm";
    Scala "scala" => tree_sitter_scala::LANGUAGE,
        tags "tree-sitter-languages/scala-tags.scm", idents "repo-mapper/scala-idents.scm";
    Solidity "solidity" => tree_sitter_solidity::LANGUAGE,
        tags "tree-sitter-language-pack/solidity-tags.scm", idents "repo-mapper/solidity-idents.scm";
    Swift "swift" => tree_sitter_swift::LANGUAGE,
        tags "tree-sitter-language-pack/swift-tags.scm", idents "repo-mapper/swift-idents.scm";
    Tsx "tsx" => tree_sitter_typescript::LANGUAGE_TSX,
        tags "tree-sitter-languages/typescript-tags.scm", idents "repo-mapper/tsx-idents.scm";
    TypeScript "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        tags "tree-sitter-languages/typescript-tags.scm", idents "repo-mapper/typescript-idents.scm";
    Udev "udev" => repo_mapper_grammars::UDEV,
        tags "tree-sitter-language-pack/udev-tags.scm", idents "repo-mapper/udev-idents.scm";
    Zig "zig" => tree_sitter_zig::LANGUAGE,
        tags "tree-sitter-languages/zig-tags.scm", idents "repo-mapper/zig-idents.scm";
}

impl Language {
    /// The position of the language in [`Language::ALL`], for per-language tables.
    #[cfg(any(feature = "extract", test))]
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// The language named `name` (as [`Language::name`] spells it), if supported.
    pub fn from_name(name: &str) -> Option<Language> {
        Language::ALL.into_iter().find(|l| l.name() == name)
    }

    /// Whether Aider 0.86.2 (with tree-sitter-language-pack 0.13) extracts tags for this
    /// language at all. It does not for `bash` (no query), `julia` (its query does not
    /// compile against the pack's grammar) and `ql` (no grammar in the pack, and no
    /// extension maps to it). The `aider` dialect yields no tags for these.
    pub fn aider_supported(self) -> bool {
        !matches!(self, Language::Bash | Language::Julia | Language::Ql)
    }

    /// The language of `path` under `dialect`, from its file name.
    ///
    /// [`Dialect::Aider`] uses grep-ast's table exactly. [`Dialect::Default`] adds a few
    /// extensions grep-ast lacks (`.ql`, `.qll`, `.cjs`, `.mts`, `.cts`, `.pyi`) and maps
    /// `.tsx` to [`Language::Tsx`].
    pub fn for_path(path: &Path, dialect: Dialect) -> Option<Language> {
        if dialect == Dialect::Default
            && let Some(lang) = extra_extension(path)
        {
            return Some(lang);
        }
        let lang = Language::from_name(filename_to_lang(path)?)?;
        if dialect == Dialect::Aider && !lang.aider_supported() {
            return None;
        }
        Some(lang)
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Extensions repo-mapper's default dialect maps beyond grep-ast's table.
fn extra_extension(path: &Path) -> Option<Language> {
    let name = path.file_name()?.to_str()?;
    Some(match extension(name) {
        ".ql" | ".qll" => Language::Ql,
        ".cjs" => Language::JavaScript,
        ".mts" | ".cts" => Language::TypeScript,
        ".pyi" => Language::Python,
        ".tsx" => Language::Tsx,
        _ => return None,
    })
}

/// grep-ast 0.9.0's `filename_to_lang` (tree-sitter-language-pack table): the language
/// name for `path`'s full base name if that is a key of the table, else for its extension.
///
/// Returns grep-ast's name for every language it knows, supported by repo-mapper or not.
/// A path whose base name is not valid UTF-8 has no language.
pub fn filename_to_lang(path: &Path) -> Option<&'static str> {
    let name = path.file_name()?.to_str()?;
    lookup(name).or_else(|| lookup(extension(name)))
}

/// The extension of a base name, as Python's `os.path.splitext` gives it.
fn extension(name: &str) -> &str {
    pycompat::splitext(name).1
}

/// grep-ast 0.9.0's `PARSERS` table, as used with tree-sitter-language-pack.
#[allow(
    clippy::too_many_lines,
    reason = "a table, one arm per extension: data, not steps"
)]
fn lookup(key: &str) -> Option<&'static str> {
    Some(match key {
        ".as" => "actionscript",
        ".adb" | ".ads" => "ada",
        ".agda" => "agda",
        ".ino" => "arduino",
        ".asm" | ".s" => "asm",
        ".astro" => "astro",
        ".sh" | ".bash" | ".zsh" => "bash",
        ".bean" => "beancount",
        ".bib" => "bibtex",
        ".bicep" => "bicep",
        ".bb" | ".bbappend" | ".bbclass" => "bitbake",
        ".c" | ".h" => "c",
        ".cairo" => "cairo",
        ".capnp" => "capnp",
        ".chatito" => "chatito",
        ".clar" => "clarity",
        ".clj" | ".cljs" | ".cljc" | ".edn" => "clojure",
        ".cmake" | "CMakeLists.txt" => "cmake",
        ".lisp" | ".cl" => "commonlisp",
        ".cpon" => "cpon",
        ".cpp" | ".cc" | ".cxx" | ".hpp" | ".hxx" | ".h++" => "cpp",
        ".cs" => "csharp",
        ".css" => "css",
        ".csv" => "csv",
        ".cu" | ".cuh" => "cuda",
        ".d" => "d",
        ".dart" => "dart",
        "Dockerfile" => "dockerfile",
        ".dtd" => "dtd",
        ".el" => "elisp",
        ".ex" | ".exs" => "elixir",
        ".elm" => "elm",
        ".erl" | ".hrl" => "erlang",
        ".fnl" => "fennel",
        ".fir" => "firrtl",
        ".fish" => "fish",
        ".f" | ".f90" | ".f95" | ".f03" | ".f08" => "fortran",
        ".fc" => "func",
        ".gd" => "gdscript",
        ".gitattributes" => "gitattributes",
        ".gitcommit" => "gitcommit",
        ".gitignore" => "gitignore",
        ".gleam" => "gleam",
        ".glsl" | ".vert" | ".frag" => "glsl",
        ".gn" | ".gni" => "gn",
        ".go" => "go",
        "go.mod" => "gomod",
        "go.sum" => "gosum",
        ".groovy" => "groovy",
        ".launch" => "gstlaunch",
        ".hack" => "hack",
        ".ha" => "hare",
        ".hs" => "haskell",
        ".hx" => "haxe",
        ".hcl" | ".tf" | ".tfvars" => "hcl",
        ".heex" => "heex",
        ".hlsl" => "hlsl",
        ".html" | ".htm" => "html",
        ".hypr" => "hyprlang",
        ".ispc" => "ispc",
        ".janet" => "janet",
        ".java" => "java",
        ".js" | ".jsx" | ".mjs" => "javascript",
        ".jsdoc" => "jsdoc",
        ".json" => "json",
        ".jsonnet" | ".libsonnet" => "jsonnet",
        ".jl" => "julia",
        "Kconfig" => "kconfig",
        ".kdl" => "kdl",
        ".kt" | ".kts" => "kotlin",
        ".tex" | ".sty" | ".cls" => "latex",
        ".ld" => "linkerscript",
        ".ll" => "llvm",
        ".td" => "tablegen",
        ".lua" => "lua",
        ".luadoc" => "luadoc",
        ".luap" => "luap",
        ".luau" => "luau",
        ".magik" => "magik",
        "Makefile" | ".mk" => "make",
        ".md" | ".markdown" => "markdown",
        ".m" | ".mat" => "matlab",
        ".mermaid" => "mermaid",
        "meson.build" => "meson",
        ".ninja" => "ninja",
        ".nix" => "nix",
        ".nqc" => "nqc",
        ".mm" => "objc",
        ".ml" => "ocaml",
        ".mli" => "ocaml_interface",
        ".odin" => "odin",
        ".org" => "org",
        ".pas" | ".pp" => "pascal",
        ".pem" => "pem",
        ".pl" | ".pm" => "perl",
        ".pgn" => "pgn",
        ".php" => "php",
        ".po" | ".pot" => "po",
        ".pony" => "pony",
        ".ps1" | ".psm1" => "powershell",
        ".printf" => "printf",
        ".prisma" => "prisma",
        ".properties" => "properties",
        ".proto" => "proto",
        ".psv" => "psv",
        ".purs" => "purescript",
        "MANIFEST.in" => "pymanifest",
        ".py" => "python",
        "qmldir" => "qmldir",
        ".qml" => "qmljs",
        ".r" | ".R" => "r",
        ".rkt" => "racket",
        ".re2c" => "re2c",
        ".inputrc" => "readline",
        "requirements.txt" => "requirements",
        ".ron" => "ron",
        ".rst" => "rst",
        ".rb" => "ruby",
        ".rs" => "rust",
        ".scala" | ".sc" => "scala",
        ".scm" | ".ss" => "scheme",
        ".scss" => "scss",
        ".smali" => "smali",
        ".smithy" => "smithy",
        ".sol" => "solidity",
        ".rq" => "sparql",
        ".sql" => "sql",
        ".nut" => "squirrel",
        ".bzl" | "BUILD" | "WORKSPACE" => "starlark",
        ".svelte" => "svelte",
        ".swift" => "swift",
        ".tcl" => "tcl",
        ".thrift" => "thrift",
        ".toml" => "toml",
        ".tsv" => "tsv",
        ".tsx" | ".ts" => "typescript",
        ".twig" => "twig",
        ".typ" => "typst",
        ".rules" => "udev",
        ".ungram" => "ungrammar",
        ".tal" => "uxntal",
        ".sv" | ".v" => "verilog",
        ".vhd" | ".vhdl" => "vhdl",
        ".vim" | ".vimrc" => "vim",
        ".vue" => "vue",
        ".wgsl" => "wgsl",
        ".XCompose" => "xcompose",
        ".xml" | ".svg" | ".xsl" => "xml",
        ".yuck" => "yuck",
        ".zig" => "zig",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lang(p: &str) -> Option<&'static str> {
        filename_to_lang(Path::new(p))
    }

    #[test]
    fn base_name_wins_over_extension() {
        assert_eq!(lang("/x/CMakeLists.txt"), Some("cmake"));
        assert_eq!(lang("go.mod"), Some("gomod"));
        assert_eq!(lang("a/Makefile"), Some("make"));
        assert_eq!(lang("requirements.txt"), Some("requirements"));
        // Any key matches as a base name, extension keys included (grep-ast checks
        // `basename in PARSERS`).
        assert_eq!(lang("dir/.gitignore"), Some("gitignore"));
        assert_eq!(lang(".py"), Some("python"));
    }

    #[test]
    fn extension_follows_python_splitext() {
        assert_eq!(lang("src/main.rs"), Some("rust"));
        assert_eq!(lang("archive.tar.py"), Some("python"));
        assert_eq!(lang("script.R"), Some("r"));
        assert_eq!(lang("script.r"), Some("r"));
        assert_eq!(lang("Main.PY"), None, "extensions are case sensitive");
        assert_eq!(lang(".bashrc"), None, "a leading dot is not an extension");
        assert_eq!(
            lang("..sh"),
            None,
            "only dots before the last dot: no extension"
        );
        assert_eq!(lang("a..sh"), Some("bash"));
        assert_eq!(lang("noext"), None);
        assert_eq!(lang("dir.py/noext"), None);
        assert_eq!(lang("x.tsx"), Some("typescript"));
        assert_eq!(
            lang("x.ql"),
            None,
            "grep-ast's language-pack table has no .ql"
        );
    }

    #[test]
    fn dialects() {
        let p = |s: &str, d| Language::for_path(Path::new(s), d);
        assert_eq!(p("a.tsx", Dialect::Default), Some(Language::Tsx));
        assert_eq!(p("a.tsx", Dialect::Aider), Some(Language::TypeScript));
        assert_eq!(p("a.ql", Dialect::Default), Some(Language::Ql));
        assert_eq!(p("a.ql", Dialect::Aider), None);
        assert_eq!(p("a.sh", Dialect::Default), Some(Language::Bash));
        assert_eq!(p("a.sh", Dialect::Aider), None);
        assert_eq!(p("a.jl", Dialect::Aider), None);
        assert_eq!(p("a.css", Dialect::Default), None);
        assert_eq!(p("a.cs", Dialect::Aider), Some(Language::CSharp));
        assert_eq!(p("a.h", Dialect::Aider), Some(Language::C));
    }

    #[test]
    fn names_round_trip() {
        for l in Language::ALL {
            assert_eq!(Language::from_name(l.name()), Some(l));
        }
        let mut names: Vec<_> = Language::ALL.iter().map(|l| l.name()).collect();
        let sorted = {
            let mut s = names.clone();
            s.sort_unstable();
            s
        };
        assert_eq!(names, sorted, "ALL is in name order");
        names.dedup();
        assert_eq!(names.len(), Language::ALL.len());
    }

    #[test]
    fn all_is_in_enum_order() {
        for (i, l) in Language::ALL.into_iter().enumerate() {
            assert_eq!(l.index(), i, "{l}");
        }
    }
}
