use std::fs;

use repo_mapper_tags::explore::{ImportForm, imports};
use repo_mapper_tags::{Dialect, Language, Limits, parse_within};

use super::*;

/// A repository of `files` (path, text).
fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (path, text) in files {
        let at = root.join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
    (dir, root)
}

/// (module, category, path, declared_in) of each import of `file`.
fn sorted(root: &Path, file: &str) -> Vec<(String, &'static str, Option<String>, Option<String>)> {
    let lang = Language::for_path(Path::new(file), repo_mapper_tags::Dialect::Default).unwrap();
    let source = fs::read_to_string(root.join(file)).unwrap();
    let tree = parse_within(lang, &source, &Limits::default()).unwrap();
    let mut resolver = Resolver::new(root);
    imports(lang, &source, &tree)
        .unwrap()
        .iter()
        .map(|raw| {
            let i = resolver.classify(file, lang, raw);
            (i.module, i.category.as_str(), i.path, i.declared_in)
        })
        .collect()
}

fn s(text: &str) -> Option<String> {
    Some(text.to_owned())
}

#[test]
fn python_stdlib_third_party_and_local() {
    let (_d, root) = repo(&[
        (
            "pyproject.toml",
            "[project]\nname = \"app\"\ndependencies = [\"requests>=2\"]\n",
        ),
        ("app/__init__.py", ""),
        ("app/models.py", ""),
        (
            "app/views.py",
            "import os.path\nimport requests\nimport yaml\nfrom app.models import User\nfrom .models import User\nfrom . import models\n",
        ),
    ]);
    assert_eq!(
        sorted(&root, "app/views.py"),
        [
            ("os.path".into(), "stdlib", None, None),
            ("requests".into(), "third_party", None, s("pyproject.toml")),
            ("yaml".into(), "third_party", None, None),
            ("app.models".into(), "local", s("app/models.py"), None),
            (".models".into(), "local", s("app/models.py"), None),
            (".".into(), "local", s("app/__init__.py"), None),
        ]
    );
}

#[test]
fn javascript_and_go() {
    let (_d, root) = repo(&[
        (
            "package.json",
            r#"{"name": "web", "dependencies": {"react": "18"}}"#,
        ),
        ("src/util/index.ts", ""),
        (
            "src/a.ts",
            "import x from './util';\nimport fs from 'node:fs';\nimport path from 'path';\nimport React from 'react';\nimport y from './b.js';\nimport w from 'web/sub';\n",
        ),
        ("src/b.ts", ""),
        (
            "go.mod",
            "module example.com/tool\n\nrequire github.com/spf13/cobra v1.8.0\n",
        ),
        ("internal/cfg/cfg.go", "package cfg\n"),
        (
            "main.go",
            "package main\nimport (\n\t\"fmt\"\n\t\"example.com/tool/internal/cfg\"\n\t\"github.com/spf13/cobra\"\n)\n",
        ),
    ]);
    let js = sorted(&root, "src/a.ts");
    let cats: Vec<(&str, &str, Option<&str>)> = js
        .iter()
        .map(|(m, c, p, _)| (m.as_str(), *c, p.as_deref()))
        .collect();
    assert_eq!(
        cats,
        [
            ("./util", "local", Some("src/util/index.ts")),
            ("node:fs", "stdlib", None),
            ("path", "stdlib", None),
            ("react", "third_party", None),
            ("./b.js", "local", Some("src/b.ts")),
            ("web/sub", "local", None),
        ]
    );
    assert_eq!(js[3].3.as_deref(), Some("package.json"));
    assert_eq!(
        sorted(&root, "main.go"),
        [
            ("fmt".into(), "stdlib", None, None),
            (
                "example.com/tool/internal/cfg".into(),
                "local",
                s("internal/cfg"),
                None
            ),
            (
                "github.com/spf13/cobra".into(),
                "third_party",
                None,
                s("go.mod")
            ),
        ]
    );
}

