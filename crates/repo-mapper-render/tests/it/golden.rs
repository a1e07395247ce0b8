//! Golden tests: our `TreeContext` and `to_tree` against grep-ast 0.9.0 and Aider 0.86.2.
//!
//! The expected outputs under `fixtures/render/expected/` come from
//! `tests/gen/gen_expected.py` (run with Aider's virtual environment); no Python runs here.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use repo_mapper_render::{MapItem, Renderer, TreeContext, render_language};
use repo_mapper_tags::{Dialect, Tag, TagKind, read_source};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn expected_dir() -> PathBuf {
    root().join("fixtures/render/expected")
}

/// Files where grep-ast's output legitimately differs from ours because the language
/// pack's grammar and our grammar crate build different trees: (source, number of cases
/// that differ in each dialect, cause). Also listed in fixtures/render/README.md. Every
/// other case must be identical; the counts are exact so that a change shows up.
const GRAMMAR_DIVERGENCES: &[(&str, usize, &str)] = &[
    (
        "fixtures/languages/dart/shapes.dart",
        4,
        "tree-sitter-dart 0.3 puts a member's annotation (`@override` on the line before) \
         inside its method_declaration node, the pack's grammar keeps it a separate node: \
         the annotation line becomes a scope of the method and shows",
    ),
    (
        "fixtures/languages/fortran/stats.f90",
        3,
        "the pack's end_type_statement ends on the next row (it takes the newline), \
         tree-sitter-fortran 0.6's does not: the `end type` line is a scope of the next \
         line only for grep-ast",
    ),
    (
        "fixtures/languages/gleam/shapes.gleam",
        14,
        "the pack's function body (block) starts at `{` on the signature row, giving that \
         row two multi-row nodes and a header of the whole short function; \
         tree-sitter-gleam 1.0's function_body starts on the next row, so the header is \
         the signature line alone",
    ),
    (
        "fixtures/languages/julia/geometry.jl",
        9,
        "the pack's julia grammar wraps module and struct bodies in block nodes starting on \
         their first line; tree-sitter-julia 0.23 has no such node, so those first lines \
         are not scopes for us",
    ),
    (
        "fixtures/languages/kotlin/TaskRepository.kt",
        1,
        "the pack's kotlin grammar groups the imports in an import_list node (a scope whose \
         header is the first import); tree-sitter-kotlin-ng 1.1 has none",
    ),
];

struct Case {
    label: String,
    dialects: Vec<Dialect>,
    lois: Vec<i64>,
    expected: String,
}

fn parse_expected(text: &str) -> (String, Vec<Case>) {
    let mut lines = text.split_inclusive('\n');
    let source = lines
        .next()
        .and_then(|l| l.strip_prefix("source "))
        .expect("first line names the source")
        .trim_end()
        .to_owned();
    let mut cases: Vec<Case> = Vec::new();
    for line in lines {
        if let Some(header) = line.strip_prefix("@@ case ") {
            let mut parts = header.trim_end().split(' ');
            let label = parts.next().unwrap().to_owned();
            let dialects = match parts.next().unwrap() {
                "dialects=both" => vec![Dialect::Aider, Dialect::Default],
                "dialects=aider" => vec![Dialect::Aider],
                "dialects=default" => vec![Dialect::Default],
                other => panic!("bad dialects {other}"),
            };
            let lois = parts
                .next()
                .unwrap()
                .strip_prefix("lois=")
                .unwrap()
                .split(',')
                .filter(|s| !s.is_empty())
                .map(|s| s.parse().unwrap())
                .collect();
            cases.push(Case {
                label,
                dialects,
                lois,
                expected: String::new(),
            });
        } else {
            cases
                .last_mut()
                .expect("output follows a case header")
                .expected
                .push_str(line);
        }
    }
    (source, cases)
}

/// The file as Aider's render_tree reads it: UTF-8, universal newlines, final newline.
fn read_like_aider(path: &Path) -> String {
    let mut code = read_source(path).unwrap().expect("fixtures are UTF-8");
    if !code.ends_with('\n') {
        code.push('\n');
    }
    code
}

