//! The [`TagStore`] trait and its two implementations, plus opening a store with every
//! recovery the SPEC asks for (§5.5).

use std::any::Any;
use std::collections::HashMap;
use std::fs;
use std::io;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use repo_mapper_tags::{Terms, queries_fingerprint};

use crate::codec::FORMAT;
use crate::words::{NewWords, WordFile, WordSlot};

/// Where tags are kept between runs: a key-value map from an entry key (the dialect and the
/// file's absolute path) to the encoded entry (see the
/// `codec` module). The scan sees only this trait.
///
/// Implementations are shared across rayon workers, hence `Send + Sync`. Write failures are
/// reported, never fatal: a store that cannot write still serves the scan. Read failures
/// look like missing entries; when they mean the data is damaged, [`is_damaged`] says so
/// and [`reset`] starts the store afresh.
///
/// [`is_damaged`]: TagStore::is_damaged
/// [`reset`]: TagStore::reset
pub trait TagStore: Send + Sync {
    /// The entry stored under `key`, if any. `None` too when it cannot be read.
    fn get(&self, key: &[u8]) -> Option<Vec<u8>>;
    /// Stores the entries, replacing older ones.
    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()>;
    /// Removes the entries of these keys.
    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()>;
    /// Every stored key (those read before a read error, if one stops the listing).
    fn keys(&self) -> Vec<Vec<u8>>;
    /// Makes the writes so far durable (a no-op in memory).
    fn flush(&self) -> io::Result<()>;
    /// A short description for diagnostics (`sled at …`, `memory`).
    fn describe(&self) -> String;
    /// True once a read of this store ([`get`](TagStore::get), [`keys`](TagStore::keys))
    /// hit an error that means its data is damaged; then entries are missing and every
    /// run would re-parse their files, so the caller should [`reset`](TagStore::reset) it.
    fn is_damaged(&self) -> bool {
        false
    }
    /// The code words kept for the content whose BLAKE3 hash is `hash` (the default
    /// dialect's, [`NewWords`]); `None` if none are kept or they cannot be read.
    fn words(&self, hash: &[u8; 32]) -> Option<Terms>;
    /// Keeps the code words of a scan's contents: the `new` ones, and those of `used` (by
    /// hash, kept before). When the scan was of the `whole` file list, the words of other
    /// contents may be dropped (a store bounds them); else they are kept.
    fn keep_words(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> io::Result<()>;
    /// Empties the store and leaves it usable: a damaged store on disk is deleted and
    /// created anew in the same place, and is no longer damaged. On error the store cannot
    /// be used any more (reads find nothing, writes fail): keep the tags in memory.
    fn reset(&self) -> io::Result<()>;
}

/// A store in memory only: for `--no-cache`, and the fallback when no on-disk store can be
/// opened.
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: RwLock<HashMap<Vec<u8>, Vec<u8>>>,
    words: RwLock<WordFile>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

impl TagStore for MemoryStore {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(key)
            .cloned()
    }

    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        self.map
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .extend(entries);
        Ok(())
    }

    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()> {
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        for k in keys {
            map.remove(&k);
        }
        Ok(())
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        self.map
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }

    fn flush(&self) -> io::Result<()> {
        Ok(())
    }

    fn describe(&self) -> String {
        "memory".to_owned()
    }

    fn words(&self, hash: &[u8; 32]) -> Option<Terms> {
        self.words
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(hash)
    }

    fn keep_words(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> io::Result<()> {
        let mut words = self.words.write().unwrap_or_else(PoisonError::into_inner);
        *words = WordFile::parse(words.successor(used, new, whole)).unwrap_or_default();
        Ok(())
    }

    fn reset(&self) -> io::Result<()> {
        self.map
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        *self.words.write().unwrap_or_else(PoisonError::into_inner) = WordFile::default();
        Ok(())
    }
}

/// A store on disk in a sled database.
///
/// sled locks its directory exclusively: keep a `SledStore` only as long as a scan needs
/// it, so other processes on the same repository can have it next.
///
/// A damaged database is not always refused by sled when it is opened: reads then fail
/// for the entries in the damaged pages. Such reads are logged once (at debug level),
/// count as misses, and set [`is_damaged`](TagStore::is_damaged); a panic inside sled
/// counts as damage too, never reaching the caller.
pub(crate) struct SledStore {
    /// `None` only after a [`reset`](TagStore::reset) that could not open a new database.
    db: RwLock<Option<sled::Db>>,
    dir: PathBuf,
    /// The code words, read from [`WORDS_FILE`] at the first lookup (shared with the
    /// pack's reader, which may have read them before sled was opened).
    words: Arc<WordSlot>,
    damaged: AtomicBool,
    said_read: AtomicBool,
    warned_write: AtomicBool,
}