#[test]
fn rust_paths_modules_and_crates() {
    let (_d, root) = repo(&[
        (
            "Cargo.toml",
            "[package]\nname = \"my-tool\"\n[dependencies]\nserde = \"1\"\n",
        ),
        (
            "src/lib.rs",
            "mod walk;\nuse std::io;\nuse crate::walk::Walker;\nuse serde::Serialize;\nuse my_tool::x;\nuse anyhow::Result;\n",
        ),
        ("src/walk.rs", "use super::io;\n"),
    ]);
    let got = sorted(&root, "src/lib.rs");
    let cats: Vec<(&str, &str, Option<&str>)> = got
        .iter()
        .map(|(m, c, p, _)| (m.as_str(), *c, p.as_deref()))
        .collect();
    assert_eq!(
        cats,
        [
            ("walk", "local", Some("src/walk.rs")),
            ("std::io", "stdlib", None),
            ("crate::walk::Walker", "local", Some("src/walk.rs")),
            ("serde::Serialize", "third_party", None),
            ("my_tool::x", "local", Some("src/lib.rs")),
            ("anyhow::Result", "third_party", None),
        ]
    );
    assert_eq!(got[3].3.as_deref(), Some("Cargo.toml"));
    assert_eq!(got[5].3, None);
}

#[test]
fn jvm_c_and_csharp() {
    let (_d, root) = repo(&[
        ("src/main/java/com/acme/Util.java", "package com.acme;\n"),
        (
            "src/main/java/com/acme/App.java",
            "package com.acme;\nimport java.util.List;\nimport com.acme.Util;\nimport org.junit.Test;\nimport static com.acme.Util.help;\n",
        ),
        ("include/lib/api.h", ""),
        (
            "src/x.c",
            "#include <stdio.h>\n#include \"x.h\"\n#include <lib/api.h>\n#include <zlib.h>\n",
        ),
        ("src/x.h", ""),
        ("Acme.Core/Thing.cs", "namespace Acme.Core;\n"),
        (
            "App/Program.cs",
            "using System.IO;\nusing Acme.Core;\nusing Newtonsoft.Json;\n",
        ),
    ]);
    let cats = |file: &str| -> Vec<(String, &'static str, Option<String>)> {
        sorted(&root, file)
            .into_iter()
            .map(|(m, c, p, _)| (m, c, p))
            .collect()
    };
    assert_eq!(
        cats("src/main/java/com/acme/App.java"),
        [
            ("java.util.List".into(), "stdlib", None),
            (
                "com.acme.Util".into(),
                "local",
                s("src/main/java/com/acme/Util.java")
            ),
            ("org.junit.Test".into(), "third_party", None),
            (
                "com.acme.Util.help".into(),
                "local",
                s("src/main/java/com/acme/Util.java")
            ),
        ]
    );
    assert_eq!(
        cats("src/x.c"),
        [
            ("stdio.h".into(), "stdlib", None),
            ("x.h".into(), "local", s("src/x.h")),
            ("lib/api.h".into(), "local", s("include/lib/api.h")),
            ("zlib.h".into(), "third_party", None),
        ]
    );
    assert_eq!(
        cats("App/Program.cs"),
        [
            ("System.IO".into(), "stdlib", None),
            ("Acme.Core".into(), "local", s("Acme.Core")),
            ("Newtonsoft.Json".into(), "third_party", None),
        ]
    );
}

