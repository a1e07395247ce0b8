//! The modules a file imports, as written: which of them is the standard library, a
//! dependency or the repository's own code is for the caller, who knows the repository.

use tree_sitter::{Node, Tree};

use super::{named_children, preorder, text};
use crate::Language;

/// How an import names its module; it decides where a local one is looked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ImportForm {
    /// A module path or package name (`os.path`, `react`, `std::io`, `java.util.List`).
    Module,
    /// Relative to the importing file (`.util`, `./util`, `require_relative`,
    /// `#include "x.h"`, PHP's `require 'x.php'`).
    Relative,
    /// A system header (`#include <stdio.h>`).
    System,
    /// A Rust module declared by `mod name;`: a file beside the importing one.
    ModDecl,
}

/// One import of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RawImport {
    /// The module as written, quotes and brackets left out, spaces collapsed.
    pub module: String,
    /// Its line, counted from 1.
    pub line: usize,
    /// How it names the module.
    pub form: ImportForm,
}

/// The imports of `source` (parsed as `tree`) in source order, each module once (its
/// first line); `None` where `lang` is not explored ([`super::explores`]).
pub fn imports(lang: Language, source: &str, tree: &Tree) -> Option<Vec<RawImport>> {
    if !super::explores(lang) {
        return None;
    }
    let mut out: Vec<RawImport> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for node in preorder(tree) {
        for (module, form) in of_node(lang, source, node) {
            let module = module.split_whitespace().collect::<Vec<_>>().join(" ");
            if module.is_empty() || !seen.insert((module.clone(), form)) {
                continue;
            }
            let line = node.start_position().row + 1;
            out.push(RawImport { module, line, form });
        }
    }
    Some(out)
}

/// The modules `node` imports, if it is an import of `lang`.
fn of_node(lang: Language, source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    use Language::*;
    match lang {
        Python => python(source, node),
        JavaScript | TypeScript | Tsx => javascript(source, node),
        Go => single(
            node.kind() == "import_spec",
            source,
            node.child_by_field_name("path"),
        ),
        Rust => rust(source, node),
        Java => java_like(node.kind() == "import_declaration", source, node),
        Kotlin => java_like(node.kind() == "import", source, node),
        C | Cpp => include(source, node),
        CSharp => csharp(source, node),
        Ruby => ruby(source, node),
        Php => php(source, node),
        Swift => swift(source, node),
        _ => Vec::new(),
    }
}

/// `import a.b, c as d`, `from .x import y`, `from __future__ import z`.
fn python(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    let module = |n: Node<'_>| {
        let t = text(source, n).to_owned();
        let form = if t.starts_with('.') {
            ImportForm::Relative
        } else {
            ImportForm::Module
        };
        (t, form)
    };
    match node.kind() {
        "import_statement" => named_children(node)
            .filter_map(|c| match c.kind() {
                "dotted_name" => Some(module(c)),
                "aliased_import" => c.child_by_field_name("name").map(module),
                _ => None,
            })
            .collect(),
        "import_from_statement" => node
            .child_by_field_name("module_name")
            .map(module)
            .into_iter()
            .collect(),
        "future_import_statement" => vec![("__future__".to_owned(), ImportForm::Module)],
        _ => Vec::new(),
    }
}

/// `import … from "m"`, `export … from "m"`, `require("m")`, `import("m")`,
/// `import x = require("m")`.
fn javascript(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    let source_string = match node.kind() {
        "import_statement" | "export_statement" => node.child_by_field_name("source"),
        "import_require_clause" => named_children(node).find(|c| c.kind() == "string"),
        "call_expression" => {
            let callee = node.child_by_field_name("function");
            let named = callee.is_some_and(|f| {
                f.kind() == "import" || (f.kind() == "identifier" && text(source, f) == "require")
            });
            let args = node.child_by_field_name("arguments").filter(|_| named);
            args.and_then(|a| a.named_child(0))
                .filter(|s| s.kind() == "string")
        }
        _ => None,
    };
    let Some(string) = source_string else {
        return Vec::new();
    };
    let module = unquote(text(source, string));
    let form = if module.starts_with('.') || module.starts_with('/') {
        ImportForm::Relative
    } else {
        ImportForm::Module
    };
    vec![(module, form)]
}

