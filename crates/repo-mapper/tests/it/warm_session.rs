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
