//! The store's promises, each against the real sled store on a real directory.

use crate::common::set_mtime;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use repo_mapper_store::{
    CacheLocation, MemoryStore, NewWords, OpenOptions, ScanOptions, ScanOutput, ScanProgress,
    StoreFallback, TagStore, open_store, scan, store_dir_name,
};
use repo_mapper_tags::{CountedTags, Dialect, Terms};

struct Repo {
    dir: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        Repo {
            dir: tempfile::tempdir().unwrap(),
        }
    }
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn cache(&self) -> CacheLocation {
        CacheLocation::Dir(self.root().join(".repo-mapper"))
    }
    fn write(&self, rel: &str, text: &str) -> PathBuf {
        let p = self.root().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, text).unwrap();
        // Age the mtime past the racy window (the ctime stays recent for two seconds).
        set_mtime(&p, SystemTime::now() - Duration::from_secs(60));
        p
    }
    fn files(&self, rels: &[&str]) -> Vec<(PathBuf, String)> {
        rels.iter()
            .map(|r| (self.root().join(r), (*r).to_owned()))
            .collect()
    }
}

fn run(store: &dyn TagStore, files: &[(PathBuf, String)]) -> ScanOutput {
    scan(store, files, &ScanOptions::default(), &|_| {})
}

fn names(tags: &[CountedTags]) -> Vec<Vec<String>> {
    tags.iter()
        .map(|t| {
            let defs = t.defs.iter().map(|t| format!("{}:{}", t.line, t.name));
            let refs = t.refs.iter().map(|(name, n)| format!("{name}×{n}"));
            defs.chain(refs).collect()
        })
        .collect()
}

fn opts() -> OpenOptions {
    OpenOptions::waiting(Duration::from_millis(100), Duration::from_secs(5))
}

const A: &str = "def alpha():\n    beta()\n";
const B: &str = "class Beta:\n    def run(self):\n        alpha()\n";

#[test]
fn warm_scan_reads_everything_from_the_store() {
    let repo = Repo::new();
    repo.write("a.py", A);
    repo.write("pkg/b.py", B);
    repo.write("README.md", "# not code\n");
    let files = repo.files(&["a.py", "pkg/b.py", "README.md"]);

    let cold = {
        let s = open_store(&repo.cache(), &opts());
        assert!(s.fallback.is_none());
        run(&*s.store, &files)
    };
    assert_eq!(
        (cold.stats.misses, cold.stats.hits, cold.stats.skipped),
        (2, 0, 1)
    );

    let s = open_store(&repo.cache(), &opts());
    let warm = run(&*s.store, &files);
    assert_eq!(
        (warm.stats.misses, warm.stats.hits, warm.stats.skipped),
        (0, 2, 1)
    );
    assert_eq!(
        warm.tags, cold.tags,
        "stored tags equal fresh ones, paths included"
    );
    assert_eq!(names(&warm.tags)[0], ["1:alpha", "beta×1"]);
}

#[test]
fn touched_but_unchanged_file_is_not_reparsed() {
    let repo = Repo::new();
    let a = repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    let s = open_store(&repo.cache(), &opts());
    run(&*s.store, &files);
    set_mtime(&a, SystemTime::now() - Duration::from_secs(30));
    let out = run(&*s.store, &files);
    assert_eq!((out.stats.hash_hits, out.stats.misses), (1, 0));
    // The new mtime was written back: next time it is a plain hit.
    let out = run(&*s.store, &files);
    assert_eq!((out.stats.hits, out.stats.hash_hits), (1, 0));
}

#[test]
fn changed_file_is_reparsed() {
    let repo = Repo::new();
    let a = repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    let s = open_store(&repo.cache(), &opts());
    run(&*s.store, &files);
    fs::write(&a, "def gamma():\n    delta()\n").unwrap();
    set_mtime(&a, SystemTime::now() - Duration::from_secs(30));
    let out = run(&*s.store, &files);
    assert_eq!(out.stats.misses, 1);
    assert_eq!(names(&out.tags)[0], ["1:gamma", "delta×1"]);
}

