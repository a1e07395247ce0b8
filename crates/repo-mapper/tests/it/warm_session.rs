//! A warm session (`Config::warm_session`, the MCP server's) keeps tags in memory: an
//! unchanged file is served without the store, a changed one is read again, and every map
//! equals the one a fresh session makes.

use std::path::Path;
use std::time::{Duration, SystemTime};

use repo_mapper::{CacheLocation, Config, MapRequest, RepoMap, list_files};

fn write_old(path: &Path, text: &str, age: Duration) {
    std::fs::write(path, text).unwrap();
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - age).unwrap();
}

/// Waits until files written so far have left the racy window (their change time, which
/// no one can back-date, is older than it).
fn settle() {
    std::thread::sleep(repo_mapper_tags::RACY_WINDOW + Duration::from_millis(50));
}

fn session(root: &Path, warm: bool) -> RepoMap {
    let mut config = Config::new(root);
    config.cache = CacheLocation::Memory;
    config.warm_session = warm;
    RepoMap::new(config)
}

fn map_of(session: &mut RepoMap, root: &Path, chat: &str) -> repo_mapper::MapOutput {
    let request = MapRequest::new(list_files(root, None))
        .with_chat_files(vec![root.join(chat)])
        .with_force_refresh(true);
    session.map(&request).expect("a map")
}

#[test]
fn unchanged_files_come_from_memory_and_changed_ones_are_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let hour = Duration::from_secs(3600);
    write_old(&root.join("shop.py"), "class Order:\n    pass\n", hour);
    write_old(
        &root.join("app.py"),
        "from shop import Order\nOrder()\n",
        hour,
    );
    write_old(
        &root.join("cli.py"),
        "from shop import Order\nOrder()\n",
        hour,
    );
    settle();
    let mut warm = session(root, true);

    let first = map_of(&mut warm, root, "app.py");
    assert_eq!(first.report.scan.misses, 3);
    let second = map_of(&mut warm, root, "cli.py");
    assert_eq!((second.report.scan.hits, second.report.scan.misses), (3, 0));
    assert_eq!(
        second.text,
        map_of(&mut session(root, false), root, "cli.py").text
    );

    // Same size, older mtime than the read but a new one: read again, not served.
    write_old(
        &root.join("shop.py"),
        "class Offer:\n    pass\n",
        hour - Duration::from_secs(5),
    );
    settle();
    let third = map_of(&mut warm, root, "app.py");
    assert_eq!((third.report.scan.hits, third.report.scan.misses), (2, 1));
    assert!(third.text.contains("class Offer:"), "{}", third.text);
    assert_eq!(
        third.text,
        map_of(&mut session(root, false), root, "app.py").text
    );
}

#[test]
fn files_changed_within_the_racy_window_are_never_trusted_from_memory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("shop.py"), "class Order:\n    pass\n").unwrap();
    std::fs::write(root.join("app.py"), "from shop import Order\nOrder()\n").unwrap();
    let mut warm = session(root, true);
    map_of(&mut warm, root, "app.py");
    // Rewritten at once, same size: the stat may not tell, so memory is not trusted.
    std::fs::write(root.join("shop.py"), "class Offer:\n    pass\n").unwrap();
    let again = map_of(&mut warm, root, "app.py");
    assert_eq!(again.report.scan.hits, 0);
    assert!(again.text.contains("class Offer:"), "{}", again.text);
}

/// The map of `files` with `chat` in the chat, and how many files were checked for it.
fn map_listed(session: &mut RepoMap, files: &[std::path::PathBuf], chat: &Path) -> (String, usize) {
    let request = MapRequest::new(files.to_vec())
        .with_chat_files(vec![chat.to_path_buf()])
        .with_force_refresh(true);
    let out = session.map(&request).expect("a map");
    (out.text, out.report.checked)
}

#[cfg(target_os = "linux")]
#[test]
fn a_watched_session_checks_only_the_files_that_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let hour = Duration::from_secs(3600);
    std::fs::create_dir(root.join("a")).unwrap();
    write_old(&root.join("shop.py"), "class Order:\n    pass\n", hour);
    let users = "from shop import Order\nOrder()\n";
    write_old(&root.join("app.py"), users, hour);
    write_old(&root.join("a/cli.py"), users, hour);
    let files = list_files(&root, None);
    let (app, cli) = (root.join("app.py"), root.join("a/cli.py"));
    let mut warm = session(&root, true);
    let fresh = |chat: &Path| map_listed(&mut session(&root, false), &files, chat).0;

    assert_eq!(
        map_listed(&mut warm, &files, &app).1,
        3,
        "first: every file"
    );
    let (text, checked) = map_listed(&mut warm, &files, &cli);
    assert_eq!((text, checked), (fresh(&cli), 0), "nothing changed");

    write_old(&root.join("shop.py"), "class Offer:\n    pass\n", hour);
    std::fs::write(root.join("a/notes.txt"), "not listed").unwrap();
    let (text, checked) = map_listed(&mut warm, &files, &app);
    assert!(text.contains("class Offer:"), "{text}");
    assert_eq!((text, checked), (fresh(&app), 1), "one file changed");

    std::fs::rename(root.join("a"), root.join("b")).unwrap();
    let (text, checked) = map_listed(&mut warm, &files, &app);
    assert_eq!(
        (text, checked),
        (fresh(&app), 3),
        "a directory moved: every file"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_watched_session_checks_symlinks_on_every_map() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let hour = Duration::from_secs(3600);
    std::fs::create_dir_all(root.join("real")).unwrap();
    write_old(&root.join("real/shop.py"), "class Order:\n    pass\n", hour);
    std::os::unix::fs::symlink(root.join("real/shop.py"), root.join("alias.py")).unwrap();
    write_old(
        &root.join("app.py"),
        "from alias import Order\nOrder()\n",
        hour,
    );
    // The target's directory is not watched: only the link's name is listed.
    let files = vec![root.join("alias.py"), root.join("app.py")];
    let app = root.join("app.py");
    let mut warm = session(&root, true);
    let fresh =
        |files: &[std::path::PathBuf]| map_listed(&mut session(&root, false), files, &app).0;

    assert_eq!(map_listed(&mut warm, &files, &app).1, 2);
    assert_eq!(
        map_listed(&mut warm, &files, &app),
        (fresh(&files), 1),
        "the link"
    );
    write_old(&root.join("real/shop.py"), "class Offer:\n    pass\n", hour);
    let (text, checked) = map_listed(&mut warm, &files, &app);
    assert!(text.contains("class Offer:"), "{text}");
    assert_eq!((text, checked), (fresh(&files), 1));
}

