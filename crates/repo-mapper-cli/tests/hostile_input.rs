//! Issue 12, as a user sees it: hostile repositories still give a map, nothing outside the
//! root reaches it, and each problem is one line on stderr.

use std::fs;
use std::path::Path;
use std::process::Output;

use assert_cmd::Command;

/// The per-user cache home of the binaries these tests run (behaviour.md §5.2.1): under
/// the target directory, never the developer's own.
const TEST_CACHE_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/xdg-cache");

const SECRET: &str = "def leaked_secret_function():\n    return 'token'\n";

/// `base/repo` with two good files, and `base/secret.py` outside the root.
fn repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    fs::create_dir_all(root.join("pkg")).unwrap();
    fs::write(
        root.join("pkg/models.py"),
        "class Order:\n    def total(self):\n        return 1\n",
    )
    .unwrap();
    fs::write(
        root.join("pkg/service.py"),
        "from pkg.models import Order\n\ndef checkout():\n    return Order().total()\n",
    )
    .unwrap();
    fs::write(dir.path().join("secret.py"), SECRET).unwrap();
    dir
}

fn run(root: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut c = Command::cargo_bin("repo-mapper").unwrap();
    c.current_dir(root)
        .env_remove("RUST_LOG")
        .env("XDG_CACHE_HOME", TEST_CACHE_HOME)
        .env_remove("REPO_MAPPER_CACHE_DIR")
        .arg(".")
        .args(args);
    if let Some(input) = stdin {
        c.write_stdin(input);
    }
    c.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn files_from_lines_outside_the_root_are_skipped_with_a_warning() {
    let dir = repo();
    let root = dir.path().join("repo");
    let outside = dir.path().join("secret.py");
    let list = format!(
        "pkg/models.py\npkg/service.py\n../secret.py\n{}\n/etc/passwd\n../../../etc/passwd\n",
        outside.display()
    );
    let out = run(&root, &["--files-from", "-"], Some(&list));
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("Order"), "{stdout}");
    for leaked in ["leaked_secret", "secret.py", "passwd", "root:"] {
        assert!(!stdout.contains(leaked), "{leaked} in the map:\n{stdout}");
    }
    assert_eq!(
        stderr.matches("outside the repository root").count(),
        4,
        "{stderr}"
    );
    assert!(stderr.lines().all(|l| l.contains("outside")), "{stderr}");
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_read_only_when_asked() {
    let dir = repo();
    let root = dir.path().join("repo");
    std::os::unix::fs::symlink(dir.path().join("secret.py"), root.join("link.py")).unwrap();
    for profile in ["default", "aider"] {
        let out = run(&root, &["--no-cache", "--profile", profile], None);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{stderr}");
        assert!(stdout.contains("Order"), "{stdout}");
        assert!(!stdout.contains("leaked_secret"), "{profile}: {stdout}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("link.py") && stderr.contains("symlink"),
            "{stderr}"
        );

        let args = [
            "--no-cache",
            "--profile",
            profile,
            "--follow-external-symlinks",
        ];
        let followed = run(&root, &args, None);
        assert!(
            text(&followed.stdout).contains("leaked_secret"),
            "{profile}"
        );
    }
}

#[test]
fn a_deeply_nested_file_does_not_stall_the_map() {
    let dir = repo();
    let root = dir.path().join("repo");
    let n = 100_000;
    let deep: String = (0..n)
        .map(|i| format!("function f{i}(){{"))
        .collect::<String>()
        + "x();"
        + &"}".repeat(n);
    fs::write(root.join("deep.js"), deep).unwrap();
    // 1.6 MB: parsed (no size limit), so that the depth or the time bound stops it.
    let args = [
        "--no-cache",
        "--time-per-file",
        "1",
        "--max-filesize",
        "none",
    ];
    let out = run(&root, &args, None);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        stdout.contains("Order") && stdout.contains("checkout"),
        "{stdout}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // Cut at the parse on a slow machine, by its depth on a fast one: either way, named.
    let said = stderr.contains("too long") || stderr.contains("levels deep");
    assert!(stderr.contains("deep.js") && said, "{stderr}");
}

/// Found by `cargo xtask fuzz`: Python's scanner overflowed tree-sitter's state buffer at
/// ~510 indentation levels with a string open, and tree-sitter aborted the process.
#[test]
fn a_python_file_indented_600_levels_does_not_kill_the_map() {
    let dir = repo();
    let root = dir.path().join("repo");
    let mut deep: String = (0..600)
        .map(|i| format!("{}def f{i}():\n", " ".repeat(i)))
        .collect();
    deep.push_str(&" ".repeat(600));
    deep.push_str("return f\"{x}\"\n");
    fs::write(root.join("deep.py"), deep).unwrap();
    let out = run(&root, &["--no-cache"], None);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("checkout"), "{stdout}");
}