#[test]
fn same_size_same_mtime_edit_is_caught_while_racy() {
    // An edit within the same mtime tick keeps (mtime, size): only the hash can tell.
    let repo = Repo::new();
    let a = repo.root().join("a.py");
    fs::write(&a, "def aaaa(): f()\n").unwrap();
    let t = SystemTime::now();
    set_mtime(&a, t);
    let files = repo.files(&["a.py"]);
    let s = open_store(&repo.cache(), &opts());
    run(&*s.store, &files);
    fs::write(&a, "def bbbb(): f()\n").unwrap();
    set_mtime(&a, t);
    let out = run(&*s.store, &files);
    assert_eq!(names(&out.tags)[0], ["1:bbbb", "f×1"]);
}

/// `cp -p`, `rsync -a`, `tar x`, `touch -r`: a rewrite that puts the old mtime back, at
/// the same size. The change time (which no user can set) tells (issue 23).
#[test]
fn a_rewrite_with_its_mtime_put_back_is_reparsed() {
    let repo = Repo::new();
    let a = repo.write("a.py", "def aaaa(): f()\n");
    let old = fs::metadata(&a).unwrap().modified().unwrap();
    let files = repo.files(&["a.py"]);
    let s = open_store(&repo.cache(), &opts());
    run(&*s.store, &files);
    fs::write(&a, "def bbbb(): f()\n").unwrap();
    set_mtime(&a, old);
    let out = run(&*s.store, &files);
    assert_eq!(names(&out.tags)[0], ["1:bbbb", "f×1"]);
}

#[test]
fn dialects_are_stored_apart() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    let s = open_store(&repo.cache(), &opts());
    let with = |dialect| ScanOptions {
        dialect,
        ..ScanOptions::default()
    };
    let d = scan(&*s.store, &files, &with(Dialect::Default), &|_| {});
    let a = scan(&*s.store, &files, &with(Dialect::Aider), &|_| {});
    assert_eq!(
        a.stats.misses, 1,
        "the aider dialect does not read default-dialect tags"
    );
    assert_ne!(d.tags, a.tags);
}

#[test]
fn cache_dir_is_git_ignored_and_versioned() {
    let repo = Repo::new();
    let stale = repo.root().join(".repo-mapper/tags-v0-0000000000000000");
    fs::create_dir_all(&stale).unwrap();
    let s = open_store(&repo.cache(), &opts());
    drop(s);
    let base = repo.root().join(".repo-mapper");
    assert_eq!(fs::read_to_string(base.join(".gitignore")).unwrap(), "*\n");
    assert!(base.join(store_dir_name()).is_dir());
    assert!(!stale.exists(), "stores of other versions are removed");
}

#[test]
fn corrupt_store_is_recreated() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    drop(open_store(&repo.cache(), &opts()));
    let dir = repo.root().join(".repo-mapper").join(store_dir_name());
    for entry in fs::read_dir(&dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            fs::write(&p, b"\xde\xad\xbe\xef garbage, not a sled file").unwrap();
        }
    }
    let s = open_store(&repo.cache(), &opts());
    assert!(s.fallback.is_none(), "recreated on disk: {:?}", s.fallback);
    assert!(s.store.describe().starts_with("sled"));
    let out = run(&*s.store, &files);
    assert_eq!(names(&out.tags)[0], ["1:alpha", "beta×1"]);
}

#[test]
fn store_that_cannot_be_recreated_falls_back_to_memory() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    // A regular file where the store directory should be: sled cannot open it and it
    // cannot be removed as a directory.
    let base = repo.root().join(".repo-mapper");
    fs::create_dir_all(&base).unwrap();
    fs::write(base.join(store_dir_name()), "in the way").unwrap();
    let s = open_store(&repo.cache(), &opts());
    assert!(
        matches!(
            &s.fallback,
            Some(StoreFallback::Corrupt { .. } | StoreFallback::Unopenable { .. })
        ),
        "{:?}",
        s.fallback
    );
    assert_eq!(s.store.describe(), "memory");
    assert_eq!(
        names(&run(&*s.store, &files).tags)[0],
        ["1:alpha", "beta×1"]
    );
}

#[test]
fn unwritable_cache_location_falls_back_to_memory() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    // The cache directory's parent is a regular file: nothing can be created there, even
    // by root (who ignores permission bits, so chmod cannot simulate a read-only tree).
    fs::write(repo.root().join("blocker"), "").unwrap();
    let cache = CacheLocation::Dir(repo.root().join("blocker/.repo-mapper"));
    let s = open_store(&cache, &opts());
    let fallback = s.fallback.unwrap();
    assert!(
        matches!(fallback, StoreFallback::Uncreatable { .. }),
        "{fallback:?}"
    );
    assert!(fallback.to_string().contains("cannot create"));
    assert_eq!(
        names(&run(&*s.store, &files).tags)[0],
        ["1:alpha", "beta×1"]
    );
}

