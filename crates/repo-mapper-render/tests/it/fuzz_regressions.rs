//! Hostile input (issue 12): every input `cargo xtask fuzz` saved under
//! `fixtures/fuzz-regressions/` goes again through the fuzzer's own checks (extraction in
//! both dialects and rendering, each bounded and panic-free), and deeply nested files of
//! several languages render in bounded time.

// Not all of it is used here: the fuzzer's quiet panic hook would hide other tests' panics.
#[allow(dead_code)]
#[path = "../../../../xtask/src/fuzz/check.rs"]
mod check;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use repo_mapper_render::TreeContext;
use repo_mapper_tags::{Dialect, Language, Limits};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn saved_inputs() -> Vec<PathBuf> {
    let dir = fixtures().join("fuzz-regressions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/fuzz-regressions exists")
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The failures of one saved input, named `<language>-<hash>.<ext>`.
fn replay(path: &Path) -> Vec<String> {
    let name = file_name(path);
    let lang = check::regression_language(&name)
        .unwrap_or_else(|| panic!("{name}: not <language>-<hash>.<ext>"));
    let bytes = std::fs::read(path).unwrap();
    check::warm_up_language(lang, &fixtures().join("languages"));
    let outcome = check::check(lang, &name, &bytes, check::DEFAULT_TIME_LIMIT);
    let (step, took) = outcome.slowest().unwrap_or(("none", Duration::ZERO));
    eprintln!(
        "{name}: slowest step {step} ({took:.2?}), not UTF-8: {}, cut short: {}",
        outcome.rejected, outcome.cut_short
    );
    let steps = outcome.steps.len();
    assert!(steps > 0, "{name}: no step ran");
    outcome
        .failures
        .into_iter()
        .map(|f| format!("{name}: {f}"))
        .collect()
}

#[test]
fn replay_every_saved_input() {
    let failures: Vec<String> = saved_inputs().iter().flat_map(|p| replay(p)).collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Issue 12's depth.
const DEEP: usize = 100_000;

/// The default limit: unoptimised, these files parse in about three seconds, so the
/// rendering walks their 100,000-deep trees.
const LIMIT: Duration = Limits::DEFAULT_TIME_PER_FILE;

/// Generous slack over [`LIMIT`] for a loaded machine: the property is "bounded", not
/// "fast".
const SLACK: Duration = Duration::from_secs(30);

/// Renders `code` in both dialects around its first line, every 1,000th line and the
/// innermost one (`inner`), within the bound; checks that the innermost line shows.
fn assert_renders_bounded(name: &str, lang: Language, code: &str, inner: usize) {
    let lines = code.lines().count();
    let mut lois: Vec<i64> = (0..lines).step_by(1_000).map(|i| i as i64).collect();
    lois.push(inner as i64);
    let inner_line = code.lines().nth(inner).unwrap();
    for dialect in [Dialect::Default, Dialect::Aider] {
        let started = Instant::now();
        let context = TreeContext::new_within(code, Some(lang), dialect, &Limits::new(LIMIT));
        let out = context.render(&lois);
        let took = started.elapsed();
        eprintln!("{name} ({dialect:?}): {took:.2?}, {} bytes", out.len());
        assert!(took < LIMIT + SLACK, "{name} ({dialect:?}) took {took:?}");
        assert!(
            out.contains(&format!("│{inner_line}\n")),
            "{name}: no innermost line"
        );
    }
}

#[test]
fn nested_javascript_functions_render() {
    let open: String = (0..DEEP).map(|i| format!("function f{i}() {{\n")).collect();
    let code = format!("{open}x();\n{}", "}\n".repeat(DEEP));
    assert_renders_bounded("js functions", Language::JavaScript, &code, DEEP);
}

#[test]
fn nested_python_calls_render() {
    let code = format!("v = {}1{}\nw = 2\n", "g(".repeat(DEEP), ")".repeat(DEEP));
    assert_renders_bounded("python calls", Language::Python, &code, 0);
    let lines = format!("v = {}1\n{}\n", "g(\n".repeat(DEEP), ")".repeat(DEEP));
    assert_renders_bounded("python calls, one a line", Language::Python, &lines, DEEP);
}

#[test]
fn nested_c_blocks_render() {
    let code = format!(
        "int main() {{\n{}x();\n{}}}\n",
        "{\n".repeat(DEEP),
        "}\n".repeat(DEEP)
    );
    assert_renders_bounded("c blocks", Language::C, &code, DEEP + 1);
}

#[test]
fn nested_rust_closures_render() {
    let code = format!(
        "fn main() {{\n    let f = {}0{};\n}}\n",
        "|x| (\n".repeat(DEEP),
        ")\n".repeat(DEEP)
    );
    assert_renders_bounded("rust closures", Language::Rust, &code, DEEP + 1);
}

#[test]
fn a_deep_file_out_of_time_renders_without_scopes() {
    let code = format!("{}x\n{}", "{\n".repeat(DEEP), "}\n".repeat(DEEP));
    let lois = [0, DEEP as i64, 2 * DEEP as i64 - 1];
    let cut = Limits::new(Duration::ZERO);
    let context = TreeContext::new_within(code.as_str(), Some(Language::C), Dialect::Default, &cut);
    let plain = TreeContext::new(code.as_str(), None, Dialect::Default);
    assert_eq!(context.render(&lois), plain.render(&lois));
}
