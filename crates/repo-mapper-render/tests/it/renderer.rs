//! `Renderer` behaviour beyond the goldens: unreadable files, caches, line cut, dialect
//! differences, unknown languages, large files.

use std::collections::HashSet;
use std::fs::File;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use repo_mapper_render::{MapItem, Renderer, TreeContext, line_of_interest};
use repo_mapper_tags::{Dialect, Language, Tag, TagKind};

fn tag(dir: &Path, rel: &str, line: i32, name: &str) -> Tag {
    Tag {
        rel_fname: Arc::from(rel),
        fname: Arc::from(dir.join(rel).as_path()),
        line,
        name: name.to_owned(),
        kind: TagKind::Def,
        sub_kind: "function",
    }
}

fn no_chat() -> HashSet<String> {
    HashSet::new()
}

#[test]
fn lines_of_interest_are_zero_based_rows() {
    assert_eq!(line_of_interest(1), 0);
    assert_eq!(line_of_interest(42), 41);
    assert_eq!(line_of_interest(-1), -1);
}

#[test]
fn unreadable_files_per_dialect() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.py"), b"def f():\n    return '\xff'\n").unwrap();
    let tags = [
        tag(dir.path(), "missing.py", 4, "f"),
        tag(dir.path(), "bad.py", 1, "f"),
        tag(dir.path(), "bad.py", 2, "f"),
    ];
    let mut items: Vec<MapItem<'_>> = tags.iter().map(MapItem::from).collect();
    items.push(MapItem::File(""));
    items.push(MapItem::File("z"));

    // Measured with Aider 0.86.2: an unreadable or non-UTF-8 file is rendered as the text
    // "\n" (row 0 of interest prints `│`, else `⋮`), and the empty bare name is dropped.
    let aider = Renderer::new(Dialect::Aider).to_tree(&items, &no_chat());
    assert_eq!(aider, "\nbad.py:\n│\n\nmissing.py:\n⋮\n\nz\n");

    // behaviour.md §9.2: an unreadable file renders as ""; §14: undecodable bytes are replaced.
    let default = Renderer::new(Dialect::Default).to_tree(&items, &no_chat());
    assert_eq!(
        default,
        "\n\n\nbad.py:\n│def f():\n│    return '\u{fffd}'\n\nmissing.py:\n\nz\n"
    );
}

/// Issue 23: the caches check the file's whole stamp (size, mtime, ctime, inode), not the
/// mtime alone as Aider does (docs/parity.md V6): a rewrite that puts the mtime back
/// (`cp -p`, `touch -r`) is read again.
#[test]
fn context_cache_follows_the_file_stamp() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.py");
    let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let write = |text: &str, mtime: SystemTime| {
        std::fs::write(&path, text).unwrap();
        File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    };
    let mut r = Renderer::new(Dialect::Default);
    write("def old():\n    pass\n", t0);
    assert_eq!(r.render_tree(&path, "a.py", &[0]), "│def old():\n⋮\n");

    // New content, new mtime: a new context.
    write("def new():\n    pass\n", t0 + Duration::from_secs(5));
    assert_eq!(r.render_tree(&path, "a.py", &[0]), "│def new():\n⋮\n");

    // New content, the same mtime put back: Aider's caches would serve the old text; the
    // change time tells, and both caches read the file again.
    write("def newer():\n    pass\n", t0 + Duration::from_secs(5));
    assert_eq!(r.render_tree(&path, "a.py", &[0]), "│def newer():\n⋮\n");
    r.clear_render_cache();
    assert_eq!(
        r.render_tree(&path, "a.py", &[0, 1]),
        "│def newer():\n│    pass\n"
    );
}

/// A long session must not keep every file it ever rendered (issue 13): `start_map` drops
/// the contexts the previous map did not use.
#[test]
fn contexts_are_kept_for_the_files_of_the_last_two_maps_only() {
    let dir = tempfile::tempdir().unwrap();
    let paths: Vec<_> = (0..3)
        .map(|i| {
            let path = dir.path().join(format!("f{i}.py"));
            std::fs::write(&path, format!("def f{i}():\n    pass\n")).unwrap();
            path
        })
        .collect();
    let mut r = Renderer::new(Dialect::Default);
    let map_of = |r: &mut Renderer, files: &[usize]| {
        r.start_map();
        for &i in files {
            r.render_tree(&paths[i], &format!("f{i}.py"), &[0]);
        }
    };
    map_of(&mut r, &[0, 1]);
    assert_eq!(r.cached_contexts(), 2);
    map_of(&mut r, &[2]);
    assert_eq!(r.cached_contexts(), 3, "the previous map's files stay");
    map_of(&mut r, &[2]);
    assert_eq!(
        r.cached_contexts(),
        1,
        "files no map of the last two used go"
    );
    assert_eq!(
        r.render_tree(&paths[0], "f0.py", &[0]),
        "│def f0():\n⋮\n",
        "a dropped context is rebuilt"
    );
}

#[test]
fn crlf_and_lone_cr_render_like_lf() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("lf.py"),
        "class A:\n    def f(self):\n        return 1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("crlf.py"),
        "class A:\r\n    def f(self):\r        return 1",
    )
    .unwrap();
    for dialect in [Dialect::Aider, Dialect::Default] {
        let mut r = Renderer::new(dialect);
        let lf = r.render_tree(&dir.path().join("lf.py"), "lf.py", &[1]);
        let crlf = r.render_tree(&dir.path().join("crlf.py"), "crlf.py", &[1]);
        assert_eq!(lf, "⋮\n│    def f(self):\n⋮\n");
        assert_eq!(crlf, lf);
    }
}