#[test]
fn second_opener_waits_then_uses_memory_and_still_gets_the_tags() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let files = repo.files(&["a.py"]);
    let first = open_store(&repo.cache(), &opts());
    assert!(first.fallback.is_none());
    let started = std::time::Instant::now();
    let second = open_store(&repo.cache(), &opts());
    assert!(
        started.elapsed() >= Duration::from_millis(100),
        "waited for the lock"
    );
    let fallback = second.fallback.unwrap();
    assert!(matches!(fallback, StoreFallback::Locked { .. }));
    assert!(fallback.to_string().contains("in use"));
    assert_eq!(
        names(&run(&*first.store, &files).tags),
        names(&run(&*second.store, &files).tags)
    );
    drop(first);
    let third = open_store(&repo.cache(), &opts());
    assert!(
        third.fallback.is_none(),
        "released when the first store is dropped"
    );
}

/// Issue 26: a holder that keeps writing (a first scan filling the store) is waited for
/// past `lock_wait`, so the next process gets the filled store instead of parsing every
/// file in memory alongside it.
#[test]
fn a_holder_that_writes_is_waited_for() {
    let repo = Repo::new();
    repo.write("a.py", A);
    // A `lock_wait` of 400 ms, not `opts()`'s 100: one write's flush can stall for more
    // than 100 ms on a loaded machine, which would look like a holder gone quiet.
    let opts = OpenOptions::waiting(Duration::from_millis(400), Duration::from_secs(10));
    let first = open_store(&repo.cache(), &opts);
    assert!(first.fallback.is_none());
    let writer = std::thread::spawn(move || {
        // 1.5 s of writes, every 30 ms: almost four times the 400 ms `lock_wait`.
        for i in 0..50u8 {
            let entry = (vec![b'k', i], vec![i; 4096]);
            first.store.put_batch(vec![entry]).unwrap();
            first.store.flush().unwrap();
            std::thread::sleep(Duration::from_millis(30));
        }
        drop(first);
    });
    let started = std::time::Instant::now();
    let second = open_store(&repo.cache(), &opts);
    writer.join().unwrap();
    assert!(
        second.fallback.is_none(),
        "waited for the writer: {:?}",
        second.fallback
    );
    assert!(started.elapsed() >= Duration::from_millis(1200));
}

#[test]
fn concurrent_processes_both_get_a_correct_result() {
    // Two real processes (this test binary, re-run as a child) scan the same repository.
    if let Ok(root) = std::env::var("REPO_MAPPER_STORE_CHILD") {
        let root = PathBuf::from(root);
        let files = vec![(root.join("a.py"), "a.py".to_owned())];
        let cache = CacheLocation::Dir(root.join(".repo-mapper"));
        for _ in 0..20 {
            let s = open_store(&cache, &opts());
            let out = run(&*s.store, &files);
            assert_eq!(names(&out.tags)[0], ["1:alpha", "beta×1"]);
        }
        return;
    }
    let repo = Repo::new();
    repo.write("a.py", A);
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "concurrent_processes_both_get_a_correct_result",
                    "--nocapture",
                ])
                .env("REPO_MAPPER_STORE_CHILD", repo.root())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
}

#[test]
fn file_deleted_after_listing_yields_no_tags() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let files = repo.files(&["a.py", "gone.py", "."]);
    let s = open_store(&repo.cache(), &opts());
    let out = run(&*s.store, &files);
    assert_eq!(out.tags.len(), 3);
    assert!(out.tags[1].is_empty());
    assert_eq!(
        out.stats.errors, 1,
        "the missing file; `.` has no language and is skipped"
    );
}

/// The tag entries of a store (its keys but the pruning record, `m`).
fn entries(store: &dyn TagStore) -> usize {
    store.keys().into_iter().filter(|k| k != b"m").count()
}

