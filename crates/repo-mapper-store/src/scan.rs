//! The batch scan: cached tags for unchanged files, fresh extraction for the rest.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rayon::prelude::*;
use repo_mapper_tags::{Dialect, Language, Tag, extract_source, source_from_bytes};

use crate::TagStore;
use crate::codec::{self, FileKey};

/// Entries written to the store per batch.
const WRITE_BATCH: usize = 1024;

/// A file whose mtime is this close to the scan's start may still be changing within the
/// same mtime tick; its cached entry is trusted only if its content hash matches too
/// (git's "racy clean" rule).
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// What a scan did, for `--verbose` and progress reporting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Files asked for.
    pub files: usize,
    /// Files of no supported language (no tags, not stored).
    pub skipped: usize,
    /// Files served from the store with (mtime, size) unchanged.
    pub hits: usize,
    /// Files served from the store because their content hash matched although their mtime
    /// or size changed (a `touch`, a `git checkout`): not re-parsed.
    pub hash_hits: usize,
    /// Files parsed.
    pub misses: usize,
    /// Files that could not be read (vanished, unreadable, not a regular file): no tags.
    pub errors: usize,
    /// Stored entries removed by pruning.
    pub pruned: usize,
}

/// Tags of every file of a scan, in input order, and the counts.
#[derive(Debug, Default)]
pub struct ScanOutput {
    /// One list per input file, in input order; empty for skipped and unreadable files.
    pub tags: Vec<Vec<Tag>>,
    /// What happened.
    pub stats: ScanStats,
}

/// Options of a [`scan`].
#[derive(Debug, Clone, Default)]
pub struct ScanOptions<'a> {
    /// Which dialect's tags to extract; each dialect has its own entries in the store.
    pub dialect: Dialect,
    /// Remove stored entries for paths under this directory that are not in the scan's
    /// file list: set it when the list is the whole repository, so the store does not grow
    /// without bound as files are deleted.
    pub prune_under: Option<&'a Path>,
}

enum Outcome {
    Skipped,
    Error,
    Hit(Vec<Tag>),
    HashHit(Vec<Tag>, Vec<u8>),
    Miss(Vec<Tag>, Vec<u8>),
}

/// Returns the tags of `files` (each `(absolute path, path relative to the root)`): from
/// `store` where the file is unchanged, else extracted (in parallel) and written back in
/// batches. `progress` is called once per file done, from any thread.
///
/// Never fails: unreadable files get no tags and count as errors; a store that cannot be
/// written only logs (once).
pub fn scan(
    store: &dyn TagStore,
    files: &[(PathBuf, String)],
    opts: &ScanOptions<'_>,
    progress: &(dyn Fn() + Sync),
) -> ScanOutput {
    let started = SystemTime::now();
    let outcomes: Vec<Outcome> = files
        .par_iter()
        .map(|(fname, rel)| {
            let outcome = scan_one(store, fname, rel, opts.dialect, started);
            progress();
            outcome
        })
        .collect();

    let mut stats = ScanStats {
        files: files.len(),
        ..ScanStats::default()
    };
    let mut writes = Vec::new();
    let mut tags = Vec::with_capacity(files.len());
    for ((fname, _), outcome) in files.iter().zip(outcomes) {
        match outcome {
            Outcome::Skipped => {
                stats.skipped += 1;
                tags.push(Vec::new());
            }
            Outcome::Error => {
                stats.errors += 1;
                tags.push(Vec::new());
            }
            Outcome::Hit(t) => {
                stats.hits += 1;
                tags.push(t);
            }
            Outcome::HashHit(t, entry) => {
                stats.hash_hits += 1;
                writes.push((entry_key(opts.dialect, fname), entry));
                tags.push(t);
            }
            Outcome::Miss(t, entry) => {
                stats.misses += 1;
                writes.push((entry_key(opts.dialect, fname), entry));
                tags.push(t);
            }
        }
    }

    let mut write_failed = false;
    for chunk in chunks(writes, WRITE_BATCH) {
        if store.put_batch(chunk).is_err() {
            write_failed = true;
            break;
        }
    }
    if let Some(root) = opts.prune_under
        && !write_failed
    {
        stats.pruned = prune(store, files, root);
    }
    if !write_failed {
        let _ = store.flush();
    }
    tracing::debug!(
        store = %store.describe(),
        files = stats.files,
        hits = stats.hits,
        hash_hits = stats.hash_hits,
        misses = stats.misses,
        errors = stats.errors,
        skipped = stats.skipped,
        pruned = stats.pruned,
        "tag scan done"
    );
    ScanOutput { tags, stats }
}

