//! Hostile input for the tag store (issue 12): a damaged data file, stores that must not be
//! deleted, a cache location that is a file, and our diagnostics on one line each.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use repo_mapper_store::{
    CacheLocation, MemoryStore, OpenOptions, OpenedStore, StoreFallback, TagStore, open_store,
    store_dir_name,
};
use tracing::Level;

fn opts() -> OpenOptions {
    OpenOptions::waiting(Duration::from_millis(100), Duration::from_secs(5))
}

fn cache_of(root: &Path) -> CacheLocation {
    CacheLocation::Dir(root.join(".repo-mapper"))
}

fn store_dir(root: &Path) -> PathBuf {
    root.join(".repo-mapper").join(store_dir_name())
}

/// Entries like the scan's: about as many as a mid-sized repository has files.
const ENTRIES: usize = 3000;
const VALUE_LEN: usize = 600;

fn key(i: usize) -> Vec<u8> {
    format!("\x01/repo/src/module{i:05}.py").into_bytes()
}

/// Pseudo-random bytes (xorshift): zstd cannot compress them, so each value lies in the
/// data file verbatim and can be found there.
fn value(i: usize) -> Vec<u8> {
    let mut x = (i as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..VALUE_LEN)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A store of [`ENTRIES`] entries, written and closed; with `reopen`, opened and closed once
/// more (as the next run would), so sled has written its snapshot.
fn build_store(cache: &CacheLocation, reopen: bool) {
    let opened = open_store(cache, &opts());
    assert!(opened.fallback.is_none());
    let entries: Vec<_> = (0..ENTRIES).map(|i| (key(i), value(i))).collect();
    for chunk in entries.chunks(256) {
        opened.store.put_batch(chunk.to_vec()).unwrap();
    }
    opened.store.flush().unwrap();
    drop(opened);
    if reopen {
        drop(open_store(cache, &opts()));
    }
}

/// Zeroes every copy of the start of these entries' values in the sled data file: the
/// pages that hold them fail their checksum when read. (Zeroing a 100,000-byte stretch at a
/// third of the file, as in the issue, also does it, but in only about one run in five: the
/// stretch often lands on stale copies, or on pages sled reads when it opens.)
fn damage(db: &Path, entries: &[usize]) -> usize {
    let mut bytes = fs::read(db).unwrap();
    let mut hits = 0;
    for &i in entries {
        let needle = &value(i)[..32];
        let mut at = 0;
        while let Some(found) = bytes[at..].windows(32).position(|w| w == needle) {
            at += found;
            bytes[at..at + 32].fill(0);
            hits += 1;
        }
    }
    fs::write(db, bytes).unwrap();
    hits
}

/// Runs `f`, returning what it returns and the events this crate logged meanwhile.
fn logged<T>(f: impl FnOnce() -> T) -> (T, Vec<(Level, String)>) {
    let (out, events) = repo_mapper_test_support::logged(f);
    let ours = events
        .into_iter()
        .filter(|e| e.target.starts_with("repo_mapper_store"))
        .map(|e| (e.level, e.message))
        .collect();
    (out, ours)
}

fn warnings(events: &[(Level, String)]) -> Vec<&str> {
    events
        .iter()
        .filter(|(level, _)| *level == Level::WARN)
        .map(|(_, m)| m.as_str())
        .collect()
}

fn assert_memory_with_one_warning(opened: &OpenedStore, events: &[(Level, String)], path: &Path) {
    assert_eq!(opened.store.describe(), "memory");
    let reason = opened
        .fallback
        .as_ref()
        .expect("a fallback reason")
        .to_string();
    let warned = warnings(events);
    assert_eq!(warned.len(), 1, "exactly one warning: {events:?}");
    assert!(warned[0].contains(&reason), "{warned:?}");
    assert!(!warned[0].contains('\n'), "{warned:?}");
    assert!(
        warned[0].contains(&path.display().to_string()),
        "names {}: {warned:?}",
        path.display()
    );
}

fn lost_entries(store: &dyn TagStore) -> usize {
    (0..ENTRIES)
        .filter(|&i| store.get(&key(i)) != Some(value(i)))
        .count()
}

#[test]
fn damaged_data_file_is_detected_and_reset() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = cache_of(tmp.path());
    build_store(&cache, true);
    let hits = damage(&store_dir(tmp.path()).join("db"), &[700, 1500, 2300]);
    assert!(hits >= 3, "every value is in the file at least once");

    let ((opened, lost, listed), events) = logged(|| {
        let opened = open_store(&cache, &opts());
        let lost = lost_entries(&*opened.store);
        // Listing stops at the damage instead of retrying it for ever.
        let listed = opened.store.keys().len();
        (opened, lost, listed)
    });
    let store = &opened.store;
    assert!(opened.fallback.is_none(), "{opened:?}");
    assert!(store.describe().starts_with("sled at"));
    let recreated = warnings(&events).iter().any(|w| w.contains("is damaged"));
    if store.is_damaged() {
        assert!(!recreated);
        assert!(lost > 0 && lost < ENTRIES, "{lost} entries unreadable");
        assert!(listed < ENTRIES);
        let said = events.iter().filter(|(_, m)| m.contains("cannot be read"));
        assert_eq!(said.count(), 1, "one line per store, not one per key");
    } else {
        // sled refused it when opening: already recreated, empty.
        assert!(recreated, "damage must show: {events:?}");
        assert_eq!((lost, listed), (ENTRIES, 0));
        eprintln!("note: this time sled noticed the damage when opening the store");
    }

    store.reset().unwrap();
    assert!(!store.is_damaged());
    assert!(store.keys().is_empty());
    assert_eq!(store.get(&key(0)), None);
    let fresh: Vec<_> = (0..10).map(|i| (key(i), value(i))).collect();
    store.put_batch(fresh).unwrap();
    store.flush().unwrap();
    assert_eq!(store.get(&key(3)), Some(value(3)));
    drop(opened);

    let (reopened, events) = logged(|| open_store(&cache, &opts()));
    assert!(reopened.fallback.is_none());
    assert!(warnings(&events).is_empty(), "{events:?}");
    assert_eq!(reopened.store.keys().len(), 10);
    assert_eq!(lost_entries(&*reopened.store), ENTRIES - 10);
    assert!(!reopened.store.is_damaged());
}

