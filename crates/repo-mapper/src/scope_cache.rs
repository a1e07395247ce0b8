//! The renderer's scopes kept where it finds them before parsing: those the tag scan of
//! the same run took from its trees ([`ScanScopes`]), then the scope cache on disk, beside
//! the tag store (files rendered by one run are not parsed again by the next).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use repo_mapper_render::{Headers, ScopeCache, ScopeKey, Scopes};
use repo_mapper_store::{BlobDir, CacheLocation, Parsed};
use repo_mapper_tags::Dialect;

/// The directory of the scope cache under the cache directory.
pub(crate) const SCOPES_DIR: &str = "scopes";

/// How much text a scan takes scopes from, in bytes, before it takes no more: a walk over
/// the trees' lines (a few hundredths of their parse) costs less than the render's parse
/// of the files a map shows when the scan parses a repository of this size or less
/// (Django's 2,929 files, 19 MB, parsed cold); a larger cold scan stops paying for scopes
/// its map will hardly use.
const SCAN_SCOPES_MAX_TEXT: usize = 32 << 20;

/// The renderer's scope cache for `location`: the scan's scopes, then the disk (none in
/// memory, `--no-cache`, where a run parses each rendered file once anyway).
pub(crate) fn scope_cache(location: &CacheLocation, scan: Arc<ScanScopes>) -> Arc<dyn ScopeCache> {
    let disk = match location {
        CacheLocation::Dir(dir) => Some(DiskScopes {
            blobs: BlobDir::new(dir.join(SCOPES_DIR)),
            said_failed: AtomicBool::new(false),
        }),
        CacheLocation::Memory => None,
    };
    Arc::new(Layered { scan, disk })
}

/// The scopes a tag scan took from the trees it parsed ([`ScanScopes::take_from`], its
/// `on_parse`), by the key the renderer looks them up by, until the map that scan is for
/// is rendered ([`ScanScopes::clear`]).
#[derive(Debug)]
pub(crate) struct ScanScopes {
    dialect: Dialect,
    headers: Headers,
    kept: Mutex<HashMap<ScopeKey, Vec<u8>>>,
    /// Bytes of text scopes may still be taken from ([`SCAN_SCOPES_MAX_TEXT`] at most).
    budget: AtomicUsize,
}

impl ScanScopes {
    /// Scopes as a renderer in `dialect` showing `headers` needs them.
    pub(crate) fn new(dialect: Dialect, headers: Headers) -> ScanScopes {
        ScanScopes {
            dialect,
            headers,
            kept: Mutex::new(HashMap::new()),
            budget: AtomicUsize::new(SCAN_SCOPES_MAX_TEXT),
        }
    }

    /// Keeps the scopes of a file the scan parsed, within the budget. A text without a
    /// final line break is not the one the renderer parses (it adds one), so it is left.
    pub(crate) fn take_from(&self, parsed: Parsed<'_>) {
        let len = parsed.source.len();
        if !parsed.source.ends_with('\n')
            || (self.budget)
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |b| b.checked_sub(len))
                .is_err()
        {
            return;
        }
        let how = (parsed.language, self.dialect, self.headers);
        let key = ScopeKey::new(parsed.source, how.0, how.1, how.2);
        let scopes = Scopes::of_tree(parsed.source, parsed.tree, how.1, how.2).encode();
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.insert(key, scopes);
    }

    /// Drops the scopes kept and renews the budget: the map they were for is rendered.
    pub(crate) fn clear(&self) {
        let taken = std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner));
        self.budget.store(SCAN_SCOPES_MAX_TEXT, Ordering::Relaxed);
        drop(taken);
    }

    fn get(&self, key: &ScopeKey) -> Option<Vec<u8>> {
        let kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        kept.get(key).cloned()
    }
}

/// The scan's scopes in front of the disk's: scopes found among the scan's are written to
/// the disk as they are used, as scopes the renderer parsed for are.
#[derive(Debug)]
struct Layered {
    scan: Arc<ScanScopes>,
    disk: Option<DiskScopes>,
}

impl ScopeCache for Layered {
    fn get(&self, key: &ScopeKey) -> Option<Vec<u8>> {
        match self.scan.get(key) {
            Some(bytes) => {
                if let Some(disk) = &self.disk {
                    disk.put(key, &bytes);
                }
                Some(bytes)
            }
            None => self.disk.as_ref()?.get(key),
        }
    }

    fn put(&self, key: &ScopeKey, bytes: &[u8]) {
        if let Some(disk) = &self.disk {
            disk.put(key, bytes);
        }
    }
}

/// [`BlobDir`] as a [`ScopeCache`]. A write that fails costs a parse next time, nothing
/// more, so it is logged at debug level once: the tag store warns of the same cause.
#[derive(Debug)]
struct DiskScopes {
    blobs: BlobDir,
    said_failed: AtomicBool,
}

impl ScopeCache for DiskScopes {
    fn get(&self, key: &ScopeKey) -> Option<Vec<u8>> {
        self.blobs.get(&key.0)
    }

    fn put(&self, key: &ScopeKey, bytes: &[u8]) {
        if let Err(e) = self.blobs.put(&key.0, bytes)
            && !self.said_failed.swap(true, Ordering::Relaxed)
        {
            tracing::debug!(dir = %self.blobs.dir().display(), "scope cache not written: {e}");
        }
    }
}
