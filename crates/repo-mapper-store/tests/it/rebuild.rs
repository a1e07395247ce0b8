//! Issue 12: a store found damaged during a scan is reset and refilled with that scan's
//! tags, once; the next scan is served entirely from it. (Damage detection on a real sled
//! file is tested in `hostile.rs`; here a store that reports damage on demand checks the
//! scan's side of the contract deterministically.)

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

use repo_mapper_store::{MemoryStore, NewWords, ScanOptions, TagStore, scan};
use repo_mapper_tags::Terms;

/// A memory store whose reads fail as a damaged one's do until it is reset.
struct Damaged {
    inner: MemoryStore,
    damaged: AtomicBool,
}

impl TagStore for Damaged {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        if self.damaged.load(Ordering::Relaxed) {
            return None;
        }
        self.inner.get(key)
    }
    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        self.inner.put_batch(entries)
    }
    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()> {
        self.inner.remove_batch(keys)
    }
    fn keys(&self) -> Vec<Vec<u8>> {
        self.inner.keys()
    }
    fn flush(&self) -> io::Result<()> {
        self.inner.flush()
    }
    fn describe(&self) -> String {
        "damaged-on-demand".into()
    }
    fn words(&self, hash: &[u8; 32]) -> Option<Terms> {
        self.inner.words(hash)
    }
    fn keep_words(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> io::Result<()> {
        self.inner.keep_words(used, new, whole)
    }
    fn is_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }
    fn reset(&self) -> io::Result<()> {
        self.damaged.store(false, Ordering::Relaxed);
        self.inner.reset()
    }
}

#[test]
fn a_damaged_store_is_rebuilt_once_from_the_scan() {
    let dir = tempfile::tempdir().unwrap();
    let files: Vec<(PathBuf, String)> = (0..50)
        .map(|i| {
            let rel = format!("m{i}.py");
            let path = dir.path().join(&rel);
            std::fs::write(&path, format!("def f{i}():\n    g{i}()\n")).unwrap();
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(SystemTime::now() - Duration::from_secs(60))
                .unwrap();
            (path, rel)
        })
        .collect();
    let store = Damaged {
        inner: MemoryStore::new(),
        damaged: AtomicBool::new(false),
    };
    let opts = ScanOptions::default();
    let first = scan(&store, &files, &opts, &|_| {});
    assert_eq!(first.stats.misses, 50);

    store.damaged.store(true, Ordering::Relaxed);
    let damaged = scan(&store, &files, &opts, &|_| {});
    assert!(damaged.stats.rebuilt);
    assert_eq!(damaged.tags, first.tags);
    assert!(!store.is_damaged());

    let after = scan(&store, &files, &opts, &|_| {});
    assert!(!after.stats.rebuilt);
    assert_eq!((after.stats.hits, after.stats.misses), (50, 0));
    assert_eq!(after.tags, first.tags);
}
