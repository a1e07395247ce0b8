//! The `repo-mapper` binary, flag by flag, on `fixtures/sample-repo` (copied to a temp dir
//! so nothing is written into the source tree).

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::copy_dir;
use predicates::prelude::*;

/// The per-user cache home of the binaries these tests run (behaviour.md §5.2.1): under
/// the target directory, never the developer's own.
const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sample-repo")
}

/// A fresh copy of the sample repository.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    dir
}

fn cmd(repo: &Path) -> Command {
    let mut c = Command::cargo_bin("repo-mapper").unwrap();
    c.current_dir(repo)
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
        .env_remove("REPO_MAPPER_CACHE_DIR");
    c
}

/// [`cmd`] with its tag cache in `cache` (`REPO_MAPPER_CACHE_DIR`), for the tests that
/// look inside it.
fn cmd_in_cache(repo: &Path, cache: &Path) -> Command {
    let mut c = cmd(repo);
    c.env("REPO_MAPPER_CACHE_DIR", cache);
    c
}

fn stdout_of(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn default_map_of_the_sample_repo() {
    let r = repo();
    let map = stdout_of(cmd(r.path()).arg("."));
    insta::assert_snapshot!("default_map", map);
    assert!(
        !r.path().join(".repo-mapper").exists(),
        "the default tag cache is the user's, not in the root"
    );
    let mut dirs: Vec<_> = std::fs::read_dir(Path::new(TEST_CACHE_HOME).join("repo-mapper"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|d| d.join(".gitignore").is_file())
        .collect();
    dirs.retain(|d| {
        let name = d.file_name().unwrap().to_string_lossy().into_owned();
        let root = r.path().file_name().unwrap().to_string_lossy().into_owned();
        name.starts_with(&format!(
            "{}-",
            root.replace(
                |c: char| !c.is_ascii_alphanumeric() && !"-_.".contains(c),
                ""
            )
        ))
    });
    assert_eq!(dirs.len(), 1, "one directory for this repository: {dirs:?}");
}

#[test]
fn aider_profile_map() {
    let r = repo();
    insta::assert_snapshot!(
        "aider_map",
        stdout_of(cmd(r.path()).args([".", "--profile", "aider"]))
    );
}

#[test]
fn tight_budget_default_never_over_aider_within_fifteen_percent() {
    let r = repo();
    for budget in [100.0, 200.0, 300.0] {
        let t = budget.to_string();
        let tokens = |profile: &str| {
            let out = stdout_of(cmd(r.path()).args([
                ".",
                "--format",
                "json",
                "-t",
                &t,
                "--profile",
                profile,
            ]));
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            v["tokens"].as_f64().unwrap()
        };
        assert!(tokens("default") <= budget);
        assert!(tokens("aider") <= budget * 1.15);
    }
    insta::assert_snapshot!(
        "aider_map_200",
        stdout_of(cmd(r.path()).args([".", "-t", "200", "--profile", "aider"]))
    );
    insta::assert_snapshot!(
        "default_map_200",
        stdout_of(cmd(r.path()).args([".", "-t", "200"]))
    );
    // The SPEC exactly: what the default profile gave before its measured departures
    // (issue 16), important files first.
    insta::assert_snapshot!(
        "spec_map_200",
        stdout_of(cmd(r.path()).args([".", "-t", "200", "--profile", "spec"]))
    );
}

#[test]
fn json_output() {
    let r = repo();
    let out = stdout_of(cmd(r.path()).args([".", "--format", "json", "-c", "app/models/user.py"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["budget"], 1024);
    assert_eq!(v["profile"], "default");
    assert_eq!(v["tokenizer"], "cl100k_base");
    assert!(v["tokens"].as_f64().unwrap() <= 1024.0);
    let entries = v["entries"].as_array().unwrap();
    assert!(
        entries
            .iter()
            .all(|e| e["stage"].is_string() && e["file"].is_string())
    );
    assert!(
        entries
            .iter()
            .any(|e| e["stage"] == "definition" && e["ident"].is_string())
    );
    assert!(v["file_ranks"]["app/models/user.py"].as_f64().unwrap() > 0.0);
    // A first run parses every file of a supported language; the times are per step.
    assert_eq!(v["scan"]["files"], 8);
    assert_eq!(v["scan"]["hits"], 0);
    assert!(v["scan"]["parsed"].as_u64().unwrap() > 0);
    let timings = v["timings"].as_object().unwrap();
    for step in [
        "admit", "scan", "index", "graph", "pagerank", "list", "fit", "total",
    ] {
        let ms = timings[&format!("{step}_ms")].as_f64().unwrap();
        assert!(
            ms >= 0.0 && ms <= timings["total_ms"].as_f64().unwrap(),
            "{step}"
        );
    }
    // The rest is the same on every run (cut from the text: a round trip through
    // serde_json's parser would change the floats' last digits).
    let stable = without_top_level_object(&without_top_level_object(&out, "scan"), "timings");
    insta::assert_snapshot!("json", stable);
}

/// Pretty-printed `json` without the top-level key `key`, whose value is an object.
fn without_top_level_object(json: &str, key: &str) -> String {
    let start = format!("  \"{key}\": {{");
    let mut out = String::new();
    let mut skipping = false;
    for line in json.lines() {
        if line == start {
            skipping = true;
        } else if skipping {
            skipping = !line.starts_with("  }");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[test]
fn chat_files_steer_the_map_and_are_left_out() {
    let r = repo();
    let map = stdout_of(cmd(r.path()).args([".", "-c", "app/services/checkout.py"]));
    assert!(!map.contains("app/services/checkout.py"), "{map}");
    assert!(map.contains("app/models/order.py:"), "{map}");
    insta::assert_snapshot!("chat_checkout", map);
}

#[test]
fn chat_file_path_is_relative_to_the_current_directory() {
    let r = repo();
    let map = stdout_of(cmd(&r.path().join("app")).args(["..", "-c", "services/checkout.py"]));
    assert!(!map.contains("checkout.py"), "{map}");
}

#[test]
fn mentions_change_the_ranking() {
    let r = repo();
    let base = stdout_of(cmd(r.path()).args([".", "--format", "json"]));
    // An identifier naming a path component personalises that file (behaviour.md §7.1 step 4).
    let by_ident = stdout_of(cmd(r.path()).args([".", "--format", "json", "-i", "static"]));
    let by_file = stdout_of(cmd(r.path()).args([".", "--format", "json", "-m", "web/static.js"]));
    // The file of the first definition entry (important files such as README.md come
    // before the definitions).
    let first = |s: &str| {
        let v: serde_json::Value = serde_json::from_str(s).unwrap();
        let entries = v["entries"].as_array().unwrap().clone();
        let def = entries
            .into_iter()
            .find(|e| e["stage"] == "definition")
            .unwrap();
        def["file"].as_str().unwrap().to_owned()
    };
    assert_ne!(first(&base), "web/static.js");
    assert_eq!(first(&by_ident), "web/static.js");
    assert_eq!(first(&by_file), "web/static.js");
}

#[test]
fn anchors_are_accepted_in_all_three_forms() {
    let r = repo();
    for a in ["web/static.js", "web/static.js:CartView", "normalize_email"] {
        let map = stdout_of(cmd(r.path()).args([".", "-a", a]));
        assert!(!map.is_empty(), "{a}");
    }
    let map = stdout_of(cmd(r.path()).args([".", "-a", "web/static.js", "-t", "64"]));
    assert!(
        map.contains("web/static.js"),
        "an anchor file is always in the map: {map}"
    );
}

#[test]
fn budget_is_respected_and_grows_without_chat_files() {
    let r = repo();
    for budget in ["64", "256", "2048"] {
        let out = stdout_of(cmd(r.path()).args([".", "--format", "json", "-t", budget]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["tokens"].as_f64().unwrap() <= budget.parse::<f64>().unwrap());
    }
    let out =
        stdout_of(cmd(r.path()).args([".", "--format", "json", "--max-context-window", "16384"]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["budget"], 8192, "min(1024 * 8, 16384 - 4096)");
}

#[test]
fn max_line_length_cuts_lines() {
    let r = repo();
    let map = stdout_of(cmd(r.path()).args([".", "--max-line-length", "30"]));
    assert!(map.lines().all(|l| l.chars().count() <= 30), "{map}");
}

#[test]
fn exclude_unranked_drops_files_outside_the_graph() {
    let r = repo();
    let with = stdout_of(cmd(r.path()).args([".", "-t", "4096"]));
    let without = stdout_of(cmd(r.path()).args([".", "-t", "4096", "--exclude-unranked"]));
    assert!(with.contains("notes.txt"));
    assert!(!without.contains("notes.txt"), "{without}");
}

#[test]
fn pagerank_refresh_and_tokenizer_flags_are_accepted() {
    let r = repo();
    let out = stdout_of(cmd(r.path()).args([
        ".",
        "--pagerank-damping",
        "0.5",
        "--pagerank-tol",
        "1e-9",
        "--pagerank-max-iter",
        "500",
        "--refresh",
        "files",
        "--force-refresh",
        "--tokenizer",
        "o200k_base",
        "--format",
        "json",
    ]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["tokenizer"], "o200k_base");
}

#[test]
fn files_from_a_file_and_from_stdin() {
    let r = repo();
    std::fs::write(
        r.path().join("list.txt"),
        "web/static.js\napp/models/user.py\n",
    )
    .unwrap();
    let map = stdout_of(cmd(r.path()).args([".", "--files-from", "list.txt"]));
    assert!(
        map.contains("web/static.js") && map.contains("app/models/user.py"),
        "{map}"
    );
    assert!(!map.contains("order.py"), "{map}");
    let map = stdout_of(
        cmd(r.path())
            .args([".", "--files-from", "-"])
            .write_stdin("web/static.js\n"),
    );
    assert!(map.contains("web/static.js:"), "{map}");
    assert!(!map.contains("user.py"), "{map}");
}

#[test]
fn cache_dir_and_no_cache() {
    let r = repo();
    let cache = tempfile::tempdir().unwrap();
    stdout_of(cmd(r.path()).arg(".").arg("--cache-dir").arg(cache.path()));
    assert!(cache.path().join(".gitignore").is_file());
    assert!(!r.path().join(".repo-mapper").exists());
    stdout_of(cmd(r.path()).args([".", "--no-cache"]));
    assert!(!r.path().join(".repo-mapper").exists());
    stdout_of(
        cmd(r.path())
            .arg(".")
            .env("REPO_MAPPER_CACHE_DIR", cache.path().join("env")),
    );
    assert!(cache.path().join("env/.gitignore").is_file());
}

#[test]
fn deleted_files_are_pruned_from_the_tag_store_after_a_walk() {
    let r = repo();
    let cache = r.path().join(".repo-mapper");
    let cmd = |dir: &Path| cmd_in_cache(dir, &cache);
    // Entries in sled and in the root's pack alike.
    let stored = || {
        let location = repo_mapper_store::CacheLocation::Dir(cache.clone());
        repo_mapper_store::stored_keys(&location).len()
    };
    stdout_of(cmd(r.path()).arg("."));
    let before = stored();
    std::fs::remove_file(r.path().join("web/routes.py")).unwrap();
    // A partial file list never prunes.
    stdout_of(
        cmd(r.path())
            .args([".", "--files-from", "-"])
            .write_stdin("web/static.js\n"),
    );
    assert_eq!(stored(), before);
    stdout_of(cmd(r.path()).arg("."));
    assert_eq!(stored(), before - 1);
}

#[test]
fn root_flag_and_git_root_detection() {
    let r = repo();
    let map = stdout_of(cmd(Path::new("/")).arg("--root").arg(r.path()));
    assert!(map.contains("app/models/user.py"));
    std::fs::create_dir(r.path().join(".git")).unwrap();
    let map = stdout_of(&mut cmd(&r.path().join("web")));
    assert!(
        map.contains("app/models/user.py"),
        "root found by walking up to .git: {map}"
    );
}

#[test]
fn verbose_and_progress_write_to_stderr_only() {
    let r = repo();
    let quiet = stdout_of(cmd(r.path()).arg("."));
    let out = cmd(r.path()).args([".", "-v", "-p"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        quiet,
        "stdout carries the map only"
    );
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("tag scan done"), "{err}");
    assert!(err.contains("done in"), "{err}");
}

fn fails(c: &mut Command, code: i32, message: &str) {
    let out = c.output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.contains(message), "{err:?} should mention {message:?}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_gets_one_line_and_the_right_exit_code() {
    let r = repo();
    let p = r.path();
    fails(
        cmd(p).args(["does/not/exist"]),
        1,
        "cannot read the repository root",
    );
    fails(cmd(p).args(["README.md"]), 1, "not a directory");
    fails(
        cmd(p).args([".", "-c", "/etc/hostname"]),
        1,
        "outside the repository root",
    );
    // A path that does not exist is resolved too: `..` leads out of the root.
    fails(
        cmd(p).args([".", "-c", "../no-such-sibling/x.py"]),
        1,
        "outside the repository root",
    );
    fails(cmd(p).args([".", "-t", "-5"]), 1, "--max-tokens");
    fails(cmd(p).args([".", "-t", "0"]), 2, "budget is 0");
    fails(cmd(p).args([".", "-t", "lots"]), 1, "invalid value");
    // Named values list what exists, on the same line.
    fails(
        cmd(p).args([".", "--profile", "fast"]),
        1,
        "invalid value 'fast' for '--profile <PROFILE>' [possible values: default, spec, aider]",
    );
    fails(
        cmd(p).args([".", "--tokenizer", "gpt2"]),
        1,
        "[possible values: cl100k_base, o200k_base]",
    );
    fails(
        cmd(p).args([".", "--refresh", "sometimes"]),
        1,
        "[possible values: auto, files, manual, always]",
    );
    fails(cmd(p).args([".", "--format", "xml"]), 1, "invalid value");
    fails(
        cmd(p).args([".", "--no-such-flag"]),
        1,
        "unexpected argument",
    );
    fails(
        cmd(p).args([".", "--files-from", "missing.txt"]),
        1,
        "cannot read the file list",
    );
    fails(cmd(p).args([".", "-t", "1"]), 2, "no map");
    let empty = tempfile::tempdir().unwrap();
    fails(cmd(empty.path()).arg("."), 2, "no files");
}

#[cfg(unix)]
#[test]
fn non_utf8_paths_are_rejected_clearly() {
    use std::os::unix::ffi::OsStrExt;
    let r = repo();
    let bad = std::ffi::OsStr::from_bytes(b"bad\xff.py");
    fails(
        cmd(r.path()).arg(".").arg("-c").arg(bad),
        1,
        "not valid UTF-8",
    );
}

#[test]
fn help_and_version_exit_zero() {
    let r = repo();
    cmd(r.path())
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--max-tokens"));
    cmd(r.path()).arg("--version").assert().success();
}

/// Issue 14: files over `--max-filesize` (default 1 MiB) are not parsed in the default
/// profile, with one warning and a count in the JSON; `none` lifts the limit; the aider
/// profile parses every file.
#[test]
fn files_over_the_size_limit_are_not_parsed_outside_the_aider_profile() {
    let r = tempfile::tempdir().unwrap();
    // One long string: parses in well under a second even unoptimised.
    let big = format!(
        "def generated_table():\n    return lookup_value()\n\nPAD = '{}'\n",
        "a".repeat(1 << 20)
    );
    std::fs::write(r.path().join("big.py"), &big).unwrap();
    std::fs::write(
        r.path().join("small.py"),
        "def lookup_value():\n    return generated_table()\n",
    )
    .unwrap();
    let out = cmd(r.path()).args([".", "--no-cache"]).output().unwrap();
    assert!(out.status.success());
    let (map, err) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(!map.contains("def generated_table"), "{map}");
    assert!(map.contains("def lookup_value"), "{map}");
    assert_eq!(
        err.trim(),
        "WARN 1 file larger than 1 MiB not parsed (--max-filesize raises the limit)"
    );
    let json = stdout_of(cmd(r.path()).args([".", "--no-cache", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["scan"]["too_large"], 1);
    for args in [
        ["--max-filesize", "none"],
        ["--max-filesize", "2M"],
        ["--profile", "aider"],
    ] {
        let out = cmd(r.path())
            .args([".", "--no-cache"])
            .args(args)
            .output()
            .unwrap();
        let map = String::from_utf8(out.stdout).unwrap();
        assert!(map.contains("def generated_table"), "{args:?}: {map}");
        assert!(out.stderr.is_empty(), "{args:?}");
    }
    cmd(r.path())
        .args([".", "--max-filesize", "lots"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is not a size"));
}

#[test]
fn message_mentions_are_derived_listed_and_steer_the_map() {
    let r = repo();
    let message = "Why does checkout.py charge twice? See place_order";
    let out = stdout_of(cmd(r.path()).args([".", "--format", "json", "--message", message]));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["attempt"], 1);
    assert_eq!(
        v["mentions"]["files"],
        serde_json::json!(["app/services/checkout.py"])
    );
    let idents = v["mentions"]["idents"].as_array().unwrap();
    assert!(idents.contains(&serde_json::json!("place_order")));
    // The same mentions given by hand make the same map.
    let by_hand = stdout_of(
        cmd(r.path())
            .args([".", "-m", "app/services/checkout.py"])
            .args(
                idents
                    .iter()
                    .flat_map(|i| ["-i".to_owned(), i.as_str().unwrap().to_owned()]),
            ),
    );
    assert_eq!(v["map"].as_str().unwrap(), by_hand);
}

#[test]
fn message_file_reads_stdin_and_falls_back_when_every_file_is_in_the_chat() {
    let r = repo();
    let mut c = cmd(r.path());
    c.args([
        ".",
        "--format",
        "json",
        "--message-file",
        "-",
        "--files-from",
    ])
    .arg(r.path().join("list.txt"));
    std::fs::write(r.path().join("list.txt"), "app/models/order.py\n").unwrap();
    c.args(["-c", "app/models/order.py"])
        .write_stdin("the Order total is wrong");
    let v: serde_json::Value = serde_json::from_str(&stdout_of(&mut c)).unwrap();
    assert_eq!(v["attempt"], 2, "the only file is in the chat");
    assert!(v["map"].as_str().unwrap().contains("class Order:"));
    assert!(
        v["mentions"]["idents"]
            .as_array()
            .unwrap()
            .contains(&"Order".into())
    );
}

#[test]
fn message_flags_conflict_and_stdin_is_read_once() {
    let r = repo();
    cmd(r.path())
        .args([".", "--message", "x", "--message-file", "m.txt"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot be used with"));
    cmd(r.path())
        .args([".", "--message-file", "-", "--files-from", "-"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("cannot both read stdin"));
}

#[test]
fn completions_and_the_man_page_come_from_the_command_line_definition() {
    let r = repo();
    for (shell, says) in [
        ("bash", "complete -F _repo__mapper"),
        ("zsh", "#compdef repo-mapper"),
        ("fish", "complete -c repo-mapper"),
    ] {
        let script = stdout_of(cmd(r.path()).args(["completions", shell]));
        assert!(script.contains(says), "{shell}");
        assert!(
            script.contains("max-tokens") && script.contains("message"),
            "{shell}"
        );
    }
    let page = stdout_of(cmd(r.path()).arg("man"));
    assert!(page.contains(".TH repo-mapper 1") && page.contains("max\\-tokens"));
    cmd(r.path())
        .args(["completions", "tcsh"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("invalid value"));
}

/// Issue 23: a file name with control characters is escaped in the JSON values as in the
/// map text (`a\nb.py`), so an entry names the file the map shows.
#[cfg(unix)]
#[test]
fn json_names_files_escaped_as_the_map_does() {
    let r = repo();
    let odd = "odd\nname\x1b.py";
    std::fs::write(r.path().join(odd), "def odd_function():\n    return 1\n").unwrap();
    let out = stdout_of(cmd(r.path()).args([".", "--format", "json", "-t", "4096"]));
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    let shown = "odd\\nname\\x1b.py";
    assert!(json["map"].as_str().unwrap().contains(shown));
    let files: Vec<&str> = json["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    assert!(files.contains(&shown), "{files:?}");
    assert!(!files.iter().any(|f| f.contains(odd)), "{files:?}");
    let ranks = json["file_ranks"].as_object().unwrap();
    assert!(ranks.keys().all(|k| !k.chars().any(char::is_control)));
}

/// `.ignore` files keep paths out of the walk as `.gitignore` does (the README says so): a
/// user's, and this repository's, which keeps its deliberately hostile fuzz inputs out of
/// the README's first command, `repo-mapper .` here (issue 23: they made its cold run wait
/// 20 s on the per-file time bound).
#[test]
fn ignore_files_keep_paths_out_of_the_walk() {
    let r = repo();
    std::fs::write(r.path().join(".ignore"), "web/\n").unwrap();
    let json = stdout_of(cmd(r.path()).args([".", "--format", "json", "-t", "8192"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let files: Vec<&str> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["file"].as_str().unwrap())
        .collect();
    assert!(files.contains(&"app/models/order.py"), "{files:?}");
    assert!(!files.iter().any(|f| f.starts_with("web/")), "{files:?}");

    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap();
    let hostile = workspace.join("fixtures/fuzz-regressions");
    assert!(std::fs::read_dir(&hostile).unwrap().count() > 1);
    let walked = repo_mapper::list_files(&workspace, None);
    assert!(walked.iter().any(|f| f.ends_with("README.md")));
    let kept: Vec<_> = walked.iter().filter(|f| f.starts_with(&hostile)).collect();
    assert!(kept.is_empty(), "{kept:?}");
}

/// Issue 24 (D11): in a git repository the default profile ranks first the file that
/// changed in the same commits as the chat file; `--no-history` reads no history, so
/// the ranking is the one without it.
#[test]
fn history_steers_the_ranking_unless_no_history() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    git(&["init", "-q"]);
    for name in ["a", "b", "c", "d"] {
        std::fs::write(
            root.join(format!("{name}.py")),
            format!("def f{name}():\n    return 1\n"),
        )
        .unwrap();
    }
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "helpers"]);
    let app = "from a import fa\nfrom b import fb\nfrom c import fc\nfrom d import fd\n\
               fa(); fa(); fb(); fb(); fc(); fc(); fd()\n";
    std::fs::write(root.join("app.py"), app).unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "app"]);
    for round in 0..3 {
        for f in ["app.py", "d.py"] {
            let mut text = std::fs::read_to_string(root.join(f)).unwrap();
            text.push_str(&format!("# change {round}\n"));
            std::fs::write(root.join(f), text).unwrap();
        }
        git(&["commit", "-q", "-a", "-m", "together"]);
    }
    let first = |extra: &[&str]| {
        let json = stdout_of(
            cmd(root)
                .args(["--format", "json", "-c", "app.py"])
                .args(extra),
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        v["entries"][0]["file"].as_str().unwrap().to_owned()
    };
    assert_eq!(first(&[]), "d.py");
    assert_ne!(first(&["--no-history"]), "d.py");
}

/// Issue 26: agents in several checkouts call the CLI at once. While another process holds
/// the tag store (sled admits one), four runs started together each get the warm map from
/// the root's pack: none waits for the holder, none falls back to parsing every file, none
/// warns. An edited file is parsed by at most each (a run that starts after another kept
/// it in the root's recent pack finds it there), its change is in every map, and it is
/// kept although sled is held: the next run parses nothing.
#[test]
fn four_runs_at_once_beside_a_holder_of_the_store_each_get_a_warm_map() {
    let r = repo();
    let cache = r.path().join(".repo-mapper");
    let cmd = |dir: &Path| cmd_in_cache(dir, &cache);
    let json = |out: &std::process::Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let at_once = |runs: usize| -> Vec<serde_json::Value> {
        let children: Vec<_> = (0..runs)
            .map(|_| {
                std::process::Command::new(assert_cmd::cargo::cargo_bin("repo-mapper"))
                    .current_dir(r.path())
                    .args([".", "--format", "json"])
                    .env_remove("RUST_LOG")
                    .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
                    .env("REPO_MAPPER_CACHE_DIR", &cache)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        children
            .into_iter()
            .map(|c| json(&c.wait_with_output().unwrap()))
            .collect()
    };
    let warm = json(
        &cmd(r.path())
            .args([".", "--format", "json"])
            .output()
            .unwrap(),
    );
    let location = repo_mapper_store::CacheLocation::Dir(cache.clone());
    let holder = repo_mapper_store::open_store(&location, &Default::default());
    assert!(holder.fallback.is_none(), "the test holds the store");
    for run in at_once(4) {
        assert_eq!(run["map"], warm["map"]);
        assert_eq!(run["scan"]["parsed"], 0, "{}", run["scan"]);
        assert_eq!(
            run["scan"]["hits"], warm["scan"]["parsed"],
            "{}",
            run["scan"]
        );
    }
    let user = r.path().join("app/models/user.py");
    let text = std::fs::read_to_string(&user).unwrap();
    std::fs::write(&user, text.replace("class User", "class Member")).unwrap();
    let edited = at_once(4);
    for run in &edited {
        assert!(run["scan"]["parsed"].as_u64() <= Some(1), "{}", run["scan"]);
        let map = run["map"].as_str().unwrap();
        assert!(map.contains("class Member"), "{map}");
    }
    assert!(edited.iter().any(|run| run["scan"]["parsed"] == 1));
    let next = at_once(1).remove(0);
    assert_eq!(next["scan"]["parsed"], 0, "{}", next["scan"]);
    assert!(next["map"].as_str().unwrap().contains("class Member"));
}

/// Issue 26: a `git worktree add` of a repository mapped here starts warm. Both checkouts
/// get one directory in the per-user cache by default, and the worktree's first run takes
/// every file's tags from the first checkout's pack: read and hashed, none parsed.
#[test]
fn a_worktree_shares_the_default_cache_and_starts_warm() {
    let main = repo();
    std::fs::create_dir_all(main.path().join(".git/worktrees/feature")).unwrap();
    std::fs::write(main.path().join(".git/config"), "[core]\n").unwrap();
    let admin = main.path().join(".git/worktrees/feature");
    std::fs::write(admin.join("commondir"), "../..\n").unwrap();
    let feature = repo();
    std::fs::write(
        feature.path().join(".git"),
        format!("gitdir: {}\n", admin.display()),
    )
    .unwrap();
    let scan = |dir: &Path| -> serde_json::Value {
        let out = stdout_of(cmd(dir).args([".", "--format", "json", "--no-history"]));
        serde_json::from_str::<serde_json::Value>(&out).unwrap()["scan"].clone()
    };
    let first = scan(main.path());
    assert!(first["parsed"].as_u64().unwrap() > 0, "{first}");
    let second = scan(feature.path());
    assert_eq!(second["parsed"], 0, "{second}");
    assert_eq!(second["hash_hits"], first["parsed"], "{second}");
    assert!(!feature.path().join(".repo-mapper").exists());
}

/// Issue 27: `repo-mapper show` prints a definition's whole source, by name or by a line
/// inside it; a cap cuts it at a line and says so; a name not there exits 2 with one line
/// naming what the file defines.
#[test]
fn show_prints_a_definition_by_name_or_line() {
    let r = repo();
    let by_name = stdout_of(cmd(r.path()).args(["show", "app/models/user.py#display_name"]));
    assert_eq!(
        by_name,
        "app/models/user.py:12-13 display_name\n    def display_name(self) -> str:\n        \
         return self.email.split(\"@\")[0]\n"
    );
    let by_line = stdout_of(cmd(r.path()).args(["show", "app/models/user.py:13"]));
    assert_eq!(
        by_line, by_name,
        "the innermost definition holding the line"
    );
    let json = stdout_of(cmd(r.path()).args([
        "show",
        "app/models/user.py#User",
        "--format",
        "json",
        "-t",
        "30",
    ]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let user = &json["definitions"][0];
    assert_eq!(
        (user["start_line"].as_u64(), user["end_line"].as_u64()),
        (Some(7), Some(16))
    );
    assert!(user["omitted_lines"].as_u64().unwrap() > 0, "{user}");
    assert!(
        user["source"]
            .as_str()
            .unwrap()
            .ends_with("(max_tokens reached)\n")
    );
    let missing = cmd(r.path())
        .args(["show", "app/models/user.py#nope"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8(missing.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("it defines User, display_name"), "{stderr}");
    let outside = cmd(r.path())
        .args(["show", "../etc/passwd#root"])
        .output()
        .unwrap();
    assert_eq!(outside.status.code(), Some(2));
    assert!(outside.stdout.is_empty());
}

/// Issue 27: `repo-mapper outline` lists what files import, by category, and what they
/// define, nested, with signatures, line ranges and visibility; a cap keeps the outermost
/// symbols and says how many more there are.
#[test]
fn outline_lists_imports_and_symbols_nested_with_signatures() {
    let r = repo();
    let text = stdout_of(cmd(r.path()).args(["outline", "app/models/user.py"]));
    assert_eq!(
        text,
        "app/models/user.py (python, 20 lines)\n  imports stdlib: dataclasses\n  class User:  \
         [7-16] public\n    field user_id: int  [8-8] public\n    field email: str  [9-9] \
         public\n    field active: bool = True  [10-10] public\n    def display_name(self) -> \
         str:  [12-13] public\n    def deactivate(self) -> None:  [15-16] public\n  def \
         normalize_email(email: str) -> str:  [19-20] public\n"
    );
    let capped = stdout_of(cmd(r.path()).args(["outline", "app/models/user.py", "-t", "40"]));
    assert!(
        capped.ends_with("more\n") && capped.contains("class User"),
        "{capped}"
    );
    let json = stdout_of(cmd(r.path()).args(["outline", "app/models/user.py", "--format", "json"]));
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let deactivate = &json["files"][0]["symbols"][5];
    assert_eq!(deactivate["parent"], "User");
    assert_eq!(deactivate["depth"], 1);
    assert_eq!(deactivate["visibility"], "public");
    let import = &json["files"][0]["imports"][0];
    assert_eq!(
        (&import["module"], &import["category"]),
        (&"dataclasses".into(), &"stdlib".into())
    );
    let missing = cmd(r.path()).args(["outline", "nope.py"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
}

/// Issue 26: a warm run through the root's pack (and sled's changes since) gives the map a
/// fresh `--no-cache` run gives, after every kind of change: an edit, a delete, a rename,
/// a same-size rewrite with its mtime put back, and a checkout that rewrites many files
/// at once (then the new pack is built without sled). Each change is mapped twice: once
/// while it is racy, once after.
#[test]
fn warm_runs_through_the_pack_equal_fresh_ones_after_every_kind_of_change() {
    let r = repo();
    let root = r.path();
    let module = |i: usize, v: &str| format!("def task_{i}_{v}(x):\n    return helper_{i}(x)\n");
    for i in 0..20 {
        std::fs::write(root.join(format!("app/task{i}.py")), module(i, "a")).unwrap();
    }
    let same = |what: &str| {
        for pass in ["racy", "settled"] {
            let warm = stdout_of(cmd(root).arg("."));
            let fresh = stdout_of(cmd(root).args([".", "--no-cache"]));
            assert_eq!(warm, fresh, "after {what} ({pass})");
            std::thread::sleep(std::time::Duration::from_millis(2100));
        }
    };
    same("the first run");
    let user = root.join("app/models/user.py");
    let text = std::fs::read_to_string(&user).unwrap();
    std::fs::write(&user, text.replace("def deactivate", "def retire")).unwrap();
    same("an edit");
    std::fs::remove_file(root.join("app/task3.py")).unwrap();
    same("a delete");
    std::fs::rename(root.join("app/task4.py"), root.join("app/renamed.py")).unwrap();
    same("a rename");
    let target = root.join("app/task5.py");
    let mtime = std::fs::metadata(&target).unwrap().modified().unwrap();
    std::fs::write(&target, module(5, "b")).unwrap(); // the same size
    std::fs::File::options()
        .write(true)
        .open(&target)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    same("a same-size rewrite with its mtime put back");
    // A copy that keeps times (`cp -p`, an archive): the new file's directory keeps its
    // mtime, so only its ctime tells the kept walk the directory changed.
    let app = root.join("app");
    let dir_mtime = std::fs::metadata(&app).unwrap().modified().unwrap();
    std::fs::write(app.join("copied.py"), module(21, "d")).unwrap();
    std::fs::File::open(&app)
        .unwrap()
        .set_modified(dir_mtime)
        .unwrap();
    same("a file copied in with its directory's mtime put back");
    for i in (0..20).filter(|i| ![3, 4].contains(i)) {
        std::fs::write(root.join(format!("app/task{i}.py")), module(i, "c")).unwrap();
    }
    same("a checkout of many files");
}

/// Issue 45 (behaviour.md §7.5.14): each entry of the JSON report says why its file is
/// there: the mentioned file by its personalization and its words, a file the message
/// names nothing of by its graph rank alone (no `why`); the `aider` profile gives none.
#[test]
fn json_entries_say_which_signals_placed_their_file() {
    let r = repo();
    let message = "Why does checkout.py charge twice in place_order?";
    let entries = |profile: &str| -> Vec<serde_json::Value> {
        let out = stdout_of(cmd(r.path()).args([
            ".",
            "--format",
            "json",
            "--profile",
            profile,
            "--message",
            message,
        ]));
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["entries"].as_array().unwrap().clone()
    };
    let default = entries("default");
    let checkout = default
        .iter()
        .find(|e| e["file"] == "app/services/checkout.py")
        .expect("checkout.py is ranked");
    let why = &checkout["why"];
    assert!(why["personalization"].as_f64().unwrap() > 0.0, "{why}");
    assert!(why["lexical"].as_f64().unwrap() > 0.0, "{why}");
    assert!(why["graph"].as_f64().is_some(), "{why}");
    assert!(
        default.iter().all(|e| e["why"].is_null()
            || e["why"].as_object().unwrap().keys().all(|k| [
                "caller",
                "clue",
                "co_change",
                "graph",
                "lexical",
                "personalization"
            ]
            .contains(&k.as_str()))),
        "{default:?}"
    );
    assert!(entries("aider").iter().all(|e| e.get("why").is_none()));
}