impl std::fmt::Debug for SledStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SledStore").field("dir", &self.dir).finish()
    }
}

impl SledStore {
    /// Opens (creating if needed) the sled database in `dir`. A panic inside sled (it has
    /// some on damaged files) is returned as [`sled::Error::ReportableBug`].
    pub(crate) fn open(dir: &Path, words: Arc<WordSlot>) -> Result<SledStore, sled::Error> {
        Ok(SledStore {
            db: RwLock::new(Some(open_db(dir)?)),
            dir: dir.to_path_buf(),
            words,
            damaged: AtomicBool::new(false),
            said_read: AtomicBool::new(false),
            warned_write: AtomicBool::new(false),
        })
    }

    /// Runs `f` on the database under the read lock, a panic turned into an error.
    fn with_db<T>(&self, f: impl FnOnce(&sled::Db) -> sled::Result<T>) -> sled::Result<T> {
        let slot = self.db.read().unwrap_or_else(PoisonError::into_inner);
        let db = slot
            .as_ref()
            .ok_or_else(|| sled::Error::Io(io::Error::other("closed after a failed reset")))?;
        unpanicked(|| f(db))
    }

    /// Notes a failed read: damage if it means corruption, and one debug line per store.
    fn read_failed(&self, e: &sled::Error) {
        if is_corruption(e) {
            self.damaged.store(true, Ordering::Relaxed);
        }
        if !self.said_read.swap(true, Ordering::Relaxed) {
            tracing::debug!(
                "{}",
                one_line(&format!(
                    "tag cache {} cannot be read: {}",
                    self.dir.display(),
                    sled_text(e)
                ))
            );
        }
    }

    fn io_result(&self, r: sled::Result<()>) -> io::Result<()> {
        r.map_err(|e| {
            let text = one_line(&format!(
                "tag cache at {} cannot be written: {}",
                self.dir.display(),
                sled_text(&e)
            ));
            if !self.warned_write.swap(true, Ordering::Relaxed) {
                tracing::warn!("{text}");
            }
            io::Error::new(io::Error::from(e).kind(), text)
        })
    }

    /// Empties the database (its pack now holds what it held) in place, its lock held
    /// throughout: closing it to delete its files would let another process take the
    /// lock on files about to be deleted. The word file and the packs are not sled's.
    pub(crate) fn clear(&self) -> io::Result<()> {
        self.io_result(self.with_db(|db| {
            db.clear()?;
            db.flush().map(|_| ())
        }))
    }

    /// Deletes the database directory and opens a new database there.
    fn recreate(&self) -> io::Result<sled::Db> {
        let failed = |e: &dyn std::fmt::Display| {
            one_line(&format!(
                "cannot recreate the tag cache {}: {e}",
                self.dir.display()
            ))
        };
        remove_store_dir(&self.dir).map_err(|e| io::Error::new(e.kind(), failed(&e)))?;
        open_db(&self.dir).map_err(|e| {
            let text = failed(&sled_text(&e));
            io::Error::new(io::Error::from(e).kind(), text)
        })
    }
}