#[test]
fn memory_store_reset_empties_it() {
    let store = MemoryStore::new();
    store.put_batch(vec![(key(1), value(1))]).unwrap();
    assert!(!store.is_damaged());
    store.reset().unwrap();
    assert!(store.keys().is_empty());
    store.put_batch(vec![(key(2), value(2))]).unwrap();
    assert_eq!(store.get(&key(2)), Some(value(2)));
}

/// sled's data file replaced by a directory (issue 23): the store is ours and misshapen,
/// so it is damaged, not an environment problem. It is recreated once, with one warning;
/// the next run is silent and the store works.
#[test]
fn data_file_replaced_by_a_directory_is_recreated_once() {
    let tmp = tempfile::tempdir().unwrap();
    let cache = cache_of(tmp.path());
    build_store(&cache, true);
    let dir = store_dir(tmp.path());
    fs::remove_file(dir.join("db")).unwrap();
    fs::create_dir(dir.join("db")).unwrap();
    fs::write(dir.join("db/stray"), "left by someone").unwrap();

    let (first, events) = logged(|| open_store(&cache, &opts()));
    assert!(first.fallback.is_none(), "{first:?}");
    let warned = warnings(&events);
    assert_eq!(warned.len(), 1, "{events:?}");
    assert!(warned[0].contains("is damaged"), "{warned:?}");
    assert!(
        warned[0].contains("db"),
        "names the misshapen file: {warned:?}"
    );
    drop(first);
    assert!(dir.join("db").is_file(), "sled's data file again");

    let (second, events) = logged(|| open_store(&cache, &opts()));
    assert!(second.fallback.is_none(), "{second:?}");
    assert!(events.is_empty(), "the next run is silent: {events:?}");
    let store = &second.store;
    assert!(
        store.describe().starts_with("sled at"),
        "{}",
        store.describe()
    );
    assert_eq!(lost_entries(&**store), ENTRIES, "recreated empty");
    store.put_batch(vec![(key(1), value(1))]).unwrap();
    store.flush().unwrap();
    drop(second);
    let third = open_store(&cache, &opts());
    assert!(third.fallback.is_none());
    assert_eq!(third.store.get(&key(1)), Some(value(1)));
}

#[cfg(unix)]
#[test]
fn unreadable_store_is_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let cache = cache_of(tmp.path());
    build_store(&cache, true);
    let dir = store_dir(tmp.path());
    let files = [dir.join("conf"), dir.join("db")];
    let set_mode = |mode| {
        for f in &files {
            fs::set_permissions(f, fs::Permissions::from_mode(mode)).unwrap();
        }
    };
    set_mode(0o000);
    if fs::File::open(&files[0]).is_ok() {
        set_mode(0o644);
        eprintln!("note: permission bits do not deny this user (root?); nothing to check");
        return;
    }
    let (opened, events) = logged(|| open_store(&cache, &opts()));
    set_mode(0o644);
    assert_memory_with_one_warning(&opened, &events, &dir);
    let fallback = opened.fallback.unwrap();
    assert!(
        matches!(fallback, StoreFallback::Unopenable { .. }),
        "{fallback:?}"
    );
    assert!(
        fallback.to_string().contains("ermission denied"),
        "{fallback}"
    );
    let reopened = open_store(&cache, &opts());
    assert_eq!(lost_entries(&*reopened.store), 0, "nothing was deleted");
}