#[test]
fn tree_context_matches_grep_ast() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(expected_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_str().unwrap();
            name.ends_with(".txt") && !name.starts_with("to_tree.")
        })
        .collect();
    files.sort();
    assert!(files.len() >= 50, "expected goldens are missing");

    let (mut compared, mut identical) = (0, 0);
    let mut unexpected = String::new();
    let mut differing: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut languages = HashSet::new();
    for file in &files {
        let (source, cases) = parse_expected(&std::fs::read_to_string(file).unwrap());
        let code = read_like_aider(&root().join(&source));
        for dialect in [Dialect::Aider, Dialect::Default] {
            let language = render_language(Path::new(&source), dialect);
            if let Some(lang) = language {
                languages.insert(lang);
            }
            let ctx = TreeContext::new(code.clone(), language, dialect);
            for case in cases.iter().filter(|c| c.dialects.contains(&dialect)) {
                compared += 1;
                let got = ctx.render(&case.lois);
                let known = GRAMMAR_DIVERGENCES.iter().any(|d| d.0 == source);
                if got == case.expected {
                    identical += 1;
                } else if known {
                    *differing
                        .entry((source.clone(), format!("{dialect:?}")))
                        .or_default() += 1;
                } else {
                    writeln!(
                        unexpected,
                        "--- {source} case {} ({dialect:?}) lois={:?}\n--- expected (grep-ast)\n{}--- got\n{}",
                        case.label, case.lois, case.expected, got
                    )
                    .unwrap();
                }
            }
        }
    }
    eprintln!(
        "TreeContext goldens: {identical}/{compared} identical ({} files, {} languages); \
         the rest are known grammar divergences: {differing:?}",
        files.len(),
        languages.len()
    );
    assert!(
        unexpected.is_empty(),
        "outputs differ from grep-ast:\n{unexpected}"
    );
    for (source, count, cause) in GRAMMAR_DIVERGENCES {
        for dialect in [Dialect::Aider, Dialect::Default] {
            let got = differing
                .get(&(source.to_string(), format!("{dialect:?}")))
                .copied()
                .unwrap_or(0);
            assert_eq!(
                got, *count,
                "{source} ({dialect:?}): cases differing; known cause: {cause}"
            );
        }
    }
}

/// An owned to_tree input: a bare file or a tag, in list order.
enum Entry {
    Tag(Tag),
    File(String),
}

/// One to_tree scenario read from `fixtures/render/to_tree/<name>.tsv`.
struct Scenario {
    dialects: Vec<Dialect>,
    entries: Vec<Entry>,
    chat: HashSet<String>,
}

fn parse_scenario(tsv: &str) -> Scenario {
    let mut scenario = Scenario {
        dialects: Vec::new(),
        entries: Vec::new(),
        chat: HashSet::new(),
    };
    for line in tsv.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        match cols[0] {
            "dialects" => {
                scenario.dialects = match cols[1] {
                    "both" => vec![Dialect::Aider, Dialect::Default],
                    "aider" => vec![Dialect::Aider],
                    other => panic!("bad dialects {other}"),
                }
            }
            "tag" => {
                // Aider's rows are 0-based, our lines 1-based; -1 stays -1.
                let line0: i32 = cols[2].parse().unwrap();
                scenario.entries.push(Entry::Tag(Tag {
                    rel_fname: Arc::from(cols[1]),
                    fname: Arc::from(root().join(cols[1]).as_path()),
                    line: if line0 >= 0 { line0 + 1 } else { line0 },
                    name: cols[4].to_owned(),
                    kind: if cols[3] == "def" {
                        TagKind::Def
                    } else {
                        TagKind::Ref
                    },
                    sub_kind: "test",
                }));
            }
            "file" => scenario.entries.push(Entry::File(cols[1].to_owned())),
            "chat" => {
                scenario.chat.insert(cols[1].to_owned());
            }
            other => panic!("bad row {other}"),
        }
    }
    scenario
}

#[test]
fn to_tree_matches_aider() {
    let dir = root().join("fixtures/render/to_tree");
    let mut scenarios: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    scenarios.sort();
    assert!(scenarios.len() >= 8, "to_tree scenarios are missing");
    let mut compared = 0;
    for tsv in &scenarios {
        let name = tsv.file_stem().unwrap().to_str().unwrap();
        let expected =
            std::fs::read_to_string(expected_dir().join(format!("to_tree.{name}.txt"))).unwrap();
        let scenario = parse_scenario(&std::fs::read_to_string(tsv).unwrap());
        let items: Vec<MapItem<'_>> = scenario
            .entries
            .iter()
            .map(|e| match e {
                Entry::Tag(tag) => MapItem::Tag(tag),
                Entry::File(rel) => MapItem::File(rel),
            })
            .collect();
        let chat = &scenario.chat;
        for &dialect in &scenario.dialects {
            let mut renderer = Renderer::new(dialect);
            let got = renderer.to_tree(&items, chat);
            assert_eq!(got, expected, "to_tree scenario {name} ({dialect:?})");
            // A second run is served from the caches and must not change.
            assert_eq!(renderer.to_tree(&items, chat), expected, "cached {name}");
            compared += 1;
        }
    }
    eprintln!("to_tree goldens: {compared} identical");
}