#[test]
fn max_line_length_is_configurable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rel = "fixtures/render/src/minified.js";
    let tags = [
        tag(&root, rel, 2, "minified"),
        tag(&root, rel, 3, "readable"),
    ];
    let items: Vec<MapItem<'_>> = tags.iter().map(MapItem::from).collect();
    let mut r = Renderer::new(Dialect::Default).with_max_line_length(20);
    assert_eq!(r.max_line_length(), 20);
    let out = r.to_tree(&items, &no_chat());
    assert!(out.lines().all(|l| l.chars().count() <= 20), "{out}");
    assert!(out.contains("\n│export function min\n"), "{out}");
    let wide = Renderer::new(Dialect::Default)
        .with_max_line_length(10_000)
        .to_tree(&items, &no_chat());
    assert!(wide.lines().any(|l| l.chars().count() > 300));
}

#[test]
fn unknown_language_renders_lines_without_scopes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.unknown"), "a {\n  b\n  c\n\n}\nd\n").unwrap();
    let tags = [tag(dir.path(), "notes.unknown", 2, "b")];
    let items = [MapItem::Tag(&tags[0])];
    for dialect in [Dialect::Aider, Dialect::Default] {
        let out = Renderer::new(dialect).to_tree(&items, &no_chat());
        assert_eq!(out, "\nnotes.unknown:\n⋮\n│  b\n⋮\n");
    }
}

#[test]
fn fallback_reference_lines_are_ignored_in_the_default_dialect() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rel = "fixtures/render/src/gaps.py";
    let def = tag(&root, rel, 2, "os");
    let mut fallback = tag(&root, rel, -1, "os");
    fallback.kind = TagKind::Ref;
    let with_ref = [MapItem::Tag(&def), MapItem::Tag(&fallback)];
    let without = [MapItem::Tag(&def)];
    let mut r = Renderer::new(Dialect::Default);
    assert_eq!(
        r.to_tree(&with_ref, &no_chat()),
        r.to_tree(&without, &no_chat())
    );
    // Aider: row -1 is Python's scopes[-1] (the row past the end), and -1 and 1 close row 0.
    let mut a = Renderer::new(Dialect::Aider);
    assert_ne!(
        a.to_tree(&with_ref, &no_chat()),
        a.to_tree(&without, &no_chat())
    );
}

#[test]
fn chat_files_accept_any_string_set() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let rel = "fixtures/render/src/gaps.py";
    let t = tag(&root, rel, 7, "alpha");
    let items = [MapItem::Tag(&t), MapItem::File("other.txt")];
    let arcs: HashSet<Arc<str>> = HashSet::from([Arc::from(rel)]);
    let strs: HashSet<&str> = HashSet::from(["other.txt"]);
    let mut r = Renderer::new(Dialect::Default);
    assert_eq!(r.to_tree(&items, &arcs), "\nother.txt\n");
    assert!(
        r.to_tree(&items, &strs)
            .starts_with("\nfixtures/render/src/gaps.py:\n")
    );
    assert_eq!(r.to_tree(&[], &strs), "");
}

/// A Python file of `classes` classes, 10 lines each.
fn big_python(classes: usize) -> String {
    let mut code = String::from("import os\n\n");
    for i in 0..classes {
        code.push_str(&format!(
            "class C{i}(object):\n    \"\"\"Doc.\"\"\"\n\n    def m{i}(self, a,\n            b):\n        x = a + b\n        if x:\n            return os.sep\n        return x\n\n"
        ));
    }
    code
}

#[test]
fn fifty_thousand_lines_render_fast() {
    let code = big_python(5_000);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("big.py"), &code).unwrap();
    let start = Instant::now();
    let ctx = TreeContext::new(code.as_str(), Some(Language::Python), Dialect::Default);
    assert_eq!(ctx.line_count(), 50_002);
    let defs: Vec<i64> = (0..5_000).flat_map(|i| [2 + 10 * i, 5 + 10 * i]).collect();
    let all = ctx.render(&defs);
    assert_eq!(
        all.lines().filter(|l| l.starts_with("│class C")).count(),
        5_000
    );
    // A binary search's worth of to_tree calls over prefixes of the ranked definitions.
    let tags: Vec<Tag> = defs
        .iter()
        .map(|&row| tag(dir.path(), "big.py", row as i32 + 1, "x"))
        .collect();
    let items: Vec<MapItem<'_>> = tags.iter().map(MapItem::from).collect();
    let mut r = Renderer::new(Dialect::Default);
    let mut n = items.len();
    while n > 0 {
        let out = r.to_tree(&items[..n], &no_chat());
        assert!(out.starts_with("\nbig.py:\n"));
        n /= 2;
    }
    let elapsed = start.elapsed();
    eprintln!("50,002-line file: context + 15 renders in {elapsed:?}");
    // Generous for unoptimised builds; a quadratic pass over lines would take minutes.
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
}

#[test]
fn renderer_and_context_can_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Renderer>();
    send_sync::<TreeContext>();
}