/// Issue 23: `cp -p`, `rsync -a`, `tar x`, `touch -r` rewrite a file and put its mtime
/// back. The map must show the new text, at the same size or another, even where every
/// cache (kept tags, the renderer's parsed files) had settled on the old one.
#[test]
fn a_rewrite_with_its_mtime_put_back_is_seen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let hour = Duration::from_secs(3600);
    write_old(&root.join("shop.py"), "class Order:\n    pass\n", hour);
    write_old(
        &root.join("app.py"),
        "from shop import Order\nOrder()\n",
        hour,
    );
    settle();
    let mut warm = session(root, true);
    assert!(
        map_of(&mut warm, root, "app.py")
            .text
            .contains("class Order:")
    );
    let mtime = std::fs::metadata(root.join("shop.py"))
        .unwrap()
        .modified()
        .unwrap();
    let put_back = |text: &str| {
        std::fs::write(root.join("shop.py"), text).unwrap();
        let file = std::fs::File::options()
            .write(true)
            .open(root.join("shop.py"));
        file.unwrap().set_modified(mtime).unwrap();
        settle();
    };
    put_back("class Offer:\n    pass\n"); // same size
    let same_size = map_of(&mut warm, root, "app.py").text;
    assert!(same_size.contains("class Offer:"), "{same_size}");
    put_back("class Discount:\n    pass\n"); // another size
    let other_size = map_of(&mut warm, root, "app.py").text;
    assert!(other_size.contains("class Discount:"), "{other_size}");
    assert_eq!(
        other_size,
        map_of(&mut session(root, false), root, "app.py").text
    );
}

/// Issue 26: the MCP server's session ranks only the head of the list (no full report);
/// through an edit, a delete, a rename and a copy that puts the mtime back, each of its
/// maps equals a fresh, storeless session's made from the whole list.
#[test]
fn a_map_from_the_lists_head_stays_fresh_through_every_kind_of_change() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let hour = Duration::from_secs(3600);
    let module = |i: usize, extra: &str| -> String {
        let defs: String = (0..20)
            .map(|j| format!("def f{i}_{j}():\n    return g{}_{}()\n\n", (i + 1) % 40, j))
            .collect();
        format!("{defs}{extra}")
    };
    for i in 0..40 {
        write_old(&root.join(format!("m{i}.py")), &module(i, ""), hour);
    }
    settle();
    let mut warm = {
        let mut config = Config::new(root);
        config.cache = CacheLocation::Memory;
        config.warm_session = true;
        config.full_report = false;
        config.map_tokens = 256;
        RepoMap::new(config)
    };
    let fresh = |chat: &str| {
        let mut config = Config::new(root);
        config.cache = CacheLocation::Memory;
        config.map_tokens = 256;
        map_of(&mut RepoMap::new(config), root, chat).text
    };
    let check = |warm: &mut RepoMap, what: &str| {
        let text = map_of(warm, root, "m0.py").text;
        assert!(!text.is_empty(), "{what}");
        assert_eq!(text, fresh("m0.py"), "{what}");
    };
    check(&mut warm, "first");
    write_old(
        &root.join("m5.py"),
        &module(5, "def new_one():\n    f1_1()\n"),
        hour,
    );
    settle();
    check(&mut warm, "after an edit");
    std::fs::remove_file(root.join("m7.py")).unwrap();
    check(&mut warm, "after a delete");
    std::fs::rename(root.join("m9.py"), root.join("renamed.py")).unwrap();
    check(&mut warm, "after a rename");
    // Same mtime as before, other bytes (as `cp -p` leaves it).
    let old = std::fs::metadata(root.join("m3.py"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::write(root.join("m3.py"), module(3, "def copied():\n    f2_2()\n")).unwrap();
    let file = std::fs::File::options()
        .write(true)
        .open(root.join("m3.py"))
        .unwrap();
    file.set_modified(old).unwrap();
    settle();
    check(&mut warm, "after a copy that put the mtime back");
}
