//! The repository's history in the default profile: files that changed with the chat
//! files rank higher, only the checked-out commit's history is read, and a map made with
//! one history is not served for another.

use std::path::Path;
use std::process::Command;

use repo_mapper::{
    CacheLocation, Config, History, MapRequest, Profile, Refresh, RepoMap, list_files,
};

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
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
        .expect("git runs")
        .status
        .success();
    assert!(ok, "git {args:?}");
}

/// `app.py` uses `fd` least of four helpers; `d.py` changed with it in every commit.
fn repo() -> tempfile::TempDir {
    repo_with(&["init", "-q"])
}

/// [`repo`], the repository made by `git init_args`.
fn repo_with(init_args: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, init_args);
    for name in ["a", "b", "c", "d"] {
        let text = format!("def f{name}():\n    return 1\n");
        std::fs::write(root.join(format!("{name}.py")), text).unwrap();
    }
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "helpers"]);
    let app = "from a import fa\nfrom b import fb\nfrom c import fc\nfrom d import fd\n\
               fa(); fa(); fb(); fb(); fc(); fc(); fd()\n";
    std::fs::write(root.join("app.py"), app).unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "app"]);
    for round in 0..3 {
        for f in ["app.py", "d.py"] {
            let mut text = std::fs::read_to_string(root.join(f)).unwrap();
            text.push_str(&format!("# change {round}\n"));
            std::fs::write(root.join(f), text).unwrap();
        }
        git(root, &["commit", "-q", "-a", "-m", "together"]);
    }
    dir
}

fn first_file(session: &mut RepoMap, root: &Path) -> String {
    let files = list_files(root, None);
    let request = MapRequest::new(files).with_chat_files(vec![root.join("app.py")]);
    let map = session.map(&request).expect("a map");
    map.report.entries[0].file.clone()
}

fn session(root: &Path, history: bool) -> RepoMap {
    let mut config = Config::new(root).with_profile(Profile::Default);
    config.cache = CacheLocation::Memory;
    config.history = history;
    RepoMap::new(config)
}

#[test]
fn a_file_that_changed_with_the_chat_file_comes_first() {
    let dir = repo();
    let root = dir.path();
    assert_ne!(first_file(&mut session(root, false), root), "d.py");
    assert_eq!(first_file(&mut session(root, true), root), "d.py");
    // The spec profile reads no history.
    let mut spec = session(root, true);
    let mut config = spec.config().clone().with_profile(Profile::Spec);
    config.history = true;
    spec = RepoMap::new(config);
    assert_ne!(first_file(&mut spec, root), "d.py");
}

#[test]
fn a_new_head_changes_the_history_and_so_the_map() {
    let dir = repo();
    let root = dir.path();
    // `files`: a map of the same request is reused whatever changed on disk, but not one
    // made from another history.
    let mut warm = session(root, true);
    let mut config = warm.config().clone();
    config.refresh = Refresh::Files;
    warm = RepoMap::new(config);
    assert_eq!(first_file(&mut warm, root), "d.py");
    // Back before the commits that changed both, the files as they are.
    git(root, &["reset", "-q", "--soft", "HEAD~3"]);
    let fresh = first_file(&mut session(root, true), root);
    assert_ne!(fresh, "d.py");
    assert_eq!(first_file(&mut warm, root), fresh);
}

#[test]
fn only_the_history_up_to_the_checked_out_commit_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    git(root, &["init", "-q"]);
    for (files, message) in [
        (&["a.py", "b.py"][..], "one"),
        (&["a.py", "c.py"][..], "two"),
    ] {
        for f in files {
            std::fs::write(root.join(f), format!("{message}\n")).unwrap();
        }
        git(root, &["add", "."]);
        git(root, &["commit", "-q", "-m", message]);
    }
    let latest = History::read_git(root).expect("a history");
    assert_eq!(latest.co_change(&["a.py"], &["b.py", "c.py"]), [0.5, 0.5]);
    git(root, &["checkout", "-q", "HEAD~1"]);
    let older = History::read_git(root).expect("a history");
    assert_ne!(older.id(), latest.id());
    // The later commit, which changed `c.py`, is not read.
    assert_eq!(older.co_change(&["a.py"], &["b.py", "c.py"]), [0.5, 0.0]);
    assert_eq!(History::read_git(&root.join("no-such-dir")), None);
}

/// A repository whose refs live in a reftable (`HEAD` names `refs/heads/.invalid`, no
/// ref is a file): a long-lived session still sees a reset once everything settled.
#[test]
fn a_session_sees_head_move_in_a_reftable_repository() {
    let dir = repo_with(&["init", "-q", "--ref-format=reftable"]);
    let root = dir.path();
    let mut config = session(root, true).config().clone();
    config.refresh = Refresh::Files;
    let mut warm = RepoMap::new(config);
    assert_eq!(first_file(&mut warm, root), "d.py");
    std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
    assert_eq!(first_file(&mut warm, root), "d.py");
    git(root, &["reset", "-q", "--soft", "HEAD~3"]);
    std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
    let fresh = first_file(&mut session(root, true), root);
    assert_ne!(fresh, "d.py");
    assert_eq!(first_file(&mut warm, root), fresh);
}

/// Issue 26: a long-lived session knows that `HEAD` moved from the stamps of the files git
/// resolves it from (`HEAD`, the branch's ref, `packed-refs`), not by running git for
/// every map; a reset, refs packed, a detached checkout and a worktree's own `HEAD` all
/// show.
#[test]
fn a_session_sees_head_move_once_its_files_have_settled() {
    let dir = repo();
    let main = dir.path();
    let outside = tempfile::tempdir().unwrap();
    let worktree = outside.path().join("wt");
    git(main, &["worktree", "add", "-q", worktree.to_str().unwrap()]);
    let settle =
        || std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
    for root in [main, worktree.as_path()] {
        let mut config = session(root, true).config().clone();
        config.refresh = Refresh::Files;
        let mut warm = RepoMap::new(config);
        assert_eq!(first_file(&mut warm, root), "d.py");
        settle();
        // Read again now that the files have settled: from here the stamps are trusted.
        assert_eq!(first_file(&mut warm, root), "d.py");
        git(root, &["pack-refs", "--all"]);
        settle();
        assert_eq!(first_file(&mut warm, root), "d.py");
        git(root, &["reset", "-q", "--soft", "HEAD~3"]);
        settle();
        let fresh = first_file(&mut session(root, true), root);
        assert_ne!(fresh, "d.py");
        assert_eq!(first_file(&mut warm, root), fresh, "{}", root.display());
        // A checkout of the commit before the reset, detached: `HEAD` names it directly.
        git(root, &["checkout", "-q", "--detach", "HEAD@{1}"]);
        settle();
        assert_eq!(first_file(&mut warm, root), "d.py", "{}", root.display());
    }
}