#[test]
fn removed_files_are_pruned() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let b = repo.write("b.py", B);
    let s = open_store(&repo.cache(), &opts());
    run(&*s.store, &repo.files(&["a.py", "b.py"]));
    assert_eq!(entries(&*s.store), 2);
    fs::remove_file(b).unwrap();
    let out = scan(
        &*s.store,
        &repo.files(&["a.py"]),
        &ScanOptions {
            prune_under: Some(repo.root()),
            ..ScanOptions::default()
        },
        &|_| {},
    );
    assert_eq!(out.stats.pruned, 1);
    assert_eq!(entries(&*s.store), 1);
    // Entries outside the root are never pruned.
    let elsewhere = Repo::new();
    let other = elsewhere.write("c.py", A);
    run(&*s.store, &[(other, "c.py".to_owned())]);
    let out = scan(
        &*s.store,
        &repo.files(&["a.py"]),
        &ScanOptions {
            prune_under: Some(repo.root()),
            ..ScanOptions::default()
        },
        &|_| {},
    );
    assert_eq!((out.stats.pruned, entries(&*s.store)), (0, 2));
}

/// A memory store that counts how often every key is listed.
#[derive(Default)]
struct CountingKeys {
    inner: MemoryStore,
    listings: std::sync::atomic::AtomicUsize,
}

impl TagStore for CountingKeys {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.inner.get(key)
    }
    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        self.inner.put_batch(entries)
    }
    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()> {
        self.inner.remove_batch(keys)
    }
    fn keys(&self) -> Vec<Vec<u8>> {
        self.listings
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.keys()
    }
    fn flush(&self) -> io::Result<()> {
        Ok(())
    }
    fn describe(&self) -> String {
        "counting".into()
    }
    fn words(&self, hash: &[u8; 32]) -> Option<Terms> {
        self.inner.words(hash)
    }
    fn keep_words(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> io::Result<()> {
        self.inner.keep_words(used, new, whole)
    }
    fn reset(&self) -> io::Result<()> {
        self.inner.reset()
    }
}

/// Issue 14: pruning lists every key (a read of the whole store), so a walk with the same
/// file list as the last pruned one skips it — unless a scan without pruning wrote since.
#[test]
fn a_walk_with_the_last_pruned_list_does_not_list_the_store() {
    let repo = Repo::new();
    repo.write("a.py", A);
    repo.write("b.py", B);
    let store = CountingKeys::default();
    let listings = || store.listings.load(std::sync::atomic::Ordering::Relaxed);
    let walk = |names: &[&str]| {
        let opts = ScanOptions {
            prune_under: Some(repo.root()),
            ..ScanOptions::default()
        };
        scan(&store, &repo.files(names), &opts, &|_| {})
    };
    walk(&["a.py", "b.py"]);
    assert_eq!(listings(), 1);
    walk(&["a.py", "b.py"]);
    assert_eq!(listings(), 1, "same list: no listing");
    // A scan without pruning stores an entry outside the list: the next walk prunes it.
    let extra = repo.write("c.py", A);
    run(&store, &[(extra, "c.py".to_owned())]);
    let out = walk(&["a.py", "b.py"]);
    assert_eq!((listings(), out.stats.pruned), (2, 1));
    // Another list prunes too.
    let out = walk(&["a.py"]);
    assert_eq!((listings(), out.stats.pruned), (3, 1));
    assert_eq!(entries(&store), 1);
}

/// A store whose disk is full: reads work, every write fails.
struct FullDisk(MemoryStore);

impl TagStore for FullDisk {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.0.get(key)
    }
    fn put_batch(&self, _: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::StorageFull,
            "no space left on device",
        ))
    }
    fn remove_batch(&self, _: Vec<Vec<u8>>) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::StorageFull,
            "no space left on device",
        ))
    }
    fn keys(&self) -> Vec<Vec<u8>> {
        self.0.keys()
    }
    fn flush(&self) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::StorageFull,
            "no space left on device",
        ))
    }
    fn describe(&self) -> String {
        "full disk".into()
    }
    fn words(&self, hash: &[u8; 32]) -> Option<Terms> {
        self.0.words(hash)
    }
    fn keep_words(&self, _: &[[u8; 32]], _: &[NewWords], _: bool) -> io::Result<()> {
        Err(io::Error::new(
            io::ErrorKind::StorageFull,
            "no space left on device",
        ))
    }
    fn reset(&self) -> io::Result<()> {
        self.0.reset()
    }
}

#[test]
fn full_disk_still_yields_the_tags() {
    let repo = Repo::new();
    repo.write("a.py", A);
    let store = FullDisk(MemoryStore::new());
    let out = scan(
        &store,
        &repo.files(&["a.py"]),
        &ScanOptions {
            prune_under: Some(repo.root()),
            ..ScanOptions::default()
        },
        &|_| {},
    );
    assert_eq!(names(&out.tags)[0], ["1:alpha", "beta×1"]);
}

