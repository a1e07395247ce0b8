//! The renderer's scope cache on disk, beside the tag store: files rendered by one run
//! are not parsed again by the next.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use repo_mapper_render::{ScopeCache, ScopeKey};
use repo_mapper_store::{BlobDir, CacheLocation};

/// The directory of the scope cache under the cache directory.
pub(crate) const SCOPES_DIR: &str = "scopes";

/// The scope cache of `location`: `None` in memory (`--no-cache`), where a run parses
/// each rendered file once anyway.
pub(crate) fn scope_cache(location: &CacheLocation) -> Option<Arc<dyn ScopeCache>> {
    match location {
        CacheLocation::Dir(dir) => Some(Arc::new(DiskScopes {
            blobs: BlobDir::new(dir.join(SCOPES_DIR)),
            said_failed: AtomicBool::new(false),
        })),
        CacheLocation::Memory => None,
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