impl TagStore for SledStore {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        match self.with_db(|db| db.get(key)) {
            Ok(v) => v.map(|v| v.to_vec()),
            Err(e) => {
                self.read_failed(&e);
                None
            }
        }
    }

    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        let mut batch = sled::Batch::default();
        for (k, v) in entries {
            batch.insert(k, v);
        }
        self.io_result(self.with_db(|db| db.apply_batch(batch)))
    }

    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()> {
        let mut batch = sled::Batch::default();
        for k in keys {
            batch.remove(k);
        }
        self.io_result(self.with_db(|db| db.apply_batch(batch)))
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        // Stop at the first error: sled's iterator retries a failed step for ever.
        let mut keys = Vec::new();
        let listed = self.with_db(|db| {
            for k in db.iter().keys() {
                keys.push(k?.to_vec());
            }
            Ok(())
        });
        if let Err(e) = listed {
            self.read_failed(&e);
        }
        keys
    }

    fn flush(&self) -> io::Result<()> {
        self.io_result(self.with_db(|db| db.flush().map(|_| ())))
    }

    fn describe(&self) -> String {
        format!("sled at {}", self.dir.display())
    }

    fn words(&self, hash: &[u8; 32]) -> Option<Terms> {
        self.words.get(hash)
    }

    fn keep_words(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> io::Result<()> {
        self.words.keep(used, new, whole).map_err(|e| {
            let text = one_line(&format!(
                "tag cache at {} cannot be written: {e}",
                self.dir.display()
            ));
            if !self.warned_write.swap(true, Ordering::Relaxed) {
                tracing::warn!("{text}");
            }
            io::Error::new(e.kind(), text)
        })
    }

    fn is_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }

    fn reset(&self) -> io::Result<()> {
        let mut slot = self.db.write().unwrap_or_else(PoisonError::into_inner);
        close(slot.take());
        *slot = Some(self.recreate()?);
        self.words.empty();
        self.damaged.store(false, Ordering::Relaxed);
        self.said_read.store(false, Ordering::Relaxed);
        self.warned_write.store(false, Ordering::Relaxed);
        tracing::debug!(
            "{}",
            one_line(&format!("tag cache {} reset", self.dir.display()))
        );
        Ok(())
    }
}

impl Drop for SledStore {
    fn drop(&mut self) {
        close(
            self.db
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }
}

/// Log targets of the on-disk store's own diagnostics: sled logs through the `log` crate
/// (its storage layer was once the `pagecache` crate). What matters to a user the store
/// reports as its own (a warning, [`StoreFallback`]), so a program that forwards `log`
/// records keeps these off unless asked for them.
pub const QUIET_LOG_TARGETS: [&str; 2] = ["sled", "pagecache"];

/// Whether a panic raised at `location` is one the store catches: sled panics on some
/// damaged data files, and the store turns that into a damaged store (one warning, a
/// rebuild, or tags in memory). A program's panic hook may keep such a panic's default
/// report off stderr.
pub fn catches_panic_at(location: &std::panic::Location<'_>) -> bool {
    location.file().contains("/sled-")
}

/// The file of a store's code words, in its directory beside sled's files
/// ([`crate::words`]).
pub(crate) const WORDS_FILE: &str = "words";

/// The directory of a store's packs, one per root and dialect ([`crate::pack`]).
pub(crate) const PACKS_DIR: &str = "packs";

/// Opens the sled database in `dir` with our settings; a panic inside sled is an error.
///
/// Segments of 64 KiB rather than sled's 512 KiB: every open reads the last segment
/// again, and the store is smaller (Linux 6.1: 176 MiB against 213 MiB, at a cost of
/// about 10% more memory in a warm run; docs/performance.md).
fn open_db(dir: &Path) -> sled::Result<sled::Db> {
    let config = sled::Config::new()
        .path(dir)
        .mode(sled::Mode::LowSpace)
        .cache_capacity(32 * 1024 * 1024)
        .use_compression(true)
        .compression_factor(1)
        .segment_size(64 * 1024)
        .flush_every_ms(None);
    unpanicked(|| config.open())
}

/// Closes a database (flushing it), a panic inside sled while doing so ignored: on a
/// damaged database sled may panic where it expects its data to be sound.
fn close(db: Option<sled::Db>) {
    let _ = catch_unwind(AssertUnwindSafe(move || drop(db)));
}

/// Runs `f`, turning a panic into [`sled::Error::ReportableBug`] (which counts as damage).
fn unpanicked<T>(f: impl FnOnce() -> sled::Result<T>) -> sled::Result<T> {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|panic| Err(sled::Error::ReportableBug(panic_text(&*panic))))
}

fn panic_text(panic: &(dyn Any + Send)) -> String {
    let what = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("no message");
    format!("sled panicked: {what}")
}

