#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod blobs;
mod cached;
mod codec;
mod pack;
mod pack_names;
mod scan;
mod store;
mod trust;
mod words;

pub use blobs::{BlobDir, replace_file};
pub use cached::{PackAhead, scan_cached, stored_keys};
pub use scan::{OnParse, Parsed, Problem, ScanOptions, ScanOutput, ScanProgress, ScanStats, scan};
pub use store::{
    CacheLocation, DEFAULT_CACHE_DIR, MemoryStore, OpenOptions, OpenedStore, QUIET_LOG_TARGETS,
    StoreFallback, TagStore, catches_panic_at, open_store, store_dir_name,
};
pub use trust::{Untrusted, untrusted_cache};
pub use words::NewWords;