#[test]
fn no_cache_means_memory() {
    let repo = Repo::new();
    let s = open_store(&CacheLocation::Memory, &opts());
    assert_eq!(s.store.describe(), "memory");
    assert!(s.fallback.is_none());
    assert!(!repo.root().join(".repo-mapper").exists());
}

/// Progress says how many files must be read before the bulk of them is (a caller shows a
/// bar only when there is parsing ahead), counting those the check read as it found them
/// (the first few: here, both), then counts the rest; a warm scan has nothing to read.
#[test]
fn progress_announces_the_files_to_read_then_counts_them() {
    let repo = Repo::new();
    repo.write("a.py", A);
    repo.write("b.py", B);
    let s = MemoryStore::new();
    let files = repo.files(&["a.py", "b.py", "c.txt"]);
    let events = std::sync::Mutex::new(Vec::new());
    let record = |p: ScanProgress| events.lock().unwrap().push((p.read, p.to_read));
    scan(&s, &files, &ScanOptions::default(), &record);
    let mut seen = std::mem::take(&mut *events.lock().unwrap());
    assert_eq!(seen[0], (2, 2), "announced first: c.txt has no language");
    seen.sort();
    assert_eq!(seen, [(2, 2)], "both read by the check");
    // The entries were written while the files' change time (which no one can back-date)
    // was racy: once it has settled, one scan confirms them by content hash and clears
    // the flag; from then on the store vouches for both by stat alone.
    std::thread::sleep(repo_mapper_tags::RACY_WINDOW + Duration::from_millis(100));
    scan(&s, &files, &ScanOptions::default(), &|_| {});
    scan(&s, &files, &ScanOptions::default(), &record);
    assert_eq!(*events.lock().unwrap(), [(0, 0)]);
}

/// Issue 26: every file a scan parses, and only those, is shown to `on_parse` with the text
/// parsed, its language and a tree of that text (early reads included), so that the
/// caller's render need not parse it again.
#[test]
fn a_scan_shows_each_file_it_parses_to_on_parse() {
    let repo = Repo::new();
    let rels: Vec<String> = (0..12).map(|i| format!("m{i}.py")).collect();
    for rel in &rels {
        repo.write(
            rel,
            &format!("def f_{rel}():\n    return g()\n").replace(".py", ""),
        );
    }
    let files = repo.files(&rels.iter().map(String::as_str).collect::<Vec<_>>());
    let store = MemoryStore::new();
    let seen: std::sync::Mutex<Vec<(PathBuf, String)>> = std::sync::Mutex::default();
    let record = |p: repo_mapper_store::Parsed<'_>| {
        assert_eq!(p.language, repo_mapper_tags::Language::Python);
        let root = p.tree.root_node();
        assert_eq!((root.kind(), root.end_byte()), ("module", p.source.len()));
        seen.lock()
            .unwrap()
            .push((p.path.to_path_buf(), p.source.to_owned()));
    };
    let opts = ScanOptions {
        on_parse: Some(repo_mapper_store::OnParse(&record)),
        ..ScanOptions::default()
    };
    let cold = scan(&store, &files, &opts, &|_| {});
    assert_eq!(cold.stats.misses, 12);
    let mut shown: Vec<PathBuf> = seen.lock().unwrap().drain(..).map(|(p, _)| p).collect();
    shown.sort();
    let mut all: Vec<PathBuf> = files.iter().map(|(abs, _)| abs.clone()).collect();
    all.sort();
    assert_eq!(shown, all, "every file parsed, once");
    // Entries written while the files' change time was racy are confirmed once it settles.
    std::thread::sleep(repo_mapper_tags::RACY_WINDOW + Duration::from_millis(100));
    scan(&store, &files, &opts, &|_| {});
    assert!(
        seen.lock().unwrap().is_empty(),
        "files from the store are not parsed"
    );

    let edited = repo.write("m3.py", "def edited():\n    return h()\n");
    let warm = scan(&store, &files, &opts, &|_| {});
    assert_eq!(warm.stats.misses, 1);
    let shown = std::mem::take(&mut *seen.lock().unwrap());
    assert_eq!(
        shown,
        [(edited, "def edited():\n    return h()\n".to_owned())]
    );
}
