//! Issue 12, hostile input: what reaches stdout and stderr stays ours, one line per
//! diagnostic, with no raw control characters from file names and no colour off a terminal.

use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

/// The per-user cache home of the binaries these tests run (behaviour.md §5.2.1): under
/// the target directory, never the developer's own.
const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

fn cmd(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("repo-mapper").unwrap();
    c.current_dir(dir)
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
        .env_remove("REPO_MAPPER_CACHE_DIR")
        .env_remove("NO_COLOR");
    c
}

fn run(c: &mut Command) -> (Output, String) {
    let out = c.output().unwrap();
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert!(out.status.success(), "{err}");
    (out, err)
}

/// A small repository: a module using a class, and the given hostile names holding Python.
fn repo_with(names: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("main.py"),
        "from store import Store\n\ndef main():\n    return Store().load()\n",
    )
    .unwrap();
    for name in names {
        let body = "class Store:\n    def load(self):\n        return 1\n";
        std::fs::write(dir.path().join(name), body).unwrap();
    }
    dir
}

/// Control characters a terminal acts on, and the bidirectional controls that show text
/// in another order than it has (Trojan Source), as they would appear raw in output.
fn raw_controls(text: &str) -> Vec<char> {
    let bidi = |c: char| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}');
    text.chars()
        .filter(|&c| (c.is_control() && c != '\n') || bidi(c))
        .collect()
}

/// A run with its tag cache in `cache`.
fn cached(r: &Path, cache: &Path) -> Command {
    let mut c = cmd(r);
    c.arg(".").arg("--cache-dir").arg(cache);
    c
}

/// A tag cache written by one run, then its sled `conf` file overwritten with bytes that
/// are not UTF-8 (and fail its checksum), and its pack removed.
fn damaged_cache(r: &Path) -> tempfile::TempDir {
    let cache = tempfile::tempdir().unwrap();
    run(&mut cached(r, cache.path()));
    let store = std::fs::read_dir(cache.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.is_dir()
                && p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with("tags-")
        })
        .expect("a store directory in the cache");
    std::fs::write(store.join("conf"), [0xff_u8; 32]).unwrap();
    // Without its pack the next run must open sled (a warm run served by the pack never
    // does).
    std::fs::remove_dir_all(store.join("packs")).unwrap();
    cache
}

#[test]
fn sled_log_lines_stay_off_stderr() {
    let r = repo_with(&["store.py"]);
    let cache = damaged_cache(r.path());
    let (out, err) = run(&mut cached(r.path(), cache.path()));
    assert!(
        String::from_utf8(out.stdout).unwrap().contains("store.py:"),
        "the map still comes out"
    );
    for noise in ["crc", "persisted config", "ERROR"] {
        assert!(!err.contains(noise), "sled's own log line leaked: {err}");
    }
    assert!(err.lines().count() <= 1, "at most our one warning: {err}");
}

#[test]
fn rust_log_can_still_ask_for_sleds_lines() {
    let r = repo_with(&["store.py"]);
    let cache = damaged_cache(r.path());
    let (_, err) = run(cached(r.path(), cache.path()).env("RUST_LOG", "warn,sled=warn"));
    assert!(err.contains("persisted config"), "{err}");
}

#[test]
fn no_colour_when_stderr_is_not_a_terminal() {
    let r = repo_with(&["store.py"]);
    let (_, err) = run(cmd(r.path()).args([".", "-c", "ghost.py"]));
    assert!(err.contains("ghost.py"), "a warning was produced: {err}");
    assert!(!err.contains("\x1b["), "ANSI codes on a pipe: {err:?}");
}

#[test]
fn a_warning_about_a_hostile_name_is_one_escaped_line() {
    let r = repo_with(&["store.py"]);
    let ghost = "gh\nost\x1b]0;pwned\x07\r\t.py";
    let (out, err) = run(cmd(r.path()).args([".", "-c", ghost]));
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("gh\\nost"), "{err:?}");
    assert!(raw_controls(&err).is_empty(), "{err:?}");
    assert!(raw_controls(&String::from_utf8(out.stdout).unwrap()).is_empty());
}

#[test]
fn our_own_error_lines_are_escaped() {
    let r = repo_with(&["store.py"]);
    let out = cmd(r.path()).arg("no\nsuch\x1b[2Jroot").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(err.contains("no\\nsuch\\x1b[2Jroot"), "{err:?}");
    assert!(raw_controls(&err).is_empty(), "{err:?}");

    let out = cmd(r.path())
        .args([".", "--max-tokens", "\x1b[31m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err:?}");
    assert!(raw_controls(&err).is_empty(), "{err:?}");
}

const HOSTILE: [&str; 4] = [
    "a\nb.py",
    "c\x1b[2Jd.py",
    "e\x7f\u{85}f.py",
    "rtl_\u{202e}yp.txt.py",
];

/// How [`HOSTILE`]'s names are shown.
const ESCAPED: [&str; 4] = [
    "a\\nb.py",
    "c\\x1b[2Jd.py",
    "e\\x7f\\u{85}f.py",
    "rtl_\\u{202e}yp.txt.py",
];

#[test]
fn file_names_in_the_map_are_escaped() {
    let r = repo_with(&HOSTILE);
    std::fs::write(r.path().join("notes\tme.txt"), "plain text\n").unwrap();
    for profile in ["default", "aider"] {
        let (out, _) = run(cmd(r.path()).args([".", "-t", "4096", "--profile", profile]));
        let map = String::from_utf8(out.stdout).unwrap();
        for name in ESCAPED {
            let header = format!("{name}:");
            assert!(map.lines().any(|l| l == header), "{profile}: {map}");
        }
        assert!(
            map.lines().any(|l| l == "notes\\tme.txt"),
            "{profile}: {map}"
        );
        assert!(map.contains("main.py:"), "normal names unchanged: {map}");
        assert!(raw_controls(&map).is_empty(), "{profile}: {map:?}");
    }
}

#[test]
fn json_output_is_valid_and_has_no_raw_control_bytes() {
    let r = repo_with(&HOSTILE);
    let (out, _) = run(cmd(r.path()).args([".", "-t", "4096", "--format", "json"]));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(raw_controls(&text).is_empty(), "{text:?}");
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    // Names are escaped in JSON values as in the map (issue 23), so an entry names the
    // file the map shows.
    let ranked = v["file_ranks"].as_object().unwrap();
    for name in ESCAPED {
        assert!(
            ranked.contains_key(name),
            "escaped as in the map: {ranked:?}"
        );
    }
    assert!(v["map"].as_str().unwrap().contains("a\\nb.py:"));
}

#[test]
fn max_line_length_below_the_minimum_is_rejected() {
    let r = repo_with(&["store.py"]);
    for n in ["0", "15"] {
        let out = cmd(r.path())
            .args([".", "--max-line-length", n])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "--max-line-length {n}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{err:?}");
        assert!(
            err.contains("--max-line-length must be at least 16"),
            "{err}"
        );
    }
    let (out, _) = run(cmd(r.path()).args([".", "--max-line-length", "16"]));
    let map = String::from_utf8(out.stdout).unwrap();
    assert!(map.lines().all(|l| l.chars().count() <= 16), "{map}");
    assert!(map.lines().any(|l| !l.trim().is_empty()), "{map}");
}
