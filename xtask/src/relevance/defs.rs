//! Definition recall (issue 24): does the map show the definitions a commit changed?
//!
//! The changed definitions of a task are found at the parent: the old-side line ranges of
//! `git diff -U0 PARENT COMMIT` ([`changed_old_lines`]), each changed line (or, for a pure
//! insertion, the line it follows) mapped to the definition enclosing it, from our own
//! tags ([`enclosing`]). Tags carry the line of a definition's name, not its extent, so
//! "enclosing" is approximated by the definition whose line is the greatest at or before
//! the changed line: a change after the end of a function, before the next definition,
//! is counted as a change of that function; a change above the first definition of a
//! file, of none. Variables and constants count only where their line is not indented:
//! an indented one is a local (Go's `var err error` in a function body) or a class
//! attribute, and a change below it belongs to the function or class around it. A name
//! tagged twice on one line (a Rust method is a `function` and a `method`) is one
//! definition: the targets are the distinct (file, name, line).
//!
//! A map shows a definition when the section of its file (the `path:` header line, then
//! lines starting with `│` or `⋮`) has a `│` line in which its name occurs as a whole
//! word ([`shown`]).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::Result;
use repo_mapper_tags::{Dialect, Language, Tag, TagKind, extract_source, read_source};
use serde::{Deserialize, Serialize};

use super::history::{Task, git};

/// One definition a commit changed, as our tags name it at the parent.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub(super) struct Definition {
    /// The file, relative to the repository root.
    pub file: String,
    /// The defined name.
    pub name: String,
    /// The 1-based line of the name at the parent.
    pub line: u32,
    /// The tag's sub-kind: `function`, `class`, `method`, ...
    pub kind: String,
}

/// The definitions `task`'s commit changed in its modified files, read from the work
/// tree (which must hold the parent), in (file, line, name) order, each once.
pub(super) fn changed_definitions(dir: &Path, task: &Task) -> Result<Vec<Definition>> {
    let mut args = vec![
        "diff",
        "-U0",
        "--no-renames",
        "--no-color",
        "--no-ext-diff",
        &task.parent,
        &task.commit,
        "--",
    ];
    args.extend(task.modified.iter().map(String::as_str));
    let diff = git(dir, &args)?;
    diff_definitions(dir, &diff, false, &task.modified)
}

/// The definitions a unified diff (`diff`, `-U0` or `with_context`; read against the work tree `dir`, which must
/// hold its old side) changes in the files of `modified`, in (file, line, name) order.
pub(super) fn diff_definitions(
    dir: &Path,
    diff: &str,
    with_context: bool,
    modified: &[String],
) -> Result<Vec<Definition>> {
    let mut defs = Vec::new();
    let hunks = match with_context {
        true => patch_old_lines(diff),
        false => changed_old_lines(diff),
    };
    for (file, lines) in hunks {
        if !modified.contains(&file) {
            continue;
        }
        let path = dir.join(&file);
        let (Some(lang), Some(source)) = (
            Language::for_path(&path, Dialect::Default),
            read_source(&path)?,
        ) else {
            continue;
        };
        let tags = extract_source(
            lang,
            &source,
            file.as_str().into(),
            path.as_path().into(),
            Dialect::Default,
        );
        defs.extend(enclosing(&file, &source, &tags, &lines));
    }
    Ok(defs)
}

/// The old-side lines each file's hunks change, from `git diff -U0` output: every line of
/// `-a,b` when b > 0; when b = 0 (a pure insertion after line a), line a itself.
pub(super) fn changed_old_lines(diff: &str) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut file: Option<String> = None;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            file = None;
        } else if let Some(path) = line.strip_prefix("--- a/") {
            file = Some(path.trim_end().to_owned());
        } else if let (Some(f), Some(hunk)) = (&file, line.strip_prefix("@@ -")) {
            let range = hunk.split(' ').next().unwrap_or_default();
            let (start, count) = match range.split_once(',') {
                Some((a, b)) => (a.parse().unwrap_or(0), b.parse().unwrap_or(0)),
                None => (range.parse().unwrap_or(0), 1),
            };
            let lines = out.entry(f.clone()).or_default();
            match count {
                0 => lines.push(start),
                n => lines.extend(start..start + n),
            }
        }
    }
    out
}

