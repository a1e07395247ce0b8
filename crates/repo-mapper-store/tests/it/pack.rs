//! The root's pack (issue 26): a whole scan's entries in one immutable file, read without
//! sled's lock; sled holds what changed since, until a scan writes the pack anew.

use crate::common::set_mtime;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use repo_mapper_store::{
    CacheLocation, OpenOptions, ScanOptions, ScanOutput, StoreFallback, open_store, scan_cached,
    store_dir_name, stored_keys,
};
use repo_mapper_tags::RACY_WINDOW;
use repo_mapper_test_support::logged;

/// A repository of `n` Python files, `f0.py`…, their mtimes past the racy window.
struct Repo {
    dir: tempfile::TempDir,
    files: Vec<(PathBuf, String)>,
    cache: PathBuf,
}

impl Repo {
    fn new(n: usize) -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join(".repo-mapper");
        Repo::with_cache(dir, n, cache)
    }

    /// A repository in `dir` whose cache is `cache`.
    fn with_cache(dir: tempfile::TempDir, n: usize, cache: PathBuf) -> Repo {
        let mut repo = Repo {
            dir,
            files: Vec::new(),
            cache,
        };
        for i in 0..n {
            let rel = format!("f{i}.py");
            repo.edit(i, &format!("def fn{i}():\n    helper()\n"));
            repo.files.push((repo.root().join(&rel), rel));
        }
        settle();
        repo
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    /// Rewrites file `i`; its mtime an hour back plus `i` seconds (past the racy window,
    /// and distinct from any earlier version's).
    fn edit(&self, i: usize, text: &str) {
        let path = self.root().join(format!("f{i}.py"));
        let before = fs::metadata(&path).and_then(|m| m.modified()).ok();
        fs::write(&path, text).unwrap();
        let mut at = SystemTime::now() - Duration::from_secs(3600) + Duration::from_secs(i as u64);
        if before == Some(at) {
            at += Duration::from_secs(1);
        }
        set_mtime(&path, at);
    }

    fn cache(&self) -> CacheLocation {
        CacheLocation::Dir(self.cache.clone())
    }

    fn packs(&self) -> PathBuf {
        self.cache.join(store_dir_name()).join("packs")
    }

    /// The one pack's path and bytes.
    fn pack(&self) -> (PathBuf, Vec<u8>) {
        let mut packs: Vec<PathBuf> = fs::read_dir(self.packs())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
            .collect();
        assert_eq!(packs.len(), 1, "{packs:?}");
        let path = packs.pop().unwrap();
        let bytes = fs::read(&path).unwrap();
        (path, bytes)
    }

    /// A scan of the whole list (the CLI's after a full walk).
    fn whole(&self) -> (ScanOutput, Option<StoreFallback>) {
        let opts = ScanOptions {
            prune_under: Some(self.root()),
            ..ScanOptions::default()
        };
        let open = OpenOptions::waiting(Duration::from_millis(100), Duration::from_secs(5));
        scan_cached(&self.cache(), &open, &self.files, &opts, &|_| {})
    }

    /// How many entries sled holds (the pack's not counted).
    /// The root's recent pack, if there is one.
    fn recent(&self) -> Option<PathBuf> {
        let found = fs::read_dir(self.packs())
            .unwrap()
            .map(|e| e.unwrap().path());
        let mut recent = found.filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".recent-")
        });
        recent.next()
    }

    fn in_sled(&self) -> usize {
        let opened = open_store(&self.cache(), &OpenOptions::default());
        assert!(opened.fallback.is_none());
        opened.store.keys().iter().filter(|k| k[0] == b'd').count()
    }
}

/// Waits out the racy window of the files just written (their ctime is now): until then
/// `stat` vouches for none of them, against the pack or sled.
fn settle() {
    std::thread::sleep(RACY_WINDOW + Duration::from_millis(100));
}

fn defs(out: &ScanOutput) -> Vec<Vec<String>> {
    out.tags
        .iter()
        .map(|t| t.defs.iter().map(|d| d.name.to_string()).collect())
        .collect()
}

