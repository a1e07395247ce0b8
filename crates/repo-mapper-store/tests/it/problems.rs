//! Issue 12: files whose tags are missing or incomplete are reported by the scan, fresh
//! or cached, so the map can say so (unreadable, not UTF-8, cut short).

use crate::common::set_mtime;

use std::fs;
use std::time::{Duration, SystemTime};

use repo_mapper_store::{MemoryStore, Problem, ScanOptions, TagStore, scan};
use repo_mapper_tags::{CutShort, Limits};

fn run(
    store: &dyn TagStore,
    files: &[(std::path::PathBuf, String)],
) -> repo_mapper_store::ScanOutput {
    scan(store, files, &ScanOptions::default(), &|_| {})
}

#[test]
fn files_that_cannot_be_read_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let files = vec![(dir.path().join("gone.py"), "gone.py".to_owned())];
    let out = run(&MemoryStore::new(), &files);
    assert_eq!(out.stats.errors, 1);
    assert!(
        matches!(&out.problems[..], [(0, Problem::Unreadable(_))]),
        "{:?}",
        out.problems
    );
}

#[test]
fn a_cut_short_file_is_reported_on_every_run() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.py");
    fs::write(&path, "def f(): pass\n").unwrap();
    set_mtime(&path, SystemTime::now() - Duration::from_secs(60));
    let files = vec![(path, "a.py".to_owned())];
    let store = MemoryStore::new();
    let opts = ScanOptions {
        limits: Limits::new(Duration::ZERO),
        ..ScanOptions::default()
    };
    for _ in 0..2 {
        let out = scan(&store, &files, &opts, &|_| {});
        assert_eq!(out.problems, [(0, Problem::CutShort(CutShort::Parse))]);
    }
}

#[test]
fn files_that_are_not_utf8_are_reported_cached_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.py");
    fs::write(&path, b"def f(): pass\n\xff\n").unwrap();
    set_mtime(&path, SystemTime::now() - Duration::from_secs(60));
    let files = vec![(path, "a.py".to_owned())];
    let store = MemoryStore::new();
    for _ in 0..2 {
        let out = run(&store, &files);
        assert_eq!(out.problems, [(0, Problem::NotUtf8)]);
    }
}
