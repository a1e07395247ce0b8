//! Which language a file is in, decided from its name alone.
//!
//! [`filename_to_lang`] reproduces grep-ast 0.9.0's `filename_to_lang` with the
//! tree-sitter-language-pack table Aider 0.86.2 runs with: the full base name is looked up
//! first (`Makefile`, `go.mod`, …), then the extension as Python's `os.path.splitext` computes
//! it. It names every language grep-ast knows, including the many repo-mapper has no tag
//! query for; [`Language`] is the subset we extract tags from.

use std::path::Path;

use crate::Dialect;

/// A language repo-mapper extracts tags from.
///
/// Names follow grep-ast (`csharp`, `ocaml_interface`, …), see [`Language::name`].
/// [`Language::Tsx`] is `.tsx`: grep-ast calls it `typescript` and Aider parses it with the
/// TypeScript grammar; repo-mapper's default dialect uses the TSX grammar, which accepts JSX.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)] // The variants are language names.
pub enum Language {
    Arduino,
    Bash,
    C,
    Chatito,
    Clojure,
    CommonLisp,
    Cpp,
    CSharp,
    D,
    Dart,
    Elisp,
    Elixir,
    Elm,
    Fortran,
    Gleam,
    Go,
    Haskell,
    Hcl,
    Java,
    JavaScript,
    Julia,
    Kotlin,
    Lua,
    Matlab,
    OCaml,
    OCamlInterface,
    Php,
    Pony,
    Properties,
    Python,
    Ql,
    R,
    Racket,
    Ruby,
    Rust,
    Scala,
    Solidity,
    Swift,
    Tsx,
    TypeScript,
    Udev,
    Zig,
}

impl Language {
    /// Every supported language, in name order.
    pub const ALL: [Language; 42] = [
        Language::Arduino,
        Language::Bash,
        Language::C,
        Language::Chatito,
        Language::Clojure,
        Language::CommonLisp,
        Language::Cpp,
        Language::CSharp,
        Language::D,
        Language::Dart,
        Language::Elisp,
        Language::Elixir,
        Language::Elm,
        Language::Fortran,
        Language::Gleam,
        Language::Go,
        Language::Haskell,
        Language::Hcl,
        Language::Java,
        Language::JavaScript,
        Language::Julia,
        Language::Kotlin,
        Language::Lua,
        Language::Matlab,
        Language::OCaml,
        Language::OCamlInterface,
        Language::Php,
        Language::Pony,
        Language::Properties,
        Language::Python,
        Language::Ql,
        Language::R,
        Language::Racket,
        Language::Ruby,
        Language::Rust,
        Language::Scala,
        Language::Solidity,
        Language::Swift,
        Language::Tsx,
        Language::TypeScript,
        Language::Udev,
        Language::Zig,
    ];

    /// The language's name: grep-ast's name, except `tsx` for [`Language::Tsx`].
    pub fn name(self) -> &'static str {
        match self {
            Language::Arduino => "arduino",
            Language::Bash => "bash",
            Language::C => "c",
            Language::Chatito => "chatito",
            Language::Clojure => "clojure",
            Language::CommonLisp => "commonlisp",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::D => "d",
            Language::Dart => "dart",
            Language::Elisp => "elisp",
            Language::Elixir => "elixir",
            Language::Elm => "elm",
            Language::Fortran => "fortran",
            Language::Gleam => "gleam",
            Language::Go => "go",
            Language::Haskell => "haskell",
            Language::Hcl => "hcl",
            Language::Java => "java",
            Language::JavaScript => "javascript",
            Language::Julia => "julia",
            Language::Kotlin => "kotlin",
            Language::Lua => "lua",
            Language::Matlab => "matlab",
            Language::OCaml => "ocaml",
            Language::OCamlInterface => "ocaml_interface",
            Language::Php => "php",
            Language::Pony => "pony",
            Language::Properties => "properties",
            Language::Python => "python",
            Language::Ql => "ql",
            Language::R => "r",
            Language::Racket => "racket",
            Language::Ruby => "ruby",
            Language::Rust => "rust",
            Language::Scala => "scala",
            Language::Solidity => "solidity",
            Language::Swift => "swift",
            Language::Tsx => "tsx",
            Language::TypeScript => "typescript",
            Language::Udev => "udev",
            Language::Zig => "zig",
        }
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
    Some(match splitext(name) {
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
    lookup(name).or_else(|| lookup(splitext(name)))
}

/// The extension as Python's `os.path.splitext` returns it for a base name: from the last
/// dot on, unless every character before that dot is a dot too (`.bashrc` has none).
fn splitext(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot) if name[..dot].bytes().any(|b| b != b'.') => &name[dot..],
        _ => "",
    }
}

/// grep-ast 0.9.0's `PARSERS` table, as used with tree-sitter-language-pack.
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
}
