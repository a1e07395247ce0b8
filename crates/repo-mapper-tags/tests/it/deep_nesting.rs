//! No file can stall extraction (issue 12): deeply nested sources of several languages and
//! shapes finish within the per-file time bound, cut short or not, and keep what they found.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use repo_mapper_tags::{
    CutShort, Dialect, Extraction, Language, Limits, TagKind, extract_source_within,
};

/// Nesting deep enough to have stalled tree-sitter's query cursor for minutes (issue 12
/// measured > 400 s at 100,000 levels).
const DEEP: usize = 100_000;

/// The bound the tests give each file.
const LIMIT: Duration = Duration::from_secs(2);

/// Generous slack over [`LIMIT`] for a loaded machine: the property is "bounded", not
/// "fast"; without the bound these inputs take minutes.
const SLACK: Duration = Duration::from_secs(30);

fn run(lang: Language, src: &str, dialect: Dialect) -> (Extraction, Duration) {
    let started = Instant::now();
    let out = extract_source_within(
        lang,
        src,
        Arc::from("deep"),
        Arc::from(Path::new("/r/deep")),
        dialect,
        &Limits::new(LIMIT),
    );
    (out, started.elapsed())
}

/// The extraction of `src` (file `name` under `/r`) with time enough for any machine: the
/// tests that use it bound depth, not time.
fn without_time_limit(lang: Language, name: &str, src: &str) -> Extraction {
    let fname = Path::new("/r").join(name);
    let limits = Limits::new(Duration::from_secs(600));
    let (rel, abs) = (Arc::from(name), Arc::from(fname.as_path()));
    extract_source_within(lang, src, rel, abs, Dialect::Default, &limits)
}

fn nested(open: impl Fn(usize) -> String, middle: &str, close: &str) -> String {
    let mut s = String::new();
    for i in 0..DEEP {
        s.push_str(&open(i));
    }
    s.push_str(middle);
    s.push_str(&close.repeat(DEEP));
    s
}

fn assert_bounded(name: &str, lang: Language, src: &str) {
    for dialect in [Dialect::Default, Dialect::Aider] {
        let (out, took) = run(lang, src, dialect);
        let defs = out.tags.iter().filter(|t| t.kind == TagKind::Def).count();
        eprintln!(
            "{name} ({dialect:?}): {took:?}, cut short {:?}, {defs} definitions",
            out.cut_short
        );
        assert!(
            took < LIMIT + SLACK,
            "{name} ({dialect:?}) took {took:?}, cut short: {:?}",
            out.cut_short
        );
        if out.cut_short == Some(CutShort::Parse) {
            assert!(out.tags.is_empty(), "{name}: a cut parse yields no tags");
        }
    }
}

#[test]
fn nested_javascript_functions() {
    let src = nested(|i| format!("function f{i}(){{"), "x();", "}");
    assert_bounded("js functions", Language::JavaScript, &src);
}

#[test]
fn nested_python_calls() {
    let src = format!("v = {}1{}\n", "g(".repeat(DEEP), ")".repeat(DEEP));
    assert_bounded("python calls", Language::Python, &src);
}

#[test]
fn nested_c_blocks() {
    let src = format!(
        "int main() {{{}x();{}}}\n",
        "{".repeat(DEEP),
        "}".repeat(DEEP)
    );
    assert_bounded("c blocks", Language::C, &src);
}

#[test]
fn nested_rust_closures() {
    let src = format!(
        "fn main() {{ let f = {}0{}; }}\n",
        "|x| (".repeat(DEEP),
        ")".repeat(DEEP)
    );
    assert_bounded("rust closures", Language::Rust, &src);
}

#[test]
fn nested_java_classes() {
    let src = nested(|i| format!("class C{i} {{ "), "void m() {}", "}");
    assert_bounded("java classes", Language::Java, &src);
}

#[test]
fn nested_go_func_literals() {
    let src = format!(
        "package p\nfunc main() {{ {} }}\n",
        nested(|_| "func() {".to_owned(), "g()", "}()")
    );
    assert_bounded("go func literals", Language::Go, &src);
}

#[test]
fn nested_typescript_arrows() {
    let src = format!("const f = {}0;\n", "() => ".repeat(DEEP));
    assert_bounded("ts arrows", Language::TypeScript, &src);
}

#[test]
fn a_zero_limit_cuts_every_file_at_the_parse() {
    let out = extract_source_within(
        Language::Python,
        "def f():\n    g()\n",
        Arc::from("a.py"),
        Arc::from(Path::new("/r/a.py")),
        Dialect::Default,
        &Limits::new(Duration::ZERO),
    );
    assert_eq!(out.cut_short, Some(CutShort::Parse));
    assert!(out.tags.is_empty());
}

#[test]
fn an_ordinary_file_is_not_cut_short() {
    let (out, _) = run(Language::Python, "def f():\n    g()\n", Dialect::Default);
    assert_eq!(out.cut_short, None);
    assert!(
        out.tags
            .iter()
            .any(|t| t.kind == TagKind::Def && t.name == "f")
    );
}

/// Past 65,535 levels tree-sitter's query cursor wraps its 16-bit start depths and crawls
/// (issue 12: minutes for 100,000 nested functions). Such a tree is queried for matches
/// starting above depth 60,000 only: the definitions there are kept, whatever the clock,
/// and the file counts as cut short.
#[test]
fn a_tree_too_deep_for_the_query_cursor_keeps_its_shallow_definitions() {
    let levels = 40_000; // two tree levels each: 80,000 deep
    let src: String = (0..levels)
        .map(|i| format!("function f{i}(){{"))
        .collect::<String>()
        + "x();"
        + &"}".repeat(levels);
    let out = without_time_limit(Language::JavaScript, "deep.js", &src);
    assert_eq!(out.cut_short, Some(CutShort::Depth));
    let defs: Vec<&str> = out
        .tags
        .iter()
        .filter(|t| t.kind == TagKind::Def)
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(defs.len(), 30_000);
    assert_eq!((defs[0], defs[29_999]), ("f0", "f29999"));
}

/// The same bound where the tag query runs as a walk (Python, issue 26): calls nested
/// 40,000 deep (two tree levels each) keep the references of the calls starting above
/// depth 60,000, and the file counts as cut short.
#[test]
fn a_python_tree_too_deep_for_the_query_cursor_keeps_its_shallow_tags() {
    let levels = 40_000;
    let src = "def g():\n    pass\n".to_owned() + &"f(".repeat(levels) + &")".repeat(levels);
    let out = without_time_limit(Language::Python, "deep.py", &src);
    assert_eq!(out.cut_short, Some(CutShort::Depth));
    let calls = out.tags.iter().filter(|t| t.kind == TagKind::Ref).count();
    // module (0) > expression_statement (1) > call (2) > argument_list (3) > call (4) …
    assert_eq!(calls, 29_999 + 1);
    assert!(
        out.tags
            .iter()
            .any(|t| t.kind == TagKind::Def && t.name == "g")
    );
}