#[test]
fn a_first_whole_scan_leaves_every_entry_in_the_pack_and_sled_empty() {
    let repo = Repo::new(20);
    let (cold, fallback) = repo.whole();
    assert!(fallback.is_none());
    assert_eq!(cold.stats.misses, 20);
    assert_eq!(repo.in_sled(), 0);
    assert_eq!(stored_keys(&repo.cache()).len(), 20);
    let (warm, _) = repo.whole();
    assert_eq!((warm.stats.hits, warm.stats.misses), (20, 0));
    assert_eq!(defs(&warm), defs(&cold));
}

#[test]
fn tags_served_by_the_pack_come_with_their_names_numbered() {
    let repo = Repo::new(20);
    let numbered = |out: &ScanOutput| out.tags.iter().filter(|t| t.names.is_some()).count();
    let (cold, _) = repo.whole();
    assert_eq!(numbered(&cold), 0, "parsed now");
    let (warm, _) = repo.whole();
    assert_eq!(numbered(&warm), 20);
    for tags in &warm.tags {
        let names = tags.names.as_ref().unwrap();
        let by_number: Vec<&str> = names
            .ids
            .iter()
            .map(|&i| names.table.get(i).unwrap())
            .collect();
        let by_text: Vec<&str> = tags.defs.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(by_number, by_text);
        let numbers = tags.refs.numbers().expect("references numbered too");
        assert!(std::sync::Arc::ptr_eq(numbers.table, &names.table));
        let refs: Vec<&str> = numbers
            .pairs
            .iter()
            .map(|&(i, _)| names.table.get(i).unwrap())
            .collect();
        assert_eq!(refs, ["helper"]);
    }
    repo.edit(3, "def changed():\n    other()\n");
    settle();
    let (edited, _) = repo.whole();
    assert_eq!(numbered(&edited), 19, "the changed file comes from sled");
    assert!(edited.tags[3].names.is_none() && edited.tags[3].refs.numbers().is_none());
    assert_eq!(edited.tags[3].defs[0].name, "changed");
}

