//! A cache directory someone else could change is not used, and nothing in a cache is
//! followed out of it: the map is the `--no-cache` one, stderr says why in one line, and
//! the files a planted symlink points at are left as they were.
#![cfg(unix)]

mod common;

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/sample-repo")
}

/// A copy of the sample repository, and a directory beside it for caches and victims.
fn setup() -> (tempfile::TempDir, tempfile::TempDir) {
    let repo = tempfile::tempdir().unwrap();
    let status = Command::new("cp")
        .arg("-r")
        .arg(format!("{}/.", fixture().display()))
        .arg(repo.path())
        .status()
        .unwrap();
    assert!(status.success());
    (repo, tempfile::tempdir().unwrap())
}

fn run(repo: &Path, args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_repo-mapper"))
        .current_dir(repo)
        .arg(".")
        .args(args)
        .env_remove("RUST_LOG")
        .env_remove("REPO_MAPPER_CACHE_DIR")
        .env("XDG_CACHE_HOME", home)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The map without any cache.
fn uncached(repo: &Path, home: &Path) -> String {
    stdout(&run(repo, &["--no-cache"], home))
}

/// The run's stderr lines that say a cache directory is not used.
fn refusals(out: &Output) -> Vec<String> {
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.contains("is not used"))
        .map(str::to_owned)
        .collect()
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// The repository's directory in the per-user cache `home`, made by a first run.
fn shared_dir(repo: &Path, home: &Path) -> PathBuf {
    stdout(&run(repo, &[], home));
    let base = home.join("repo-mapper");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    dirs.pop().unwrap()
}

#[test]
fn a_cache_directory_others_can_write_is_not_used() {
    let (repo, side) = setup();
    let home = side.path().join("home");
    let cache = side.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    chmod(&cache, 0o777);
    let expected = uncached(repo.path(), &home);
    let out = run(
        repo.path(),
        &["--cache-dir", cache.to_str().unwrap()],
        &home,
    );
    assert_eq!(stdout(&out), expected);
    let refused = refusals(&out);
    assert_eq!(
        refused.len(),
        1,
        "{:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(refused[0].contains("written by other users"), "{refused:?}");
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        0,
        "nothing written"
    );
    // Made private again, it is used.
    chmod(&cache, 0o700);
    let out = run(
        repo.path(),
        &["--cache-dir", cache.to_str().unwrap()],
        &home,
    );
    assert_eq!(stdout(&out), expected);
    assert!(refusals(&out).is_empty());
    assert!(std::fs::read_dir(&cache).unwrap().count() > 0, "used");
}

#[test]
fn a_cache_home_others_can_write_is_not_used_unless_sticky() {
    let (repo, side) = setup();
    let home = side.path().join("home");
    std::fs::create_dir(&home).unwrap();
    chmod(&home, 0o777);
    let expected = uncached(repo.path(), &side.path().join("other"));
    let out = run(repo.path(), &[], &home);
    assert_eq!(stdout(&out), expected);
    assert_eq!(refusals(&out).len(), 1);
    assert!(!home.join("repo-mapper").exists(), "nothing written");
    chmod(&home, 0o1777); // as /tmp: others cannot move what is ours
    let out = run(repo.path(), &[], &home);
    assert_eq!(stdout(&out), expected);
    assert!(refusals(&out).is_empty(), "{:?}", refusals(&out));
    assert!(home.join("repo-mapper").exists());
}

/// What another user could have left in a cache directory once writable by everyone:
/// its mark of use, its scope and walk directories and its tag store replaced by
/// symlinks into someone else's files.
#[test]
fn symlinks_in_a_cache_directory_are_never_followed() {
    let (repo, side) = setup();
    let home = side.path().join("home");
    let dir = shared_dir(repo.path(), &home);
    let expected = uncached(repo.path(), &home);
    let victim = side.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("precious"), "keep me").unwrap();
    let store = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("tags-v")
        })
        .expect("a tag store");
    let planted: [(&str, PathBuf); 4] = [
        (".used", victim.join("precious")),
        ("scopes", victim.clone()),
        ("walks", victim.clone()),
        (store.file_name().unwrap().to_str().unwrap(), victim.clone()),
    ];
    for (name, target) in &planted {
        let at = dir.join(name);
        if at.is_dir() {
            std::fs::remove_dir_all(&at).unwrap();
        } else {
            let _ = std::fs::remove_file(&at);
        }
        symlink(target, &at).unwrap();
        let out = run(repo.path(), &[], &home);
        assert_eq!(stdout(&out), expected, "{name}");
        assert_eq!(
            refusals(&out).len(),
            1,
            "{name}: {:?}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(refusals(&out)[0].contains("symlink"), "{name}");
        assert_eq!(
            std::fs::read_to_string(victim.join("precious")).unwrap(),
            "keep me"
        );
        let left: Vec<_> = std::fs::read_dir(&victim).unwrap().collect();
        assert_eq!(
            left.len(),
            1,
            "{name}: nothing written into the victim's directory"
        );
    }
}