/// The old-side lines a patch with context (`git diff`'s default, SWE-bench's patches)
/// changes, read from its hunks' bodies: every removed line; for a run of added lines
/// with none removed, the old line it follows. Context lines are not changes.
pub(super) fn patch_old_lines(patch: &str) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut file: Option<String> = None;
    // The next old line, and whether the current run of changes removed a line.
    let (mut old, mut removed) = (0u32, false);
    for line in patch.lines() {
        if line.starts_with("diff --git ") {
            file = None;
        } else if let Some(path) = line.strip_prefix("--- a/") {
            file = Some(path.trim_end().to_owned());
        } else if line.starts_with("--- ") || line.starts_with("+++ ") {
            continue;
        } else if let Some(hunk) = line.strip_prefix("@@ -") {
            let range = hunk.split([' ', ',']).next().unwrap_or_default();
            (old, removed) = (range.parse().unwrap_or(1), false);
        } else if let Some(f) = &file {
            match line.as_bytes().first() {
                Some(b'-') => {
                    out.entry(f.clone()).or_default().push(old);
                    (old, removed) = (old + 1, true);
                }
                Some(b'+') if !removed => {
                    out.entry(f.clone())
                        .or_default()
                        .push(old.saturating_sub(1));
                    removed = true;
                }
                Some(b'+') | Some(b'\\') => {}
                _ => (old, removed) = (old + 1, false),
            }
        }
    }
    for lines in out.values_mut() {
        lines.dedup();
    }
    out
}

/// The definitions of `tags` (one file's, whose text is `source`) enclosing `lines`, in
/// (line, name) order, each (name, line) once with the sub-kind of its first tag: for
/// each changed line, every definition on the greatest definition line at or before it,
/// indented variables and constants passed over (see the module's doc).
pub(super) fn enclosing(file: &str, source: &str, tags: &[Tag], lines: &[u32]) -> Vec<Definition> {
    let text: Vec<&str> = source.lines().collect();
    let indented = |line: i32| {
        text.get(line as usize - 1)
            .is_some_and(|l| l.starts_with(char::is_whitespace))
    };
    let mut defs: Vec<(u32, &Tag)> = tags
        .iter()
        .filter(|t| t.kind == TagKind::Def && t.line >= 1)
        .filter(|t| !(matches!(t.sub_kind, "variable" | "constant") && indented(t.line)))
        .map(|t| (t.line as u32, t))
        .collect();
    defs.sort_by_key(|(line, _)| *line);
    let mut found: BTreeMap<(u32, &str), &str> = BTreeMap::new();
    for &changed in lines {
        let before = defs.partition_point(|(line, _)| *line <= changed);
        let Some(&(at, _)) = before.checked_sub(1).and_then(|i| defs.get(i)) else {
            continue;
        };
        let first = defs[..before].partition_point(|(line, _)| *line < at);
        for (_, tag) in &defs[first..before] {
            found.entry((at, tag.name.as_str())).or_insert(tag.sub_kind);
        }
    }
    let def = |((line, name), kind): ((u32, &str), &str)| Definition {
        file: file.to_owned(),
        name: name.to_owned(),
        line,
        kind: kind.to_owned(),
    };
    found.into_iter().map(def).collect()
}

/// How many of `defs` the rendered `map` shows (see the module's doc).
pub(super) fn shown(map: &str, defs: &[&Definition]) -> usize {
    let mut sections: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut current: Option<&str> = None;
    for line in map.lines() {
        if line.starts_with('│') {
            if let Some(file) = current {
                sections.entry(file).or_default().push(line);
            }
        } else if !line.starts_with('⋮') && !line.trim().is_empty() {
            current = Some(line.strip_suffix(':').unwrap_or(line));
        }
    }
    defs.iter()
        .filter(|d| {
            sections
                .get(d.file.as_str())
                .is_some_and(|lines| lines.iter().any(|l| has_word(l, &d.name)))
        })
        .count()
}