/// Every file under `dir` (recursively, by path) with its length and modification time.
fn files_under(dir: &Path) -> Vec<(PathBuf, u64, std::time::SystemTime)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).into_iter().flatten().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                todo.push(entry.path());
            } else {
                out.push((entry.path(), meta.len(), meta.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Issue 26: a warm pruning scan of an unchanged tree is served by the pack and does not
/// open sled (it opened it on every call when no repack was due, to learn it was not).
#[test]
fn a_warm_scan_of_an_unchanged_tree_leaves_sled_closed() {
    let repo = Repo::new(20);
    repo.whole();
    settle();
    repo.whole();
    let sled_dir = repo.cache.join(repo_mapper_store::store_dir_name());
    let before: Vec<_> = files_under(&sled_dir)
        .into_iter()
        .filter(|(p, ..)| !p.starts_with(repo.packs()))
        .collect();
    std::thread::sleep(Duration::from_millis(20));
    let (warm, _) = repo.whole();
    assert_eq!((warm.stats.hits, warm.stats.misses), (20, 0));
    let after: Vec<_> = files_under(&sled_dir)
        .into_iter()
        .filter(|(p, ..)| !p.starts_with(repo.packs()))
        .collect();
    assert_eq!(before, after, "sled's files were touched");
}

#[test]
fn a_warm_scan_beside_a_holder_of_sled_is_served_by_the_pack_without_waiting() {
    let repo = Repo::new(20);
    let (cold, _) = repo.whole();
    let holder = open_store(&repo.cache(), &OpenOptions::default());
    assert!(holder.fallback.is_none());
    let ((warm, fallback), events) = logged(|| repo.whole());
    assert!(fallback.is_none(), "{fallback:?}");
    assert!(
        events.iter().all(|e| e.level > tracing::Level::INFO),
        "{events:?}"
    );
    assert_eq!((warm.stats.hits, warm.stats.misses), (20, 0));
    assert_eq!(defs(&warm), defs(&cold));
    // A changed file is parsed, not waited for, and its entry kept in the recent pack.
    repo.edit(3, "def changed():\n    pass\n");
    let ((edited, fallback), events) = logged(|| repo.whole());
    assert!(fallback.is_none());
    assert!(
        events.iter().all(|e| e.level > tracing::Level::INFO),
        "{events:?}"
    );
    assert_eq!((edited.stats.hits, edited.stats.misses), (19, 1));
    assert_eq!(defs(&edited)[3], ["changed"]);
    let ((again, _), _) = logged(|| repo.whole());
    assert_eq!(
        (again.stats.hits, again.stats.misses),
        (20, 0),
        "kept meanwhile"
    );
    drop(holder);
    let (after, _) = repo.whole();
    assert_eq!(after.stats.misses, 0);
    assert_eq!(defs(&after)[3], ["changed"]);
    assert_eq!(repo.in_sled(), 0);
}

/// Issue 26: a whole scan of a root with its pack keeps what changed in the root's recent
/// pack, never opening sled, until enough changed for a new pack.
#[test]
fn changes_stay_in_the_recent_pack_until_they_are_worth_a_new_pack() {
    let repo = Repo::new(40);
    repo.whole();
    let (_, first_pack) = repo.pack();
    let sled_file = repo.cache.join(store_dir_name()).join("db");
    let sled_before = fs::read(&sled_file).unwrap();
    repo.edit(0, "def edited0():\n    pass\n");
    let (one, _) = repo.whole();
    assert_eq!(one.stats.misses, 1);
    assert!(repo.recent().is_some(), "the change is in the recent pack");
    assert_eq!(repo.pack().1, first_pack, "the pack is as it was");
    // The recent pack's entry is the newer: served from there, not parsed again.
    let (again, _) = repo.whole();
    assert_eq!((again.stats.hits, again.stats.misses), (40, 0));
    assert_eq!(defs(&again)[0], ["edited0"]);
    let sled_after = fs::read(&sled_file).unwrap();
    assert!(sled_after == sled_before, "sled was not written");
    // 16 files the pack does not vouch for (the least for a new pack): the pack is
    // written anew, and the recent pack goes.
    for i in 1..16 {
        repo.edit(i, &format!("def edited{i}():\n    pass\n"));
    }
    let (many, _) = repo.whole();
    assert_eq!(many.stats.misses, 15);
    assert_ne!(repo.pack().1, first_pack);
    assert!(repo.recent().is_none(), "the pack holds it all");
    assert_eq!(repo.in_sled(), 0);
    let (last, _) = repo.whole();
    assert_eq!((last.stats.hits, last.stats.misses), (40, 0));
    assert_eq!(defs(&last), defs(&many));
    assert_eq!(defs(&last)[15], ["edited15"]);
}

#[test]
fn a_damaged_pack_is_removed_with_one_warning_and_written_anew() {
    let repo = Repo::new(20);
    let (cold, _) = repo.whole();
    let (path, mut bytes) = repo.pack();
    let at = bytes.len() / 2;
    bytes[at] ^= 0x10;
    fs::write(&path, &bytes).unwrap();
    let ((out, fallback), events) = logged(|| repo.whole());
    assert!(fallback.is_none());
    let warnings: Vec<_> = events
        .iter()
        .filter(|e| e.level == tracing::Level::WARN)
        .collect();
    assert_eq!(warnings.len(), 1, "{events:?}");
    assert!(warnings[0].message.contains("damaged"), "{warnings:?}");
    assert!(warnings[0].message.contains(&*path.to_string_lossy()));
    assert_eq!(defs(&out), defs(&cold));
    assert_eq!(out.stats.misses, 20, "nothing in the pack was trusted");
    let ((warm, _), events) = logged(|| repo.whole());
    assert!(
        events.iter().all(|e| e.level > tracing::Level::INFO),
        "{events:?}"
    );
    assert_eq!(warm.stats.hits, 20);
}

#[test]
fn a_scan_of_some_files_neither_reads_nor_writes_the_pack() {
    let repo = Repo::new(20);
    repo.whole();
    let (_, pack) = repo.pack();
    repo.edit(2, "def partial():\n    pass\n");
    let some = &repo.files[..5];
    let open = OpenOptions::default();
    let (out, _) = scan_cached(&repo.cache(), &open, some, &ScanOptions::default(), &|_| {});
    // sled lost the entries to the pack: the unchanged four are parsed too.
    assert_eq!(out.stats.misses, 5);
    assert_eq!(repo.pack().1, pack);
    let (whole, _) = repo.whole();
    assert_eq!((whole.stats.hits, whole.stats.misses), (20, 0));
    assert_eq!(defs(&whole)[2], ["partial"]);
}

/// Issue 26: a second checkout of a repository (a `git worktree add`, a fresh clone) whose
/// cache directory another checkout filled takes every file's tags from that checkout's
/// pack by content: read and hashed, never parsed. A file it changed is parsed, and so is
/// the same content under a path of another language.
#[test]
fn a_second_checkout_sharing_the_cache_parses_only_what_differs() {
    let shared = tempfile::tempdir().unwrap();
    let cache = shared.path().join("cache");
    let first = Repo::with_cache(tempfile::tempdir().unwrap(), 20, cache.clone());
    let (cold, _) = first.whole();
    assert_eq!(cold.stats.misses, 20);
    let second = Repo::with_cache(tempfile::tempdir().unwrap(), 20, cache);
    second.edit(4, "def only_here():\n    pass\n");
    let other_language = second.root().join("f5.rb");
    fs::copy(second.root().join("f5.py"), &other_language).unwrap();
    let mut files = second.files.clone();
    files.push((other_language, "f5.rb".to_owned()));
    let opts = ScanOptions {
        prune_under: Some(second.root()),
        ..ScanOptions::default()
    };
    let (out, _) = scan_cached(
        &second.cache(),
        &OpenOptions::default(),
        &files,
        &opts,
        &|_| {},
    );
    assert_eq!(out.stats.hash_hits, 19, "{:?}", out.stats);
    assert_eq!(out.stats.misses, 2, "the edited file, and the Ruby copy");
    assert_eq!(
        defs(&out)[..20],
        defs(&cold)[..20]
            .iter()
            .enumerate()
            .map(|(i, d)| {
                if i == 4 {
                    vec!["only_here".to_owned()]
                } else {
                    d.clone()
                }
            })
            .collect::<Vec<_>>()[..]
    );
    assert!(
        defs(&out)[20].is_empty(),
        "Ruby finds no Python definitions"
    );
    // The second checkout now has a pack of its own; the first's still serves it.
    let (warm, _) = first.whole();
    assert_eq!((warm.stats.hits, warm.stats.misses), (20, 0));
    let (again, _) = scan_cached(
        &second.cache(),
        &OpenOptions::default(),
        &files,
        &opts,
        &|_| {},
    );
    assert_eq!((again.stats.hits, again.stats.misses), (21, 0));
}

/// A map without a message reads no code words: a scan with `skip_words` leaves stored
/// files' words unread, gives a file it parses its own, and keeps every file's words for
/// the next scan that reads them.
#[test]
fn a_scan_that_skips_words_keeps_them_for_the_next() {
    let repo = Repo::new(20);
    let (cold, _) = repo.whole();
    assert!(cold.tags.iter().all(|t| !t.terms.is_empty()));
    repo.edit(0, "def fresh_words():\n    pass\n");
    let opts = ScanOptions {
        prune_under: Some(repo.root()),
        skip_words: true,
        ..ScanOptions::default()
    };
    let open = OpenOptions::default();
    let (skipped, _) = scan_cached(&repo.cache(), &open, &repo.files, &opts, &|_| {});
    assert_eq!((skipped.stats.hits, skipped.stats.misses), (19, 1));
    assert!(!skipped.tags[0].terms.is_empty(), "parsed: its words made");
    assert!(skipped.tags[1..].iter().all(|t| t.terms.is_empty()));
    let (read, _) = repo.whole();
    assert_eq!(read.stats.hits, 20);
    assert_eq!(read.tags[0].terms, skipped.tags[0].terms);
    for (now, before) in read.tags[1..].iter().zip(&cold.tags[1..]) {
        assert_eq!(now.terms, before.terms);
    }
}

/// A file that grows past the size limit (or becomes unreadable) leaves the pack at the
/// next whole scan, and the pack is not written again at every scan after.
#[test]
fn a_file_that_grows_too_large_leaves_the_pack_once() {
    let repo = Repo::new(20);
    repo.whole();
    assert_eq!(stored_keys(&repo.cache()).len(), 20);
    repo.edit(
        7,
        &format!("def big():\n    pass\n{}", "# padding\n".repeat(200)),
    );
    let opts = ScanOptions {
        prune_under: Some(repo.root()),
        max_file_size: Some(1000),
        ..ScanOptions::default()
    };
    let open = OpenOptions::default();
    let scan = || scan_cached(&repo.cache(), &open, &repo.files, &opts, &|_| {}).0;
    let grown = scan();
    assert_eq!(grown.stats.too_large, 1);
    assert_eq!(stored_keys(&repo.cache()).len(), 19, "gone from the pack");
    settle();
    let (_, pack) = repo.pack();
    let again = scan();
    assert_eq!((again.stats.hits, again.stats.too_large), (19, 1));
    assert_eq!(repo.pack().1, pack, "not written again");
}

/// A scan of every file a session maps (an MCP session's first) reads the root's pack
/// though it does not prune, and writes none.
#[test]
fn a_scan_of_every_file_without_pruning_is_served_by_the_pack() {
    let repo = Repo::new(20);
    let (cold, _) = repo.whole();
    let (_, pack) = repo.pack();
    let holder = open_store(&repo.cache(), &OpenOptions::default());
    let opts = ScanOptions {
        pack_root: Some(repo.root()),
        ..ScanOptions::default()
    };
    let open = OpenOptions::default();
    let (out, fallback) = scan_cached(&repo.cache(), &open, &repo.files, &opts, &|_| {});
    assert!(fallback.is_none());
    assert_eq!((out.stats.hits, out.stats.misses), (20, 0));
    assert_eq!(defs(&out), defs(&cold));
    drop(holder);
    repo.edit(1, "def changed():\n    pass\n");
    let (edited, _) = scan_cached(&repo.cache(), &open, &repo.files, &opts, &|_| {});
    assert_eq!(edited.stats.misses, 1);
    assert_eq!(repo.pack().1, pack, "only a pruning scan writes the pack");
    assert_eq!(repo.in_sled(), 1, "the change is in sled");
}

/// A change the recent pack keeps serves a scan of every file without pruning (a warm
/// session's first) too, without opening sled or marking it as holding changes; a
/// change that scan makes goes to sled, and marks it, so that whole scans look there.
#[test]
fn a_scan_without_pruning_is_served_by_the_recent_pack_without_sled() {
    let repo = Repo::new(20);
    repo.whole();
    repo.edit(2, "def changed():\n    pass\n");
    settle();
    repo.whole();
    assert!(repo.recent().is_some());
    let store = repo.cache.join(store_dir_name());
    let (db, marker) = (store.join("db"), store.join(".sled-holds-changes"));
    let sled_before = fs::read(&db).unwrap();
    let opts = ScanOptions {
        pack_root: Some(repo.root()),
        ..ScanOptions::default()
    };
    let open = OpenOptions::default();
    let (out, _) = scan_cached(&repo.cache(), &open, &repo.files, &opts, &|_| {});
    assert_eq!((out.stats.hits, out.stats.misses), (20, 0));
    assert_eq!(defs(&out)[2], ["changed"]);
    assert!(fs::read(&db).unwrap() == sled_before, "sled untouched");
    assert!(!marker.exists());
    repo.edit(4, "def partial():\n    pass\n");
    settle();
    let (partial, _) = scan_cached(&repo.cache(), &open, &repo.files, &opts, &|_| {});
    assert_eq!(partial.stats.misses, 1);
    assert!(marker.exists(), "sled holds a change the packs lack");
    let (whole, _) = repo.whole();
    assert_eq!(
        (whole.stats.hits, whole.stats.misses),
        (20, 0),
        "sled asked"
    );
    assert_eq!(defs(&whole)[4], ["partial"]);
}

/// A change of many files at once (a branch switched) goes straight into the new pack:
/// sled, whose emptying leaves its pages as garbage on disk, is not written with them.
#[test]
fn a_change_of_many_files_bypasses_sled() {
    let repo = Repo::new(40);
    repo.whole();
    let db = repo.cache.join(store_dir_name()).join("db");
    for i in 0..20 {
        let defs: String = (0..400)
            .map(|d| format!("def switched_{i}_{d}(a, b):\n    return helper_{d}(a) + b\n"))
            .collect();
        repo.edit(i, &defs);
    }
    let (switched, _) = repo.whole();
    assert_eq!(switched.stats.misses, 20);
    assert_eq!(repo.in_sled(), 0);
    // Through sled, the 20 entries (over 300 KB) would have grown its file past the one
    // 64 KiB segment any write takes.
    let after = fs::metadata(&db).unwrap().len();
    assert!(after <= 64 * 1024, "sled's file grew to {after} bytes");
    let (warm, _) = repo.whole();
    assert_eq!((warm.stats.hits, warm.stats.misses), (40, 0));
}
