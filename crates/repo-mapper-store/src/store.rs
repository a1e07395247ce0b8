//! The [`TagStore`] trait and its two implementations, plus opening a store with every
//! recovery the SPEC asks for (§5.5).

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use repo_mapper_tags::queries_fingerprint;

use crate::codec::FORMAT;

/// Where tags are kept between runs: a key-value map from an entry key (the dialect and the
/// file's absolute path, see [`entry_key`](crate::entry_key)) to the encoded entry (see the
/// `codec` module). The scan sees only this trait.
///
/// Implementations are shared across rayon workers, hence `Send + Sync`. Write failures are
/// reported, never fatal: a store that cannot write still serves the scan.
pub trait TagStore: Send + Sync {
    /// The entry stored under `key`, if any.
    fn get(&self, key: &[u8]) -> Option<Vec<u8>>;
    /// Stores the entries, replacing older ones.
    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()>;
    /// Removes the entries of these keys.
    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()>;
    /// Every stored key.
    fn keys(&self) -> Vec<Vec<u8>>;
    /// Makes the writes so far durable (a no-op in memory).
    fn flush(&self) -> io::Result<()>;
    /// A short description for diagnostics (`sled at …`, `memory`).
    fn describe(&self) -> String;
}

/// A store in memory only: for `--no-cache`, and the fallback when no on-disk store can be
/// opened.
#[derive(Debug, Default)]
pub struct MemoryStore {
    map: RwLock<HashMap<Vec<u8>, Vec<u8>>>,
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
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        self.map
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .extend(entries);
        Ok(())
    }

    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()> {
        let mut map = self.map.write().unwrap_or_else(|e| e.into_inner());
        for k in keys {
            map.remove(&k);
        }
        Ok(())
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        self.map
            .read()
            .unwrap_or_else(|e| e.into_inner())
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
}

/// A store on disk in a sled database.
///
/// sled locks its directory exclusively: keep a `SledStore` only as long as a scan needs
/// it, so other processes on the same repository can have it next.
pub struct SledStore {
    db: sled::Db,
    dir: PathBuf,
    warned_write: AtomicBool,
}

impl std::fmt::Debug for SledStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SledStore").field("dir", &self.dir).finish()
    }
}

impl SledStore {
    /// Opens (creating if needed) the sled database in `dir`.
    pub fn open(dir: &Path) -> Result<SledStore, sled::Error> {
        let db = sled::Config::new()
            .path(dir)
            .mode(sled::Mode::LowSpace)
            .cache_capacity(32 * 1024 * 1024)
            .use_compression(true)
            .compression_factor(1)
            .flush_every_ms(None)
            .open()?;
        Ok(SledStore {
            db,
            dir: dir.to_path_buf(),
            warned_write: AtomicBool::new(false),
        })
    }

    /// The database directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Bytes the database takes on disk.
    pub fn size_on_disk(&self) -> u64 {
        self.db.size_on_disk().unwrap_or(0)
    }

    fn io_result(&self, r: sled::Result<()>) -> io::Result<()> {
        r.map_err(|e| {
            if !self.warned_write.swap(true, Ordering::Relaxed) {
                tracing::warn!("tag cache at {} cannot be written: {e}", self.dir.display());
            }
            io::Error::other(e.to_string())
        })
    }
}

impl TagStore for SledStore {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        match self.db.get(key) {
            Ok(v) => v.map(|v| v.to_vec()),
            Err(e) => {
                tracing::debug!("tag cache read failed: {e}");
                None
            }
        }
    }

    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> io::Result<()> {
        let mut batch = sled::Batch::default();
        for (k, v) in entries {
            batch.insert(k, v);
        }
        self.io_result(self.db.apply_batch(batch))
    }

    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> io::Result<()> {
        let mut batch = sled::Batch::default();
        for k in keys {
            batch.remove(k);
        }
        self.io_result(self.db.apply_batch(batch))
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        self.db
            .iter()
            .keys()
            .filter_map(Result::ok)
            .map(|k| k.to_vec())
            .collect()
    }

    fn flush(&self) -> io::Result<()> {
        let r = self.db.flush().map(|_| ());
        self.io_result(r)
    }

    fn describe(&self) -> String {
        format!("sled at {}", self.dir.display())
    }
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
    /// The default for a repository: `{root}/.repo-mapper`, unless the environment variable
    /// `REPO_MAPPER_CACHE_DIR` names another directory.
    pub fn default_for(root: &Path) -> CacheLocation {
        match std::env::var_os("REPO_MAPPER_CACHE_DIR") {
            Some(dir) if !dir.is_empty() => CacheLocation::Dir(PathBuf::from(dir)),
            _ => CacheLocation::Dir(root.join(DEFAULT_CACHE_DIR)),
        }
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
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// How long to wait for another process to release the store before falling back to
    /// memory.
    pub lock_wait: Duration,
}