#[test]
fn cache_location_that_is_a_file_is_left_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().join(".repo-mapper");
    fs::write(&base, "someone else's file").unwrap();
    let (opened, events) = logged(|| open_store(&CacheLocation::Dir(base.clone()), &opts()));
    assert_memory_with_one_warning(&opened, &events, &base);
    let fallback = opened.fallback.unwrap();
    assert_eq!(
        fallback,
        StoreFallback::NotADirectory {
            path: base.clone(),
            is_file: true
        }
    );
    assert!(fallback.to_string().contains("is a file"), "{fallback}");
    assert_eq!(fs::read_to_string(&base).unwrap(), "someone else's file");
}

#[cfg(unix)]
#[test]
fn warnings_are_one_line_even_when_the_path_has_line_breaks() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("two\nlines");
    fs::create_dir(&root).unwrap();
    let cache = cache_of(&root);
    drop(open_store(&cache, &opts()));
    fs::write(store_dir(&root).join("conf"), b"\xde\xad not a sled config").unwrap();

    let (opened, events) = logged(|| open_store(&cache, &opts()));
    assert!(opened.fallback.is_none(), "recreated: {opened:?}");
    let warned = warnings(&events);
    assert_eq!(warned.len(), 1, "{events:?}");
    assert!(warned[0].contains("is damaged"), "{warned:?}");
    assert!(warned[0].contains("two lines"), "{warned:?}");
    for (_, message) in &events {
        assert!(!message.contains('\n'), "{message:?}");
    }

    // A fallback says why on one line too.
    drop(opened);
    let base = root.join("file\nhere");
    fs::write(&base, "").unwrap();
    let opened = open_store(&CacheLocation::Dir(base), &opts());
    let reason = opened.fallback.unwrap().to_string();
    assert!(
        reason.contains("file here") && !reason.contains('\n'),
        "{reason}"
    );
}

/// The issue's damage (100,000 zero bytes at a third of the data file), many times over:
/// whatever sled makes of it (refused at open, a panic, reads failing, entries silently
/// lost, nothing), the store opens, reads end, and a reset leaves it clean. Odd rounds damage
/// a store sled has no snapshot of yet, where it panics more often.
/// `cargo test -p repo-mapper-store --test it hostile:: -- --ignored`.
#[test]
#[ignore = "slow: 20 stores of 3,000 entries"]
fn issue_damage_never_escapes() {
    for round in 0..20 {
        let tmp = tempfile::tempdir().unwrap();
        let cache = cache_of(tmp.path());
        build_store(&cache, round % 2 == 0);
        let db = store_dir(tmp.path()).join("db");
        let mut bytes = fs::read(&db).unwrap();
        let at = bytes.len() / 3;
        let end = (at + 100_000).min(bytes.len());
        bytes[at..end].fill(0);
        fs::write(&db, bytes).unwrap();

        let opened = open_store(&cache, &opts());
        let store = &opened.store;
        let lost = lost_entries(&**store);
        let listed = store.keys().len();
        eprintln!(
            "round {round}: {} lost {lost} listed {listed} damaged {}",
            store.describe(),
            store.is_damaged()
        );
        store.reset().unwrap();
        assert!(!store.is_damaged() && store.keys().is_empty());
    }
}

/// Issue 24: a word file that is a directory cannot be read or replaced: the scan reads
/// the files' words from their text, gives the same words as a sound store, says once
/// that the cache cannot be written, and never panics.
#[test]
fn a_word_file_that_is_a_directory_costs_reading_the_words_again() {
    use repo_mapper_store::{ScanOptions, scan};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let file = root.join("a.py");
    fs::write(
        &file,
        "# keeps the session cookie\ndef redirect():\n    pass\n",
    )
    .unwrap();
    let files = vec![(file, "a.py".to_owned())];
    let run = || {
        let opened = open_store(&cache_of(root), &opts());
        scan(&*opened.store, &files, &ScanOptions::default(), &|_| {})
    };
    let sound = run();
    let words = store_dir(root).join("words");
    fs::remove_file(&words).unwrap();
    fs::create_dir_all(words.join("inside")).unwrap();
    let (out, events) = logged(run);
    assert_eq!(out.tags[0].terms, sound.tags[0].terms);
    assert!(!out.tags[0].terms.is_empty());
    let written: Vec<&str> = warnings(&events)
        .into_iter()
        .filter(|w| w.contains("cannot be written"))
        .collect();
    assert_eq!(written.len(), 1, "{events:?}");
    assert!(!written[0].contains('\n'));
    assert!(words.is_dir(), "a directory we did not make is left alone");
}
