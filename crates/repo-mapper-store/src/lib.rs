//! The tag store of repo-mapper: warm runs never re-parse an unchanged file.
//!
//! Second step of the pipeline (see `docs/ARCHITECTURE.md`). [`scan`] takes the file list,
//! returns stored tags for unchanged files and extracts the rest in parallel, writing them
//! back in batches. The store is a [`TagStore`]: [`SledStore`] on disk, [`MemoryStore`] for
//! `--no-cache` and as the fallback; [`open_store`] picks and recovers (SPEC §5).
//!
//! * **Keyed** by the dialect and the file's absolute path ([`entry_key`]); the entry holds the validation key
//!   ([`FileKey`]: mtime, size, blake3 of the content) and the tags without paths.
//!   (mtime, size) equal → hit; else the content hash decides, so a `touch` or a
//!   `git checkout` that leaves the bytes alone does not re-parse.
//! * **Versioned** by directory name, `tags-v{format}-{queries fingerprint}`
//!   ([`store_dir_name`]): any change to the entry format or to any embedded query gives
//!   a new store, and stores of other versions are deleted when the cache is opened.
//! * **Located** in `{root}/.repo-mapper/` (with a `.gitignore` of `*`), or where
//!   `REPO_MAPPER_CACHE_DIR` or the caller says ([`CacheLocation`]).
//! * **Recovered**: corrupt at open → deleted and recreated once; damaged reads during a
//!   scan → reset and refilled from that scan; locked by another process for longer than
//!   the wait, unreadable, read-only or on a full disk → left on disk, memory for this run.
//!   One warning each.
//!
//! ```no_run
//! use repo_mapper_store::{open_store, scan, CacheLocation, OpenOptions, ScanOptions};
//! use repo_mapper_tags::Dialect;
//!
//! let root = std::path::Path::new("/repo");
//! let files = vec![(root.join("src/app.py"), "src/app.py".to_owned())];
//! let opened = open_store(&CacheLocation::default_for(root), &OpenOptions::default());
//! let opts = ScanOptions { dialect: Dialect::Default, prune_under: Some(root), ..Default::default() };
//! let out = scan(&*opened.store, &files, &opts, &|| {});
//! println!("{} hits, {} parsed", out.stats.hits, out.stats.misses);
//! // Dropping the store releases its lock for other processes.
//! ```

#![warn(missing_docs)]

mod codec;
mod scan;
mod store;

pub use codec::{FORMAT, FileKey, Note};
pub use scan::{Problem, ScanOptions, ScanOutput, ScanStats, entry_key, scan};
pub use store::{
    CacheLocation, DEFAULT_CACHE_DIR, MemoryStore, OpenOptions, OpenedStore, SledStore, TagStore,
    open_store, store_dir_name,
};