#[test]
fn ruby_php_and_swift() {
    let (_d, root) = repo(&[
        ("Gemfile", "gem 'rack'\n"),
        ("lib/app/helper.rb", ""),
        (
            "lib/app.rb",
            "require 'json'\nrequire 'rack'\nrequire 'app/helper'\nrequire_relative 'app/helper'\n",
        ),
        (
            "composer.json",
            r#"{"require": {"psr/log": "^3"}, "autoload": {"psr-4": {"Slim\\": "Slim/"}}}"#,
        ),
        ("Slim/App.php", "<?php\n"),
        (
            "Slim/Routing/Route.php",
            "<?php\nuse Slim\\App;\nuse Psr\\Log\\LoggerInterface;\nuse InvalidArgumentException;\n",
        ),
        (
            "Package.swift",
            ".target(name: \"Core\", dependencies: [.product(name: \"ArgumentParser\", package: \"p\")])",
        ),
        ("Sources/Core/a.swift", ""),
        (
            "Sources/Tool/main.swift",
            "import Foundation\nimport Core\nimport ArgumentParser\n",
        ),
    ]);
    let cats = |file: &str| -> Vec<(String, &'static str)> {
        sorted(&root, file)
            .into_iter()
            .map(|(m, c, _, _)| (m, c))
            .collect()
    };
    let pairs = |v: &[(&str, &'static str)]| -> Vec<(String, &'static str)> {
        v.iter().map(|(m, c)| ((*m).to_owned(), *c)).collect()
    };
    assert_eq!(
        cats("lib/app.rb"),
        pairs(&[
            ("json", "stdlib"),
            ("rack", "third_party"),
            ("app/helper", "local"),
            ("app/helper", "local")
        ])
    );
    assert_eq!(
        cats("Slim/Routing/Route.php"),
        pairs(&[
            ("Slim\\App", "local"),
            ("Psr\\Log\\LoggerInterface", "third_party"),
            ("InvalidArgumentException", "stdlib")
        ])
    );
    assert_eq!(
        cats("Sources/Tool/main.swift"),
        pairs(&[
            ("Foundation", "stdlib"),
            ("Core", "local"),
            ("ArgumentParser", "third_party")
        ])
    );
    let php = sorted(&root, "Slim/Routing/Route.php");
    assert_eq!(php[0].2.as_deref(), Some("Slim/App.php"));
    let swift = sorted(&root, "Sources/Tool/main.swift");
    assert_eq!(swift[2].3.as_deref(), Some("Package.swift"));
}

#[test]
fn forms_are_kept() {
    let source = "#include \"a.h\"\n";
    let tree = parse_within(Language::C, source, &Limits::default()).unwrap();
    assert_eq!(
        imports(Language::C, source, &tree).unwrap()[0].form,
        ImportForm::Relative
    );
}

/// A kept walk stands for the repository's file list only where a rule searches it, and
/// sorts every import as a walk of its own would.
#[test]
fn outlines_take_the_callers_walk_only_when_a_rule_needs_one() {
    let (_d, root) = repo(&[
        ("src/main/java/com/acme/Util.java", "package com.acme;\n"),
        (
            "src/main/java/com/acme/App.java",
            "package com.acme;\nimport java.util.List;\nimport com.acme.Util;\n",
        ),
        ("pkg/mod.py", "import os\nfrom . import util\n"),
        ("pkg/util.py", ""),
    ]);
    let walks = std::cell::Cell::new(0);
    let listing = || {
        walks.set(walks.get() + 1);
        Arc::new(Listing::walk(&root, None))
    };
    let python = crate::outlines_listed(&root, &["pkg/mod.py"], Dialect::Default, &listing);
    assert_eq!(walks.get(), 0, "Python's rules need no file list");
    let alone = crate::outlines(&root, &["pkg/mod.py"], Dialect::Default);
    assert_eq!(python.unwrap(), alone.unwrap());
    let java = [
        "src/main/java/com/acme/App.java",
        "src/main/java/com/acme/Util.java",
    ];
    let listed = crate::outlines_listed(&root, &java, Dialect::Default, &listing).unwrap();
    assert_eq!(walks.get(), 1, "one walk for all the files");
    assert_eq!(
        listed,
        crate::outlines(&root, &java, Dialect::Default).unwrap()
    );
    let util = listed[0].imports.as_ref().unwrap()[1].path.as_deref();
    assert_eq!(util, Some("src/main/java/com/acme/Util.java"));
}