impl Default for OpenOptions {
    fn default() -> OpenOptions {
        OpenOptions {
            lock_wait: Duration::from_millis(500),
        }
    }
}

/// A store ready for a scan, and why it is in memory when it should not be.
pub struct OpenedStore {
    /// The store.
    pub store: Box<dyn TagStore>,
    /// Set when an on-disk store was asked for but memory is used instead; already logged
    /// as a warning.
    pub fallback_reason: Option<String>,
}

impl std::fmt::Debug for OpenedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedStore")
            .field("store", &self.store.describe())
            .field("fallback_reason", &self.fallback_reason)
            .finish()
    }
}

/// Opens the tag store at `location`. Never fails:
///
/// * creates the cache directory with a `.gitignore` of `*`, and removes store directories
///   of other versions;
/// * when another process holds the store, retries for `opts.lock_wait`, then uses memory;
/// * when the store is corrupt or unreadable, deletes and recreates it once; if that fails
///   too (read-only repository, full disk), uses memory.
///
/// Each fallback logs one warning and is reported in [`OpenedStore::fallback_reason`].
pub fn open_store(location: &CacheLocation, opts: &OpenOptions) -> OpenedStore {
    let base = match location {
        CacheLocation::Memory => {
            return OpenedStore {
                store: Box::new(MemoryStore::new()),
                fallback_reason: None,
            };
        }
        CacheLocation::Dir(base) => base,
    };
    match open_on_disk(base, opts) {
        Ok(store) => OpenedStore {
            store: Box::new(store),
            fallback_reason: None,
        },
        Err(reason) => {
            tracing::warn!("{reason}; keeping tags in memory for this run");
            OpenedStore {
                store: Box::new(MemoryStore::new()),
                fallback_reason: Some(reason),
            }
        }
    }
}

fn open_on_disk(base: &Path, opts: &OpenOptions) -> Result<SledStore, String> {
    fs::create_dir_all(base).map_err(|e| {
        format!(
            "cannot create the tag cache directory {}: {e}",
            base.display()
        )
    })?;
    let gitignore = base.join(".gitignore");
    if !gitignore.exists() {
        // Best effort: the cache still works if this cannot be written.
        let _ = fs::write(&gitignore, "*\n");
    }
    let name = store_dir_name();
    remove_other_versions(base, &name);
    let dir = base.join(&name);

    let deadline = std::time::Instant::now() + opts.lock_wait;
    let mut recreated = false;
    loop {
        match SledStore::open(&dir) {
            Ok(store) => return Ok(store),
            Err(e) if is_lock_error(&e) => {
                if std::time::Instant::now() >= deadline {
                    return Err(format!(
                        "the tag cache {} is in use by another process",
                        dir.display()
                    ));
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            Err(e) if !recreated => {
                tracing::warn!(
                    "tag cache {} is unusable ({e}); recreating it",
                    dir.display()
                );
                recreated = true;
                if let Err(rm) = fs::remove_dir_all(&dir)
                    && rm.kind() != io::ErrorKind::NotFound
                {
                    return Err(format!(
                        "the tag cache {} is unusable ({e}) and cannot be removed: {rm}",
                        dir.display()
                    ));
                }
            }
            Err(e) => {
                return Err(format!(
                    "the tag cache {} cannot be opened even after recreating it: {e}",
                    dir.display()
                ));
            }
        }
    }
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
            match fs::remove_dir_all(entry.path()) {
                Ok(()) => tracing::debug!("removed stale tag cache {name}"),
                Err(e) => tracing::debug!("cannot remove stale tag cache {name}: {e}"),
            }
        }
    }
}
