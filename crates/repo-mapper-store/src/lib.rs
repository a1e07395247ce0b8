//! The tag store of repo-mapper: warm runs never re-parse an unchanged file.
//!
//! Second step of the pipeline (see `docs/ARCHITECTURE.md`). [`scan`] takes the file list,
//! returns stored tags for unchanged files and extracts the rest in parallel, writing them
//! back in batches. The store is a [`TagStore`]: [`SledStore`] on disk, [`MemoryStore`] for
//! `--no-cache` and as the fallback; [`open_store`] picks and recovers (behaviour.md §5).
//!
//! * **Keyed** by the dialect and the file's absolute path ([`entry_key`]); the entry holds the validation key
//!   ([`FileKey`]: the file's [`FileStamp`](repo_mapper_tags::FileStamp) — size, mtime,
//!   ctime, inode — and blake3 of the content) and the tags without paths. Stamp equal
//!   and settled → hit; else the content hash decides, so a `touch` or a `git checkout`
//!   that leaves the bytes alone does not re-parse, and a rewrite that puts the mtime
//!   back (`cp -p`) is read again.
//! * **Versioned** by directory name, `tags-v{format}-{queries fingerprint}`
//!   ([`store_dir_name`]): any change to the entry format or to any embedded query gives
//!   a new store, and stores of other versions are deleted when the cache is opened.
//! * **Located** in `{root}/.repo-mapper/` (with a `.gitignore` of `*`), or where the
//!   caller says ([`CacheLocation`]); the crate reads no environment variable.
//! * **Recovered**: corrupt at open → deleted and recreated once; damaged reads during a
//!   scan → reset and refilled from that scan; locked by another process for longer than
//!   the wait, unreadable, read-only or on a full disk → left on disk, memory for this run.
//!   One warning each; [`OpenedStore::fallback`] says which ([`StoreFallback`]).
//!
//! ```
//! use repo_mapper_store::{open_store, scan, CacheLocation, OpenOptions, ScanOptions};
//! use repo_mapper_tags::Dialect;
//!
//! let root = std::env::temp_dir().join(format!("repo-mapper-store-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&root)?;
//! std::fs::write(root.join("app.py"), "def main():\n    run()\n")?;
//! let files = vec![(root.join("app.py"), "app.py".to_owned())];
//! let location = CacheLocation::default_for(&root); // {root}/.repo-mapper
//! let opened = open_store(&location, &OpenOptions::default());
//! assert!(opened.fallback.is_none());
//! let opts = ScanOptions { dialect: Dialect::Default, prune_under: Some(&root), ..Default::default() };
//! let cold = scan(&*opened.store, &files, &opts, &|_| {});
//! assert_eq!((cold.stats.hits, cold.stats.misses), (0, 1));
//! assert!(cold.tags[0].defs.iter().any(|t| t.name == "main"));
//! let warm = scan(&*opened.store, &files, &opts, &|_| {});
//! assert_eq!((warm.stats.hits, warm.stats.misses), (1, 0));
//! drop(opened); // releases the store's lock for other processes
//! std::fs::remove_dir_all(&root)?;
//! # Ok::<(), std::io::Error>(())
//! ```

#![warn(missing_docs)]

mod codec;
mod scan;
mod store;

pub use scan::{Problem, ScanOptions, ScanOutput, ScanProgress, ScanStats, scan};
pub use store::{
    CacheLocation, DEFAULT_CACHE_DIR, MemoryStore, OpenOptions, OpenedStore, QUIET_LOG_TARGETS,
    StoreFallback, TagStore, catches_panic_at, open_store, store_dir_name,
};