/// Removes a store directory; one that does not exist is fine.
fn remove_store_dir(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether a sled error means the database is damaged (then deleting it loses nothing
/// that can still be read), as opposed to an environment problem such as permissions, a
/// read-only file system or a full disk, which deleting would not mend.
fn is_corruption(e: &sled::Error) -> bool {
    match e {
        sled::Error::Corruption { .. }
        | sled::Error::Unsupported(_)
        | sled::Error::ReportableBug(_)
        | sled::Error::CollectionNotFound(_) => true,
        sled::Error::Io(io) => matches!(
            io.kind(),
            io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof
        ),
    }
}

/// A sled error as text for our diagnostics: one line, without sled's empty backtrace.
fn sled_text(e: &sled::Error) -> String {
    match e {
        sled::Error::Corruption { at: Some(at), .. } => format!("corrupted data at {at:?}"),
        sled::Error::Corruption { at: None, .. } => "corrupted data".to_owned(),
        other => one_line(&other.to_string()),
    }
}

/// `text` on one line: line breaks (and other control characters) become single spaces.
pub(crate) fn one_line(text: &str) -> String {
    let parts: Vec<&str> = text
        .split(char::is_control)
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect();
    parts.join(" ")
}

/// Where the tag store lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheLocation {
    /// A cache directory (`{root}/.repo-mapper` by default); the store goes in a versioned
    /// subdirectory (see [`store_dir_name`]).
    Dir(PathBuf),
    /// Memory only (`--no-cache`).
    Memory,
}

impl CacheLocation {
    /// The default for a repository: `{root}/.repo-mapper`.
    pub fn default_for(root: &Path) -> CacheLocation {
        CacheLocation::Dir(root.join(DEFAULT_CACHE_DIR))
    }
}

/// Name of the default cache directory under a repository root. Distinct from Aider's
/// `.aider.tags.cache.v*`, so both tools can run on one repository.
pub const DEFAULT_CACHE_DIR: &str = ".repo-mapper";

/// The versioned store directory name, `tags-v{FORMAT}-{fingerprint}`: it changes whenever
/// the entry format or any embedded query changes, so stale tags are never served.
pub fn store_dir_name() -> String {
    format!("tags-v{FORMAT}-{:016x}", queries_fingerprint())
}

/// Options for [`open_store`].
///
/// A process that finds the store held by another waits for it rather than parsing every
/// file in memory: a warm holder lets go within about a second even on the Linux tree,
/// and a holder that is filling the store (a first scan) leaves a warm store behind,
/// while parsing alongside it would take both processes longer on the same cores.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OpenOptions {
    /// How long to wait for another process to release the store while its files do not
    /// change, before falling back to memory.
    pub lock_wait: Duration,
    /// How long to wait at most while they do change (the holder is writing).
    pub busy_wait: Duration,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            lock_wait: Duration::from_secs(10),
            busy_wait: Duration::from_secs(600),
        }
    }
}

impl OpenOptions {
    /// Waits `lock_wait` for a holder whose files do not change, and `busy_wait` at most
    /// for one that writes.
    pub fn waiting(lock_wait: Duration, busy_wait: Duration) -> OpenOptions {
        OpenOptions {
            lock_wait,
            busy_wait,
        }
    }
}

/// A store ready for a scan, and why it is in memory when it should not be.
pub struct OpenedStore {
    /// The store.
    pub store: Box<dyn TagStore>,
    /// Set when an on-disk store was asked for but memory is used instead; already logged
    /// as a warning.
    pub fallback: Option<StoreFallback>,
}

impl std::fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedStore")
            .field("store", &self.store.describe())
            .field("fallback", &self.fallback)
            .finish()
    }
}

/// Why [`open_store`] keeps tags in memory although a directory was asked for. Its
/// `Display` is the one-line warning.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreFallback {
    /// Another process held the store, its files unchanged for [`OpenOptions::lock_wait`]
    /// (or changing for longer than [`OpenOptions::busy_wait`]).
    Locked {
        /// The store directory.
        store: PathBuf,
    },
    /// The cache location exists and is not a directory; it is left alone.
    NotADirectory {
        /// The cache location.
        path: PathBuf,
        /// Whether it is a regular file.
        is_file: bool,
    },
    /// The cache directory cannot be created (permissions, read-only file system, …).
    Uncreatable {
        /// The cache directory.
        dir: PathBuf,
        /// The operating system's reason.
        detail: String,
    },
    /// The store is damaged and could not be recreated: it cannot be removed, or is still
    /// unreadable after recreating it.
    Corrupt {
        /// The store directory.
        store: PathBuf,
        /// What sled reported.
        detail: String,
        /// Why the damaged store could not be removed, if that is what failed.
        removal: Option<String>,
    },
    /// The store cannot be opened for another reason (permissions, read-only file system,
    /// full disk or quota); it is left as it is.
    Unopenable {
        /// The store directory.
        store: PathBuf,
        /// What sled reported.
        detail: String,
    },
    /// The cache directory is not used: someone else could change it
    /// ([`crate::untrusted_cache`]).
    Untrusted(crate::Untrusted),
}