/// Root, or anyone who may give files away, can make a cache directory another user's.
#[test]
#[allow(clippy::print_stderr)] // says why it did not run
fn a_cache_directory_another_user_owns_is_not_used() {
    let (repo, side) = setup();
    let home = side.path().join("home");
    let cache = side.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    chmod(&cache, 0o755);
    let other = 4242;
    if std::os::unix::fs::chown(&cache, Some(other), Some(other)).is_err() {
        eprintln!("skipped: this user cannot give a directory to uid {other}");
        return;
    }
    let expected = uncached(repo.path(), &home);
    let out = run(
        repo.path(),
        &["--cache-dir", cache.to_str().unwrap()],
        &home,
    );
    assert_eq!(stdout(&out), expected);
    let refused = refusals(&out);
    assert_eq!(refused.len(), 1);
    assert!(refused[0].contains("owned by another user"), "{refused:?}");
    assert_eq!(
        std::fs::read_dir(&cache).unwrap().count(),
        0,
        "nothing written"
    );
}

/// The server too: a map, and nothing written into a cache home others can write.
#[tokio::test(flavor = "multi_thread")]
async fn the_server_does_not_use_a_cache_home_others_can_write() {
    let (repo, side) = setup();
    std::fs::create_dir(repo.path().join(".git")).unwrap();
    let home = side.path().join("home");
    std::fs::create_dir(&home).unwrap();
    chmod(&home, 0o777);
    let client = common::mcp_client(&home, &[]).await;
    let args =
        serde_json::json!({"project_root": repo.path().to_str().unwrap(), "token_limit": 1024});
    let answer = common::json_of(&common::call(&client, "repo_map", args).await);
    assert!(
        answer["map"]
            .as_str()
            .unwrap()
            .contains("app/models/user.py")
    );
    client.cancel().await.unwrap();
    assert!(!home.join("repo-mapper").exists(), "nothing written");
}

/// The blob files of the scope cache replaced by symlinks to copies of themselves (whole,
/// checksum and all) elsewhere: the directories they lie in are not listed (they hold
/// thousands of files), so they are opened without following links: the copies are
/// neither read as scopes nor touched (a hit renews a blob's time), and the map is the
/// same.
#[test]
fn scope_files_replaced_by_symlinks_are_not_followed() {
    let (repo, side) = setup();
    let home = side.path().join("home");
    let dir = shared_dir(repo.path(), &home);
    let expected = uncached(repo.path(), &home);
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1 << 30);
    let mut victims = Vec::new();
    for shard in std::fs::read_dir(dir.join("scopes")).unwrap() {
        for blob in std::fs::read_dir(shard.unwrap().path()).unwrap() {
            let blob = blob.unwrap().path();
            let victim = side.path().join(format!("victim-{}", victims.len()));
            std::fs::rename(&blob, &victim).unwrap();
            let file = std::fs::File::options().write(true).open(&victim).unwrap();
            file.set_modified(old).unwrap();
            symlink(&victim, &blob).unwrap();
            victims.push((victim.clone(), std::fs::read(&victim).unwrap()));
        }
    }
    assert!(!victims.is_empty(), "the first run kept scopes");
    for _ in 0..2 {
        let out = run(repo.path(), &[], &home);
        assert_eq!(stdout(&out), expected);
    }
    for (victim, bytes) in victims {
        assert_eq!(std::fs::read(&victim).unwrap(), bytes);
        let modified = std::fs::metadata(&victim).unwrap().modified().unwrap();
        assert_eq!(
            modified,
            old,
            "{}: the link's target was touched",
            victim.display()
        );
    }
}