/// `use a::b::{c, d}`, `extern crate x`, `mod name;`.
fn rust(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    match node.kind() {
        "use_declaration" => node
            .child_by_field_name("argument")
            .map(|a| vec![(text(source, a).to_owned(), ImportForm::Module)])
            .unwrap_or_default(),
        "extern_crate_declaration" => node
            .child_by_field_name("name")
            .map(|n| vec![(text(source, n).to_owned(), ImportForm::Module)])
            .unwrap_or_default(),
        "mod_item" if node.child_by_field_name("body").is_none() => node
            .child_by_field_name("name")
            .map(|n| vec![(text(source, n).to_owned(), ImportForm::ModDecl)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// Java's `import a.b.C;` / `import a.b.*;` and Kotlin's `import a.b.C`.
fn java_like(is_import: bool, source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    if !is_import {
        return Vec::new();
    }
    let path = named_children(node).find(|c| {
        matches!(
            c.kind(),
            "scoped_identifier" | "identifier" | "qualified_identifier"
        )
    });
    let Some(path) = path else {
        return Vec::new();
    };
    let mut module = text(source, path).to_owned();
    let all =
        named_children(node).any(|c| c.kind() == "asterisk") || text(source, node).contains(".*");
    if all && !module.ends_with('*') {
        module.push_str(".*");
    }
    vec![(module, ImportForm::Module)]
}

/// `#include <x.h>` and `#include "x.h"`.
fn include(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    if node.kind() != "preproc_include" {
        return Vec::new();
    }
    let Some(path) = node.child_by_field_name("path") else {
        return Vec::new();
    };
    let raw = text(source, path);
    match path.kind() {
        "system_lib_string" => {
            let inner = raw.trim_start_matches('<').trim_end_matches('>');
            vec![(inner.to_owned(), ImportForm::System)]
        }
        "string_literal" => vec![(unquote(raw), ImportForm::Relative)],
        _ => Vec::new(),
    }
}

/// `using A.B;`, `using static A.B;`, `using X = A.B;`.
fn csharp(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    if node.kind() != "using_directive" {
        return Vec::new();
    }
    let path = named_children(node)
        .filter(|c| matches!(c.kind(), "qualified_name" | "identifier"))
        .last();
    path.map(|p| vec![(text(source, p).to_owned(), ImportForm::Module)])
        .unwrap_or_default()
}

/// `require "x"`, `require_relative "x"`, `load "x.rb"`.
fn ruby(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    if node.kind() != "call" || node.child_by_field_name("receiver").is_some() {
        return Vec::new();
    }
    let Some(method) = node.child_by_field_name("method") else {
        return Vec::new();
    };
    let form = match text(source, method) {
        "require" => ImportForm::Module,
        "require_relative" | "load" => ImportForm::Relative,
        _ => return Vec::new(),
    };
    let arg = node
        .child_by_field_name("arguments")
        .and_then(|a| a.named_child(0))
        .filter(|s| s.kind() == "string");
    let content = arg.and_then(|s| named_children(s).find(|c| c.kind() == "string_content"));
    content
        .map(|c| vec![(text(source, c).to_owned(), form)])
        .unwrap_or_default()
}

/// `use A\B;`, `use A\{B, C};`, `require_once 'x.php'` (a literal path only).
fn php(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    match node.kind() {
        "namespace_use_declaration" => php_uses(source, node),
        "require_expression"
        | "require_once_expression"
        | "include_expression"
        | "include_once_expression" => {
            let literal =
                named_children(node).find(|c| matches!(c.kind(), "string" | "encapsed_string"));
            let content =
                literal.and_then(|s| named_children(s).find(|c| c.kind() == "string_content"));
            content
                .map(|c| vec![(text(source, c).to_owned(), ImportForm::Relative)])
                .unwrap_or_default()
        }
        _ => Vec::new(),
    }
}

/// The names of one `use` declaration, a group's prefix put before each of its names.
fn php_uses(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    let clause_name = |clause: Node<'_>| {
        named_children(clause)
            .find(|c| matches!(c.kind(), "qualified_name" | "name"))
            .map(|n| text(source, n).trim_start_matches('\\').to_owned())
    };
    let prefix = named_children(node)
        .find(|c| c.kind() == "namespace_name")
        .map(|p| text(source, p).trim_start_matches('\\').to_owned());
    let mut clauses: Vec<Node<'_>> = named_children(node)
        .filter(|c| c.kind() == "namespace_use_clause")
        .collect();
    if let Some(group) = named_children(node).find(|c| c.kind() == "namespace_use_group") {
        clauses.extend(named_children(group).filter(|c| c.kind() == "namespace_use_clause"));
    }
    clauses
        .into_iter()
        .filter_map(clause_name)
        .map(|name| match &prefix {
            Some(p) => (format!("{p}\\{name}"), ImportForm::Module),
            None => (name, ImportForm::Module),
        })
        .collect()
}

/// `import Foundation`, `import struct Foo.Bar`.
fn swift(source: &str, node: Node<'_>) -> Vec<(String, ImportForm)> {
    if node.kind() != "import_declaration" {
        return Vec::new();
    }
    named_children(node)
        .find(|c| c.kind() == "identifier")
        .map(|i| vec![(text(source, i).to_owned(), ImportForm::Module)])
        .unwrap_or_default()
}

/// A string node's text as a module (`""` when `node` is absent).
fn single(is: bool, source: &str, node: Option<Node<'_>>) -> Vec<(String, ImportForm)> {
    match node {
        Some(n) if is => vec![(unquote(text(source, n)), ImportForm::Module)],
        _ => Vec::new(),
    }
}

/// A string literal's text without its quotes.
fn unquote(literal: &str) -> String {
    literal
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, parse_within};

    fn found(lang: Language, source: &str) -> Vec<(String, ImportForm)> {
        let tree = parse_within(lang, source, &Limits::default()).unwrap();
        imports(lang, source, &tree)
            .unwrap()
            .into_iter()
            .map(|i| (i.module, i.form))
            .collect()
    }

    fn modules(lang: Language, source: &str) -> Vec<String> {
        found(lang, source).into_iter().map(|(m, _)| m).collect()
    }

    #[test]
    fn python_imports_every_form() {
        let got = found(
            Language::Python,
            "from __future__ import annotations\nimport os.path, sys as system\nfrom ..a.b import c\nfrom . import d\ndef f():\n    import json\n",
        );
        let m: Vec<&str> = got.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(m, ["__future__", "os.path", "sys", "..a.b", ".", "json"]);
        assert_eq!(got[3].1, ImportForm::Relative);
        assert_eq!(got[1].1, ImportForm::Module);
    }

    #[test]
    fn javascript_and_typescript_imports() {
        let js = "import a from 'react';\nimport './side.css';\nexport { b } from \"../b.js\";\nconst fs = require('node:fs');\nconst lazy = import('./lazy');\n";
        assert_eq!(
            modules(Language::JavaScript, js),
            ["react", "./side.css", "../b.js", "node:fs", "./lazy"]
        );
        let ts = "import type { X } from '@scope/pkg/sub';\nimport fs = require('fs');\n";
        assert_eq!(modules(Language::TypeScript, ts), ["@scope/pkg/sub", "fs"]);
        assert_eq!(modules(Language::Tsx, ts), ["@scope/pkg/sub", "fs"]);
    }

    #[test]
    fn go_rust_java_kotlin_imports() {
        let go = "package x\nimport (\n\t\"fmt\"\n\tlog \"github.com/a/b/log\"\n)\nimport \"os\"\n";
        assert_eq!(
            modules(Language::Go, go),
            ["fmt", "github.com/a/b/log", "os"]
        );
        let rust = "use std::io::{self, Read};\nuse crate::a::b as c;\nextern crate serde;\nmod util;\nmod inline { }\n";
        let got = found(Language::Rust, rust);
        let m: Vec<&str> = got.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            m,
            ["std::io::{self, Read}", "crate::a::b as c", "serde", "util"]
        );
        assert_eq!(got[3].1, ImportForm::ModDecl);
        let java = "package a;\nimport java.util.List;\nimport static org.junit.Assert.assertEquals;\nimport com.x.*;\n";
        assert_eq!(
            modules(Language::Java, java),
            ["java.util.List", "org.junit.Assert.assertEquals", "com.x.*"]
        );
        let kt = "package a\nimport kotlin.math.max\nimport okio.*\n";
        assert_eq!(modules(Language::Kotlin, kt), ["kotlin.math.max", "okio.*"]);
    }

    #[test]
    fn c_csharp_ruby_php_swift_imports() {
        let c = "#include <stdio.h>\n#include \"util/x.h\"\n";
        let got = found(Language::C, c);
        assert_eq!(got[0], ("stdio.h".to_owned(), ImportForm::System));
        assert_eq!(got[1], ("util/x.h".to_owned(), ImportForm::Relative));
        assert_eq!(modules(Language::Cpp, "#include <vector>\n"), ["vector"]);
        let cs = "using System;\nusing static System.Math;\nusing Json = Newtonsoft.Json;\nnamespace A { }\n";
        assert_eq!(
            modules(Language::CSharp, cs),
            ["System", "System.Math", "Newtonsoft.Json"]
        );
        let rb = "require 'json'\nrequire_relative \"lib/x\"\nfoo.require 'no'\n";
        let got = found(Language::Ruby, rb);
        assert_eq!(
            got,
            [
                ("json".into(), ImportForm::Module),
                ("lib/x".into(), ImportForm::Relative)
            ]
        );
        let php = "<?php\nnamespace A;\nuse B\\C;\nuse D\\{E, F\\G};\nuse function H\\i;\nrequire_once 'x.php';\n";
        assert_eq!(
            modules(Language::Php, php),
            ["B\\C", "D\\E", "D\\F\\G", "H\\i", "x.php"]
        );
        assert_eq!(
            modules(
                Language::Swift,
                "import Foundation\nimport struct Foo.Bar\n"
            ),
            ["Foundation", "Foo.Bar"]
        );
    }

    #[test]
    fn other_languages_are_not_supported() {
        let tree = parse_within(Language::Lua, "require('x')\n", &Limits::default()).unwrap();
        assert_eq!(imports(Language::Lua, "require('x')\n", &tree), None);
    }
}
