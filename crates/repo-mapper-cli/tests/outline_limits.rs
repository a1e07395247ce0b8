//! `outline` and `show` on minified files, through the binary: a one-line file of 1 MiB
//! (the largest the map parses) gives an outline that grows with its symbols, not with
//! its symbols times its line, and a 50 MB one is not parsed and says so in one line, as
//! the map does. Each child runs under a 4 GiB address-space limit and a timeout far
//! beyond what the fixed code needs, so a regression fails the test instead of taking the
//! machine's memory.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;

/// The per-user cache home of the binaries these tests run: under the target directory.
const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

/// One MiB: the largest file the map's default `--max-filesize` parses.
const MIB: usize = 1 << 20;

/// The words of the warning for a file left unparsed, as the map says it.
const NOT_PARSED: &str = "larger than 1 MiB not parsed";

/// A minified script of exactly `size` bytes on one line: functions, function values and
/// classes with methods, short names reused as minifiers do (`e`, `t`, `n`), each
/// top-level name `f<i>`, `v<i>` or `K<i>` unique.
fn minified(size: usize) -> String {
    let mut out = String::with_capacity(size + 128);
    let mut i = 0;
    while out.len() < size - 64 {
        let part = match i % 4 {
            0 => format!("function f{i}(e,t){{var n=e+t;return n*{i}}}"),
            1 => format!("var v{i}=function(e){{return e+{i}}};"),
            2 => format!("class K{i}{{m{i}(e){{return e}}get g(){{return {i}}}}}"),
            _ => format!("function e(t,n){{return t(n,{i})}}"),
        };
        out.push_str(&part);
        i += 1;
    }
    // A comment fills the rest, so the file is exactly `size` bytes.
    out.push_str("/*");
    while out.len() < size - 2 {
        out.push('x');
    }
    out.push_str("*/");
    out
}

/// A repository holding `name` with `text`.
fn repo_with(name: &str, text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let mut file = std::io::BufWriter::new(std::fs::File::create(dir.path().join(name)).unwrap());
    file.write_all(text.as_bytes()).unwrap();
    file.flush().unwrap();
    dir
}

/// `repo-mapper ARGS` in `repo`, under a 4 GiB address-space limit and a 10-minute
/// timeout (the fixed code needs seconds, unoptimised).
fn run(repo: &Path, args: &[&str]) -> std::process::Output {
    let bin = env!("CARGO_BIN_EXE_repo-mapper");
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("ulimit -v 4194304 && exec \"$0\" \"$@\"")
        .arg(bin)
        .args(args)
        .current_dir(repo)
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
        .env_remove("REPO_MAPPER_CACHE_DIR")
        .timeout(Duration::from_secs(600));
    c.output().unwrap()
}

/// The stdout of a run that must succeed.
fn stdout_ok(repo: &Path, args: &[&str]) -> String {
    let out = run(repo, args);
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A 1 MiB one-line script: every symbol's signature is its own declaration (not the
/// line's start), cut at a fixed length with `…`; symbols nest as the code does (a
/// method in its class, nothing in the first function); the text and the JSON grow with
/// the symbols, and `show` prints the definition, not the line.
#[test]
fn a_one_line_mebibyte_outlines_in_bounded_output() {
    let text = minified(MIB);
    assert_eq!(text.len(), MIB);
    let r = repo_with("bundle.min.js", &text);
    let outline = stdout_ok(r.path(), &["outline", "bundle.min.js"]);
    assert!(outline.len() < 8 * MIB, "{} bytes of text", outline.len());
    // A signature keeps 400 characters at most; a line adds its kind, range, visibility.
    let longest = outline.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(longest <= 500, "a line of {longest} characters");
    assert!(!outline.contains(NOT_PARSED), "1 MiB is parsed");
    assert!(
        outline.contains("\n  function f40(e,t){  [1-1] private\n"),
        "{}",
        &outline[..outline.len().min(2000)]
    );
    assert!(outline.contains("\n    method m42(e){  [1-1] public\n"));

    let json = stdout_ok(r.path(), &["outline", "--format", "json", "bundle.min.js"]);
    assert!(json.len() < 8 * MIB, "{} bytes of JSON", json.len());
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let file = &json["files"][0];
    assert_eq!(file["warning"], serde_json::Value::Null);
    let symbols = file["symbols"].as_array().unwrap();
    assert!(symbols.len() > 10_000, "{} symbols", symbols.len());
    for s in symbols {
        let signature = s["signature"].as_str().unwrap();
        assert!(signature.chars().count() <= 401, "{signature}");
        assert!(s["depth"].as_u64().unwrap() <= 1, "{s}");
    }
    let by_name = |name: &str| symbols.iter().find(|s| s["name"] == name).unwrap();
    assert_eq!(by_name("m42")["parent"], "K42");
    assert_eq!(by_name("f40")["parent"], serde_json::Value::Null);

    let shown = stdout_ok(r.path(), &["show", "bundle.min.js#f40"]);
    assert_eq!(
        shown,
        "bundle.min.js:1-1 f40\nfunction f40(e,t){var n=e+t;return n*40}\n"
    );
}

/// A 50 MB one-line script is not parsed, as the map would not parse it: `outline` says
/// so in one line of its text and in a `warning` of its JSON, and `show` says so as its
/// one line of error, instead of "defines nothing".
#[test]
fn a_fifty_megabyte_line_is_not_parsed_and_says_so() {
    let one = minified(MIB);
    let r = repo_with("huge.min.js", &one.repeat(50));
    let outline = stdout_ok(r.path(), &["outline", "huge.min.js"]);
    assert_eq!(
        outline,
        "huge.min.js (javascript, 1 lines)\n  warning: larger than 1 MiB not parsed (the map's \
         --max-filesize default)\n"
    );
    let json = stdout_ok(r.path(), &["outline", "--format", "json", "huge.min.js"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let warning = json["files"][0]["warning"].as_str().unwrap();
    assert!(warning.starts_with(NOT_PARSED), "{warning}");

    let shown = run(r.path(), &["show", "huge.min.js#f815143"]);
    assert_eq!(shown.status.code(), Some(2));
    assert!(shown.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&shown.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("huge.min.js: larger than 1 MiB not parsed"),
        "{stderr}"
    );
}
