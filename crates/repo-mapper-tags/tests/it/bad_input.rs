//! Bad input never panics and never errors where no error is due (behaviour.md §3.1, §13.6).

use std::path::Path;
use std::sync::Arc;

use repo_mapper_tags::{Dialect, Language, TagKind, extract_file, extract_files, extract_source};

fn tmp() -> tempdir::Dir {
    tempdir::Dir::new()
}

/// A minimal temporary directory, removed on drop.
mod tempdir {
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};

    pub(super) struct Dir(PathBuf);
    impl Dir {
        pub(super) fn new() -> Dir {
            static N: AtomicUsize = AtomicUsize::new(0);
            let p = std::env::temp_dir().join(format!(
                "repo-mapper-tags-test-{}-{}",
                std::process::id(),
                N.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
        pub(super) fn path(&self) -> &Path {
            &self.0
        }
    }
    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn unknown_language_yields_nothing() {
    let d = tmp();
    for name in ["notes.txt", "style.css", "Makefile", "noext", ".bashrc"] {
        let p = write(d.path(), name, b"def f(): pass\n");
        assert!(
            extract_file(&p, name, Dialect::Default).unwrap().is_empty(),
            "{name}"
        );
    }
}

#[test]
fn empty_file_yields_nothing() {
    let d = tmp();
    let p = write(d.path(), "empty.py", b"");
    assert!(
        extract_file(&p, "empty.py", Dialect::Default)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn non_utf8_file_yields_nothing() {
    let d = tmp();
    let p = write(d.path(), "latin1.py", b"def caf\xe9():\n    pass\n");
    assert!(
        extract_file(&p, "latin1.py", Dialect::Default)
            .unwrap()
            .is_empty()
    );
    let p = write(d.path(), "binary.c", &[0u8, 159, 146, 150, 255, 0, 1, 2]);
    assert!(
        extract_file(&p, "binary.c", Dialect::Default)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn nul_bytes_in_valid_utf8_do_not_panic() {
    let d = tmp();
    let p = write(d.path(), "nul.py", b"def f():\n    g(\0)\n\0\0\0");
    let tags = extract_file(&p, "nul.py", Dialect::Default).unwrap();
    assert!(tags.iter().any(|t| t.name == "f" && t.kind == TagKind::Def));
}

#[test]
fn missing_file_and_directory_are_errors_not_panics() {
    let d = tmp();
    assert!(extract_file(&d.path().join("gone.py"), "gone.py", Dialect::Default).is_err());
    let sub = d.path().join("pkg.py");
    std::fs::create_dir(&sub).unwrap();
    assert!(extract_file(&sub, "pkg.py", Dialect::Default).is_err());
}

#[test]
fn syntax_errors_still_yield_the_tags_that_parse() {
    let src = "def good():\n    helper()\n\ndef broken(:\n    ???\n\nclass Fine:\n    pass\n";
    let tags = extract_source(
        Language::Python,
        src,
        Arc::from("x.py"),
        Arc::from(Path::new("/r/x.py")),
        Dialect::Default,
    );
    let names: Vec<_> = tags
        .iter()
        .map(|t| (t.kind, t.name.as_str(), t.line))
        .collect();
    assert!(names.contains(&(TagKind::Def, "good", 1)), "{names:?}");
    assert!(names.contains(&(TagKind::Ref, "helper", 2)), "{names:?}");
    assert!(names.contains(&(TagKind::Def, "Fine", 7)), "{names:?}");
}

#[test]
fn crlf_and_lone_cr_count_lines_like_python() {
    let d = tmp();
    let p = write(d.path(), "crlf.py", b"# a\r\n# b\rdef f():\r\n    g()\r\n");
    let tags = extract_file(&p, "crlf.py", Dialect::Default).unwrap();
    let f = tags.iter().find(|t| t.name == "f").unwrap();
    assert_eq!(
        f.line, 3,
        "\\r alone ends a line, as in Python's universal newlines"
    );
    assert!(tags.iter().any(|t| t.name == "g" && t.line == 4));
}

#[test]
fn deeply_nested_source_does_not_overflow_the_stack() {
    let depth = 20_000;
    let src = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    let src = format!("def f():\n    pass\n{src}");
    let tags = extract_source(
        Language::Python,
        &src,
        Arc::from("deep.py"),
        Arc::from(Path::new("/r/deep.py")),
        Dialect::Default,
    );
    assert!(tags.iter().any(|t| t.name == "f"));
}

#[test]
fn defs_without_refs_get_identifier_references_at_line_minus_one() {
    // The TypeScript query has no call references (behaviour.md §3.2).
    let src = "export function area(r: number): number {\n  return compute(r);\n}\n";
    let tags = extract_source(
        Language::TypeScript,
        src,
        Arc::from("a.ts"),
        Arc::from(Path::new("/r/a.ts")),
        Dialect::Default,
    );
    assert!(
        tags.iter()
            .any(|t| t.kind == TagKind::Def && t.name == "area" && t.line == 1)
    );
    let fallback: Vec<_> = tags.iter().filter(|t| t.line == -1).collect();
    assert!(
        fallback
            .iter()
            .all(|t| t.kind == TagKind::Ref && t.sub_kind == "identifier")
    );
    assert!(fallback.iter().any(|t| t.name == "compute"), "{fallback:?}");
    // Definitions come first, the fallback references after them.
    let first_fallback = tags.iter().position(|t| t.line == -1).unwrap();
    assert!(tags[first_fallback..].iter().all(|t| t.line == -1));
}

#[test]
fn no_fallback_when_there_are_references_or_no_definitions() {
    let tags = extract_source(
        Language::Python,
        "def f():\n    g()\n",
        Arc::from("a.py"),
        Arc::from(Path::new("/r/a.py")),
        Dialect::Default,
    );
    assert!(tags.iter().all(|t| t.line != -1));
    let tags = extract_source(
        Language::Python,
        "print(x)\n",
        Arc::from("b.py"),
        Arc::from(Path::new("/r/b.py")),
        Dialect::Default,
    );
    assert!(tags.iter().all(|t| t.line != -1));
}

#[test]
fn parallel_extraction_keeps_input_order_and_reports_errors_per_file() {
    let d = tmp();
    let mut files = Vec::new();
    for i in 0..64 {
        let name = format!("m{i}.py");
        let p = write(
            d.path(),
            &name,
            format!("def fn_{i}():\n    pass\n").as_bytes(),
        );
        files.push((p, name));
    }
    files.push((d.path().join("missing.py"), "missing.py".to_owned()));
    let results = extract_files(&files, Dialect::Default);
    assert_eq!(results.len(), 65);
    for (i, r) in results.iter().take(64).enumerate() {
        let tags = r.as_ref().unwrap();
        assert_eq!(tags[0].name, format!("fn_{i}"));
        assert_eq!(&*tags[0].rel_fname, format!("m{i}.py"));
    }
    assert!(results[64].is_err());
}