impl std::fmt::Display for StoreFallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            StoreFallback::Locked { store } => format!(
                "the tag cache {} is in use by another process",
                store.display()
            ),
            StoreFallback::NotADirectory { path, is_file } => {
                let what = if *is_file {
                    "a file"
                } else {
                    "not a directory"
                };
                format!(
                    "the tag cache directory {} is {what}; it is left as it is",
                    path.display()
                )
            }
            StoreFallback::Uncreatable { dir, detail } => format!(
                "cannot create the tag cache directory {}: {detail}",
                dir.display()
            ),
            StoreFallback::Corrupt {
                store,
                detail,
                removal: Some(removal),
            } => format!(
                "the tag cache {} is damaged ({detail}) and cannot be removed: {removal}",
                store.display()
            ),
            StoreFallback::Corrupt { store, detail, .. } => format!(
                "the tag cache {} cannot be opened even after recreating it: {detail}",
                store.display()
            ),
            StoreFallback::Unopenable { store, detail } => format!(
                "the tag cache {} cannot be opened ({detail}); it is left as it is",
                store.display()
            ),
            StoreFallback::Untrusted(untrusted) => untrusted.to_string(),
        };
        f.write_str(&one_line(&text))
    }
}

impl std::error::Error for StoreFallback {}

/// Opens the tag store at `location`. Never fails:
///
/// * creates the cache directory with a `.gitignore` of `*`, and removes store directories
///   of other versions; a cache location that exists but is not a directory is left alone
///   and memory is used;
/// * when another process holds the store, retries while its files changed within
///   `opts.lock_wait` (for `opts.busy_wait` at most), then uses memory;
/// * when the store is damaged (sled reports corruption, an unreadable configuration or
///   format, or a panic, or one of sled's files in it is a directory), deletes and
///   recreates it once; if that fails too, uses memory;
/// * when it cannot be opened for any other reason (permission denied, read-only file
///   system, full disk or quota, …), leaves it untouched on disk and uses memory.
///
/// Each fallback logs one warning, on one line, naming the path, and is reported in
/// [`OpenedStore::fallback`].
pub fn open_store(location: &CacheLocation, opts: &OpenOptions) -> OpenedStore {
    let base = match location {
        CacheLocation::Memory => {
            return OpenedStore {
                store: Box::new(MemoryStore::new()),
                fallback: None,
            };
        }
        CacheLocation::Dir(base) => base,
    };
    match open_on_disk(base, opts) {
        Ok(store) => OpenedStore {
            store: Box::new(store),
            fallback: None,
        },
        Err(fallback) => {
            tracing::warn!("{fallback}; keeping tags in memory for this run");
            OpenedStore {
                store: Box::new(MemoryStore::new()),
                fallback: Some(fallback),
            }
        }
    }
}

/// Why sled would not open a store, as far as recovery is concerned.
enum OpenFailure {
    /// Another process holds it: wait.
    Locked,
    /// Its data is damaged: delete and recreate it.
    Corrupt,
    /// Anything else (permissions, read-only, disk full): leave it alone.
    Other,
}

fn classify(e: &sled::Error) -> OpenFailure {
    if is_lock_error(e) {
        OpenFailure::Locked
    } else if is_corruption(e) {
        OpenFailure::Corrupt
    } else {
        OpenFailure::Other
    }
}

/// [`classify`], and the text for the diagnostics, for an error opening the store in
/// `dir`. A store whose own files have the wrong shape (sled's `conf` or `db` a directory)
/// is damaged, whatever error sled gave: the directory is ours, and deleting it is the only
/// repair.
fn classify_at(e: &sled::Error, dir: &Path) -> (OpenFailure, String) {
    let failure = classify(e);
    if matches!(failure, OpenFailure::Other)
        && let Some(name) = misshapen_file(dir)
    {
        let why = format!("its {name} is a directory: {}", sled_text(e));
        return (OpenFailure::Corrupt, why);
    }
    (failure, sled_text(e))
}