fn scan_one(
    store: &dyn TagStore,
    fname: &Path,
    rel: &str,
    dialect: Dialect,
    started: SystemTime,
) -> Outcome {
    let Some(lang) = Language::for_path(fname, dialect) else {
        return Outcome::Skipped;
    };
    let meta = match std::fs::metadata(fname) {
        Ok(m) if m.is_file() => m,
        Ok(_) => {
            tracing::debug!(file = %fname.display(), "not a regular file: no tags");
            return Outcome::Error;
        }
        Err(e) => {
            tracing::debug!(file = %fname.display(), "cannot stat: {e}");
            return Outcome::Error;
        }
    };
    let (mtime_secs, mtime_nanos, racy) = match meta.modified() {
        Ok(t) => {
            let (s, n) = split_time(t);
            let racy = started
                .duration_since(t)
                .map_or(true, |age| age < RACY_WINDOW);
            (s, n, racy)
        }
        Err(_) => (0, 0, true),
    };
    let rel_fname: Arc<str> = Arc::from(rel);
    let fname_arc: Arc<Path> = Arc::from(fname);
    let key_bytes = entry_key(dialect, fname);
    let stored = store.get(&key_bytes);
    let stored_key = stored.as_deref().and_then(codec::decode_key);

    if let (Some(entry), Some(k)) = (&stored, stored_key)
        && !racy
        && k.mtime_secs == mtime_secs
        && k.mtime_nanos == mtime_nanos
        && k.size == meta.len()
        && let Some(tags) = codec::decode_tags(entry, &rel_fname, &fname_arc)
    {
        return Outcome::Hit(tags);
    }

    let bytes = match std::fs::read(fname) {
        Ok(b) => b,
        Err(e) => {
            tracing::debug!(file = %fname.display(), "cannot read: {e}");
            return Outcome::Error;
        }
    };
    let key = FileKey {
        mtime_secs,
        mtime_nanos,
        size: bytes.len() as u64,
        hash: *blake3::hash(&bytes).as_bytes(),
    };
    if let (Some(entry), Some(k)) = (stored, stored_key)
        && k.hash == key.hash
        && let Some(tags) = codec::decode_tags(&entry, &rel_fname, &fname_arc)
    {
        if k == key {
            // Racy but unchanged: nothing to write.
            return Outcome::Hit(tags);
        }
        return Outcome::HashHit(tags, codec::with_key(entry, &key));
    }
    let tags = match source_from_bytes(bytes) {
        Some(source) => extract_source(lang, &source, rel_fname, fname_arc, dialect),
        None => Vec::new(),
    };
    let entry = codec::encode(&key, &tags);
    Outcome::Miss(tags, entry)
}

/// Removes stored entries (of every dialect) under `root` whose path is not among
/// `files`; returns how many.
fn prune(store: &dyn TagStore, files: &[(PathBuf, String)], root: &Path) -> usize {
    let keep: HashSet<Vec<u8>> = files
        .iter()
        .flat_map(|(f, _)| ALL_DIALECTS.map(|d| entry_key(d, f)))
        .collect();
    let prefixes = ALL_DIALECTS.map(|d| entry_key(d, root));
    let stale: Vec<Vec<u8>> = store
        .keys()
        .into_iter()
        .filter(|k| prefixes.iter().any(|p| k.starts_with(p)) && !keep.contains(k))
        .collect();
    let n = stale.len();
    if n > 0 && store.remove_batch(stale).is_err() {
        return 0;
    }
    n
}

const ALL_DIALECTS: [Dialect; 2] = [Dialect::Default, Dialect::Aider];

fn dialect_tag(dialect: Dialect) -> u8 {
    match dialect {
        Dialect::Default => b'd',
        Dialect::Aider => b'a',
    }
}

/// The store key of a file's entry: a dialect byte, then the path's bytes (the OS encoding
/// on Unix, UTF-8 elsewhere). Dialects extract different tags from one file, so each has
/// its own entry.
pub fn entry_key(dialect: Dialect, path: &Path) -> Vec<u8> {
    let mut key = vec![dialect_tag(dialect)];
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        key.extend_from_slice(path.as_os_str().as_bytes());
    }
    #[cfg(not(unix))]
    {
        key.extend_from_slice(path.to_string_lossy().as_bytes());
    }
    key
}

fn split_time(t: SystemTime) -> (i64, u32) {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            d.subsec_nanos(),
        ),
        Err(e) => {
            let d = e.duration();
            (
                -i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                d.subsec_nanos(),
            )
        }
    }
}

fn chunks<T>(items: Vec<T>, size: usize) -> impl Iterator<Item = Vec<T>> {
    let mut items = items.into_iter().peekable();
    std::iter::from_fn(move || {
        items.peek()?;
        Some(items.by_ref().take(size).collect())
    })
}