#[test]
fn files_that_are_not_utf8_are_named_once_each_then_summed_up() {
    let dir = repo();
    let root = dir.path().join("repo");
    fs::write(root.join("latin1.py"), b"def f():\n    return '\xe9'\n").unwrap();
    let out = run(&root, &[], None);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("latin1.py is not valid UTF-8"), "{stderr}");
    // Warm: the stored entry still says so.
    let warm = text(&run(&root, &[], None).stderr);
    assert!(warm.contains("latin1.py is not valid UTF-8"), "{warm}");

    for i in 0..9 {
        fs::write(root.join(format!("bad{i}.py")), b"x = '\xff'\n").unwrap();
    }
    let many = text(&run(&root, &[], None).stderr);
    assert_eq!(many.lines().count(), 6, "{many}");
    assert!(many.contains("5 more files"), "{many}");
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_skipped_with_a_warning() {
    use std::os::unix::ffi::OsStrExt;
    let dir = repo();
    let root = dir.path().join("repo");
    let name = std::ffi::OsStr::from_bytes(b"bad\xff.py");
    fs::write(root.join(name), "def hidden_by_name(): pass\n").unwrap();
    let out = run(&root, &["--no-cache"], None);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(
        !stdout.contains("hidden_by_name") && !stdout.contains("bad"),
        "{stdout}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not valid UTF-8"), "{stderr}");
}

#[test]
fn a_cache_location_that_is_a_file_is_neither_mapped_nor_touched() {
    let dir = repo();
    let root = dir.path().join("repo");
    fs::write(root.join(".repo-mapper"), "def not_a_cache(): pass\n").unwrap();
    let out = run(&root, &["--cache-dir", ".repo-mapper"], None);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("Order"), "{stdout}");
    assert!(!stdout.contains(".repo-mapper"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(
        fs::read_to_string(root.join(".repo-mapper")).unwrap(),
        "def not_a_cache(): pass\n"
    );
}

/// The damage: 100,000 zero bytes at a third of the store's data file. Whatever
/// sled makes of it (refused at open, failed reads, or nothing), the run after the damage
/// gives the same map, and the run after that is silent.
#[test]
fn a_damaged_store_heals_after_one_run() {
    let dir = repo();
    let root = dir.path().join("repo");
    for i in 0..1500 {
        let text = format!(
            "def function_{i}_{:x}(a, b):\n    return helper_{i}(a) + b\n",
            i * 7919
        );
        fs::write(root.join(format!("pkg/m{i:04}.py")), text).unwrap();
    }
    let cache = ["--cache-dir", ".repo-mapper"];
    let first = run(&root, &cache, None);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let db = fs::read_dir(root.join(".repo-mapper"))
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("tags-v"))
        .unwrap()
        .path()
        .join("db");
    let mut bytes = fs::read(&db).unwrap();
    let at = bytes.len() / 3;
    let end = (at + 100_000).min(bytes.len());
    bytes[at..end].fill(0);
    fs::write(&db, bytes).unwrap();

    let damaged = run(&root, &cache, None);
    assert!(damaged.status.success(), "{}", text(&damaged.stderr));
    assert_eq!(damaged.stdout, first.stdout);
    assert!(
        text(&damaged.stderr).lines().count() <= 1,
        "{}",
        text(&damaged.stderr)
    );
    for _ in 0..2 {
        let healed = run(&root, &cache, None);
        assert_eq!(healed.stdout, first.stdout);
        assert_eq!(text(&healed.stderr), "");
    }
}