/// The first of sled's files in the store directory `dir` that is a directory (through
/// symlinks) rather than a file.
fn misshapen_file(dir: &Path) -> Option<&'static str> {
    ["conf", "db"]
        .into_iter()
        .find(|name| fs::metadata(dir.join(name)).is_ok_and(|meta| meta.is_dir()))
}

fn open_on_disk(base: &Path, opts: &OpenOptions) -> Result<SledStore, StoreFallback> {
    let words = Arc::new(WordSlot::new(base.join(store_dir_name()).join(WORDS_FILE)));
    open_sharing(base, opts, words)
}

/// [`open_on_disk`], the store's word file read through `words`.
pub(crate) fn open_sharing(
    base: &Path,
    opts: &OpenOptions,
    words: Arc<WordSlot>,
) -> Result<SledStore, StoreFallback> {
    prepare_cache_dir(base)?;
    let name = store_dir_name();
    remove_other_versions(base, &name);
    crate::blobs::remove_stale_temps(base);
    let dir = base.join(&name);
    let mut wait = LockWait::new(&dir, opts);
    let mut recreated = false;
    loop {
        let e = match SledStore::open(&dir, Arc::clone(&words)) {
            Ok(store) => return Ok(store),
            Err(e) => e,
        };
        let (failure, why) = classify_at(&e, &dir);
        match failure {
            OpenFailure::Locked if wait.goes_on() => {
                std::thread::sleep(Duration::from_millis(25));
            }
            OpenFailure::Locked => return Err(StoreFallback::Locked { store: dir }),
            OpenFailure::Corrupt if !recreated => {
                recreated = true;
                recreate_damaged(&dir, &why)?;
            }
            OpenFailure::Corrupt => {
                return Err(StoreFallback::Corrupt {
                    store: dir,
                    detail: why,
                    removal: None,
                });
            }
            OpenFailure::Other => {
                return Err(StoreFallback::Unopenable {
                    store: dir,
                    detail: why,
                });
            }
        }
    }
}

/// How long a locked store is waited for: `lock_wait` since its files last changed, and
/// `busy_wait` at most in all.
struct LockWait<'a> {
    dir: &'a Path,
    started: Instant,
    changed: Instant,
    seen: Option<u64>,
    opts: &'a OpenOptions,
}

impl<'a> LockWait<'a> {
    fn new(dir: &'a Path, opts: &'a OpenOptions) -> LockWait<'a> {
        let now = Instant::now();
        LockWait {
            dir,
            started: now,
            changed: now,
            seen: activity(dir),
            opts,
        }
    }

    /// Whether to try again: the store's files changed within `lock_wait` (or it began
    /// that recently) and `busy_wait` has not run out.
    fn goes_on(&mut self) -> bool {
        let now = Instant::now();
        let seen = activity(self.dir);
        if seen != self.seen {
            self.seen = seen;
            self.changed = now;
        }
        now < self.changed + self.opts.lock_wait && now < self.started + self.opts.busy_wait
    }
}

/// A digest of the sizes and modification times of the store directory, sled's `db` and
/// `conf`, and its `blobs` directory (which a new or removed blob changes): it changes
/// when the holder writes. A handful of `stat`s, whatever the store holds.
fn activity(dir: &Path) -> Option<u64> {
    let mut digest = 0u64;
    for path in [
        dir.to_path_buf(),
        dir.join("db"),
        dir.join("conf"),
        dir.join("blobs"),
    ] {
        let Ok(meta) = fs::metadata(&path) else {
            continue;
        };
        let since = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
        let nanos = since.map_or(0, |t| t.as_nanos() as u64);
        digest = digest.wrapping_mul(31).wrapping_add(meta.len() ^ nanos);
    }
    fs::metadata(dir).ok().map(|_| digest)
}