/// Whether `name` occurs in `line` as a whole word: not preceded or followed by a word
/// character where its own first or last character is one.
fn has_word(line: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    if name.is_empty() {
        return false;
    }
    let first_word = name.chars().next().is_some_and(word);
    let last_word = name.chars().next_back().is_some_and(word);
    line.match_indices(name).any(|(at, _)| {
        let before = line[..at].chars().next_back();
        let after = line[at + name.len()..].chars().next();
        let joined_before = first_word && before.is_some_and(word);
        let joined_after = last_word && after.is_some_and(word);
        !joined_before && !joined_after
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use repo_mapper_tags::{Language, extract_source};

    use super::*;

    #[test]
    fn hunks_give_the_changed_old_lines() {
        let diff = "diff --git a/src/a.py b/src/a.py\n\
            index 1..2 100644\n\
            --- a/src/a.py\n\
            +++ b/src/a.py\n\
            @@ -3,2 +3,3 @@ def a():\n\
            -x\n-y\n+x\n+y\n+z\n\
            @@ -10 +11 @@\n\
            -q\n+r\n\
            @@ -20,0 +22,2 @@ def b():\n\
            +s\n+t\n\
            diff --git a/b.c b/b.c\n\
            --- a/b.c\n\
            +++ b/b.c\n\
            @@ -0,0 +1 @@\n\
            +#include <x.h>\n";
        let lines = changed_old_lines(diff);
        assert_eq!(lines["src/a.py"], [3, 4, 10, 20]);
        assert_eq!(lines["b.c"], [0], "an insertion at the top");
    }

    #[test]
    fn a_changed_line_maps_to_the_definition_above_it() {
        let src = "import os\n\
            \n\
            class Table:\n\
            \x20   def render(self):\n\
            \x20       return 1\n\
            \n\
            \x20   def width(self):\n\
            \x20       return 2\n\
            \n\
            def helper():\n\
            \x20   pass\n";
        let tags = extract_source(
            Language::Python,
            src,
            Arc::from("t.py"),
            Arc::from(Path::new("/r/t.py")),
            Dialect::Default,
        );
        let names = |lines: &[u32]| -> Vec<(String, u32)> {
            enclosing("t.py", src, &tags, lines)
                .into_iter()
                .map(|d| (d.name, d.line))
                .collect()
        };
        assert!(names(&[1]).is_empty(), "above every definition");
        assert_eq!(names(&[5]), [("render".to_owned(), 4)]);
        assert_eq!(names(&[3, 8]), [("Table".into(), 3), ("width".into(), 7)]);
        assert_eq!(
            names(&[11, 9]),
            [("width".into(), 7), ("helper".into(), 10)]
        );
    }

    #[test]
    fn an_indented_variable_is_not_a_definition_lines_belong_to() {
        let src = "package p\n\nvar Top = 1\n\nfunc Run() {\n\tvar x = 2\n\t_ = x\n}\n";
        let tags = extract_source(
            Language::Go,
            src,
            Arc::from("t.go"),
            Arc::from(Path::new("/r/t.go")),
            Dialect::Default,
        );
        assert!(tags.iter().any(|t| t.name == "x" && t.kind == TagKind::Def));
        let names: Vec<(String, u32)> = enclosing("t.go", src, &tags, &[3, 7])
            .into_iter()
            .map(|d| (d.name, d.line))
            .collect();
        assert_eq!(names, [("Top".to_owned(), 3), ("Run".to_owned(), 5)]);
    }

    #[test]
    fn a_name_tagged_twice_on_a_line_is_one_definition() {
        let src = "struct A;\n\nimpl A {\n    fn b(&self) {\n        todo!()\n    }\n}\n";
        let tags = extract_source(
            Language::Rust,
            src,
            Arc::from("t.rs"),
            Arc::from(Path::new("/r/t.rs")),
            Dialect::Default,
        );
        let b_tags = tags
            .iter()
            .filter(|t| t.name == "b" && t.kind == TagKind::Def);
        assert!(b_tags.count() >= 2, "function and method");
        let defs = enclosing("t.rs", src, &tags, &[5, 6]);
        assert_eq!(defs.len(), 1);
        assert_eq!((defs[0].name.as_str(), defs[0].line), ("b", 4));
    }

    #[test]
    fn a_definition_is_shown_by_its_name_in_its_files_section() {
        let map = "src/a.py:\n\
            │class Table:\n\
            ⋮\n\
            │    def render_all(self):\n\
            ⋮\n\
            \n\
            src/b.py:\n\
            │def width():\n\
            README.md\n";
        let def = |file: &str, name: &str| Definition {
            file: file.into(),
            name: name.into(),
            line: 1,
            kind: "function".into(),
        };
        let shown_one = |d: Definition| shown(map, &[&d]);
        assert_eq!(shown_one(def("src/a.py", "Table")), 1);
        assert_eq!(shown_one(def("src/a.py", "render")), 0, "a whole word only");
        assert_eq!(shown_one(def("src/a.py", "render_all")), 1);
        assert_eq!(
            shown_one(def("src/a.py", "width")),
            0,
            "another file's section"
        );
        assert_eq!(shown_one(def("src/c.py", "width")), 0, "not in the map");
        let (a, b) = (def("src/b.py", "width"), def("src/a.py", "Table"));
        assert_eq!(shown(map, &[&a, &b]), 2);
    }
}
