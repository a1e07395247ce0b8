//! Tags of every fixture under `fixtures/languages/`, snapshotted with insta, and the
//! promise that every supported language yields definitions and references.
//!
//! Regenerate the snapshots with `cargo xtask snapshots` and review the diff.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use repo_mapper_tags::{Dialect, Language, Tag, TagKind, extract_file};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/languages")
}

/// Every fixture file, keyed by its directory name (the language).
fn fixtures() -> BTreeMap<String, Vec<PathBuf>> {
    let mut out: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for dir in std::fs::read_dir(fixtures_dir()).expect("fixtures/languages exists") {
        let dir = dir.unwrap().path();
        let lang = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        out.insert(lang, files);
    }
    out
}

fn tags_of(path: &Path, dialect: Dialect) -> Vec<Tag> {
    let rel = path.file_name().unwrap().to_string_lossy().into_owned();
    extract_file(path, &rel, dialect).expect("fixture is readable")
}

fn render(tags: &[Tag]) -> String {
    let mut out = String::new();
    for t in tags {
        writeln!(
            out,
            "{:>4} {} {:<14} {}",
            t.line,
            t.kind.as_str(),
            t.sub_kind,
            t.name
        )
        .unwrap();
    }
    out
}

#[test]
fn snapshot_every_fixture() {
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| {
        for (lang, files) in fixtures() {
            for file in files {
                let name = format!("{lang}__{}", file.file_name().unwrap().to_string_lossy());
                insta::assert_snapshot!(name, render(&tags_of(&file, Dialect::Default)));
            }
        }
    });
}

#[test]
fn every_language_has_a_fixture() {
    let fixtures = fixtures();
    for lang in Language::ALL {
        assert!(fixtures.contains_key(lang.name()), "no fixture for {lang}");
    }
    for (dir, files) in &fixtures {
        for file in files {
            let detected = Language::for_path(file, Dialect::Default);
            assert_eq!(
                detected.map(Language::name),
                Some(dir.as_str()),
                "{} is not detected as {dir}",
                file.display()
            );
        }
    }
}

/// Languages whose query, by design, cannot yield both kinds: none so far. A language
/// listed here must say why.
const NO_DEF_OR_NO_REF: &[(&str, &str)] = &[];

#[test]
fn every_language_yields_definitions_and_references() {
    let mut missing = Vec::new();
    for (lang, files) in fixtures() {
        let tags: Vec<Tag> = files
            .iter()
            .flat_map(|f| tags_of(f, Dialect::Default))
            .collect();
        let defs = tags.iter().filter(|t| t.kind == TagKind::Def).count();
        // References from the tag query itself, not from the identifier fallback.
        let refs = tags
            .iter()
            .filter(|t| t.kind == TagKind::Ref && t.line > 0)
            .count();
        let fallback = tags.iter().filter(|t| t.line == -1).count();
        if NO_DEF_OR_NO_REF.iter().any(|(l, _)| *l == lang) {
            continue;
        }
        if defs == 0 || (refs == 0 && fallback == 0) {
            missing.push(format!(
                "{lang}: {defs} defs, {refs} refs, {fallback} fallback refs"
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "languages without defs or refs:\n{}",
        missing.join("\n")
    );
}

#[test]
fn tags_are_one_based_and_point_at_the_name() {
    for (_, files) in fixtures() {
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for t in tags_of(&file, Dialect::Default) {
                if t.line == -1 {
                    assert_eq!(t.kind, TagKind::Ref);
                    continue;
                }
                assert!(t.line >= 1, "{}: line {}", file.display(), t.line);
                let line = lines[(t.line - 1) as usize];
                let first = t.name.lines().next().unwrap_or_default();
                assert!(
                    line.contains(first),
                    "{}:{} does not contain {:?}",
                    file.display(),
                    t.line,
                    t.name
                );
            }
        }
    }
}

#[test]
fn aider_dialect_adds_one_copy_of_each_groups_last_node() {
    let file = fixtures_dir().join("rust/lru.rs");
    let ours = tags_of(&file, Dialect::Default);
    let aider = tags_of(&file, Dialect::Aider);
    // Same distinct tags, and exactly one extra per capture name that matched.
    let distinct = |tags: &[Tag]| {
        let mut v: Vec<_> = tags
            .iter()
            .map(|t| (t.line, t.kind, t.name.clone()))
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(distinct(&ours), distinct(&aider));
    let groups: std::collections::BTreeSet<_> = ours.iter().map(|t| (t.kind, t.sub_kind)).collect();
    assert_eq!(aider.len(), ours.len() + groups.len());
}

#[test]
fn aider_dialect_skips_python_constants() {
    let file = fixtures_dir().join("python/scheduler.py");
    let has_constant = |tags: &[Tag]| tags.iter().any(|t| t.sub_kind == "constant");
    assert!(has_constant(&tags_of(&file, Dialect::Default)));
    assert!(!has_constant(&tags_of(&file, Dialect::Aider)));
}