/// Creates the cache directory and its `.gitignore`; refuses a path that is not a
/// directory (a file is never touched).
fn prepare_cache_dir(base: &Path) -> Result<(), StoreFallback> {
    if let Ok(meta) = fs::metadata(base)
        && !meta.is_dir()
    {
        return Err(StoreFallback::NotADirectory {
            path: base.to_owned(),
            is_file: meta.is_file(),
        });
    }
    fs::create_dir_all(base).map_err(|e| StoreFallback::Uncreatable {
        dir: base.to_owned(),
        detail: e.to_string(),
    })?;
    let gitignore = base.join(".gitignore");
    if fs::symlink_metadata(&gitignore).is_err() {
        // Best effort: the cache still works if this cannot be written. Replaced, never
        // written through: whatever is at the path is not followed.
        let _ = crate::replace_file(&gitignore, b"*\n");
    }
    Ok(())
}

/// Deletes a store sled found damaged when opening it, saying so in one warning (or, if it
/// cannot be deleted, in the fallback's warning only).
fn recreate_damaged(dir: &Path, why: &str) -> Result<(), StoreFallback> {
    remove_store_dir(dir).map_err(|rm| StoreFallback::Corrupt {
        store: dir.to_owned(),
        detail: why.to_owned(),
        removal: Some(rm.to_string()),
    })?;
    let text = format!(
        "tag cache {} is damaged ({why}); recreating it",
        dir.display()
    );
    tracing::warn!("{}", one_line(&text));
    Ok(())
}

fn is_lock_error(e: &sled::Error) -> bool {
    matches!(e, sled::Error::Io(io) if io.to_string().contains("could not acquire lock"))
}

/// Removes `tags-v*` directories other than `keep` (stores of older formats or queries).
fn remove_other_versions(base: &Path, keep: &str) {
    let Ok(entries) = fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("tags-v") && name != keep && entry.path().is_dir() {
            let path = entry.path();
            let text = match fs::remove_dir_all(&path) {
                Ok(()) => format!("removed stale tag cache {}", path.display()),
                Err(e) => format!("cannot remove stale tag cache {}: {e}", path.display()),
            };
            tracing::debug!("{}", one_line(&text));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io_error(kind: io::ErrorKind) -> sled::Error {
        sled::Error::Io(io::Error::from(kind))
    }

    #[test]
    fn only_damage_counts_as_corruption() {
        use io::ErrorKind::*;
        let damaged = [
            sled::Error::Corruption { at: None, bt: () },
            sled::Error::Unsupported("failed to parse persisted config".into()),
            sled::Error::ReportableBug("sled panicked: tried to serialize".into()),
            io_error(InvalidData),
            io_error(UnexpectedEof),
        ];
        for e in &damaged {
            assert!(matches!(classify(e), OpenFailure::Corrupt), "{e}");
        }
        let environment = [
            io_error(PermissionDenied),
            io_error(ReadOnlyFilesystem),
            io_error(StorageFull),
            io_error(QuotaExceeded),
            io_error(IsADirectory),
            io_error(NotADirectory),
            io_error(Other),
        ];
        for e in &environment {
            assert!(matches!(classify(e), OpenFailure::Other), "{e}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn os_errors_of_a_full_or_read_only_disk_are_not_corruption() {
        // ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EIO.
        for code in [28, 122, 30, 13, 1, 5] {
            let e = sled::Error::Io(io::Error::from_raw_os_error(code));
            assert!(matches!(classify(&e), OpenFailure::Other), "{e}");
        }
    }

    #[test]
    fn a_held_lock_is_waited_for() {
        let e = sled::Error::Io(io::Error::other(
            "could not acquire lock on \"/r/.repo-mapper/tags/db\": Os { code: 11 }",
        ));
        assert!(matches!(classify(&e), OpenFailure::Locked));
    }

    #[test]
    fn diagnostics_are_flattened_to_one_line() {
        assert_eq!(one_line("a\nb\r\n  c\t d "), "a b c d");
        assert_eq!(one_line("plain text"), "plain text");
        let e = sled::Error::Unsupported("first line\nsecond line".into());
        assert_eq!(sled_text(&e), "Unsupported: first line second line");
        let e = sled::Error::Corruption { at: None, bt: () };
        assert_eq!(sled_text(&e), "corrupted data");
    }

    #[test]
    fn a_panic_inside_sled_is_an_error() {
        let r: sled::Result<()> = unpanicked(|| panic!("tried to serialize"));
        let e = r.unwrap_err();
        assert!(matches!(classify(&e), OpenFailure::Corrupt));
        assert!(e.to_string().contains("tried to serialize"));
    }
}
