//! Issue 12: an entry stored while its file was "racy" (mtime within the timestamp tick of
//! the scan) stays suspect until a scan proves it clean, so a same-size edit within the same
//! second is never served stale tags, however late the next run comes.

use crate::common::set_mtime;

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use repo_mapper_store::{MemoryStore, ScanOptions, ScanOutput, TagStore, scan};

/// The current time cut to a whole second, as a filesystem with 1-second timestamps keeps it.
fn this_second() -> SystemTime {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    UNIX_EPOCH + Duration::from_secs(secs)
}

fn run(store: &dyn TagStore, files: &[(PathBuf, String)]) -> ScanOutput {
    scan(store, files, &ScanOptions::default(), &|_| {})
}

fn defs(out: &ScanOutput) -> Vec<String> {
    out.tags[0]
        .defs
        .iter()
        .map(|t| format!("{}:{}", t.line, t.name))
        .collect()
}

#[test]
fn a_same_size_edit_in_the_same_second_is_never_served_stale() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.py");
    let files = vec![(path.clone(), "a.py".to_owned())];
    let store = MemoryStore::new();

    let second = this_second();
    fs::write(&path, "def aaa(): pass\n").unwrap();
    set_mtime(&path, second);
    assert_eq!(defs(&run(&store, &files)), ["1:aaa"]);

    // Different bytes, same size, same (1-second) mtime.
    fs::write(&path, "\ndef bbb(): pas\n").unwrap();
    set_mtime(&path, second);
    // Later runs no longer see the file as racy themselves; the entry must stay suspect.
    std::thread::sleep(Duration::from_millis(2500));
    let later = run(&store, &files);
    assert_eq!(defs(&later), ["2:bbb"]);
    assert_eq!(later.stats.misses, 1);

    // Proven clean now: the next run trusts (mtime, size) without reading.
    let again = run(&store, &files);
    assert_eq!(defs(&again), ["2:bbb"]);
    assert_eq!((again.stats.hits, again.stats.misses), (1, 0));
}
