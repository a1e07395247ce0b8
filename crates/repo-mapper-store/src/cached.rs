//! A scan of a cache directory through the root's pack (issue 26): the files `stat`
//! vouches for against the pack never open sled, so a warm run takes no lock and waits on
//! no other process. sled holds what changed since the pack was written; a whole scan
//! that found enough of that writes a new pack and empties sled.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use repo_mapper_tags::{Dialect, Language};

use crate::TagStore;
use crate::pack::{ByContent, FileId, Pack, PackBuilder, file_id};
use crate::scan::{
    Layers, ScanOptions, ScanOutput, ScanProgress, Served, entry_key, scan, scan_layered,
};
use crate::store::{
    CacheLocation, MemoryStore, OpenOptions, PACKS_DIR, SledStore, StoreFallback, WORDS_FILE,
    one_line, open_sharing, store_dir_name,
};
use crate::words::{NewWords, WordSlot};

/// The tags of `files`, as [`scan`] gives them, from the store at `location`.
///
/// When `opts` names a root ([`ScanOptions::pack_root`], or
/// [`prune_under`](ScanOptions::prune_under)), the root's pack is read first, and sled is
/// opened only if a file is new, changed, or lacks its words there. Then, when another
/// process holds sled, this scan does not wait for it (as
/// [`open_store`](crate::open_store) would): the pack vouches for the files that did not
/// change, and the others are parsed in memory this once. A damaged pack is removed (one
/// warning) and the store serves the scan as if there were none. A root without a pack
/// of its own looks the files it must read up by content in another root's.
///
/// After a pruning scan (the whole repository's list) that held sled, the root's pack is
/// written anew if there was none (its entries kept in hand, not written to sled), if
/// sled served a share of the files (more than 1 in 64, at least 16), if the pack holds
/// more files than the list, or if it has no name table (the first layout): then sled
/// is emptied, its entries being in the pack.
///
/// Returns the scan's output and why sled was not used when it should have been (already
/// logged as a warning), as [`open_store`](crate::open_store) reports it.
pub fn scan_cached(
    location: &CacheLocation,
    open: &OpenOptions,
    files: &[(PathBuf, String)],
    opts: &ScanOptions<'_>,
    progress: &(dyn Fn(ScanProgress) + Sync),
) -> (ScanOutput, Option<StoreFallback>) {
    let CacheLocation::Dir(base) = location else {
        return (scan(&MemoryStore::new(), files, opts, progress), None);
    };
    let dir = base.join(store_dir_name());
    let root = opts.prune_under.or(opts.pack_root);
    let pack_path = root.map(|root| pack_path(base, root, opts.dialect));
    // Only a scan of the whole repository (the one that prunes) writes the pack.
    let writes_pack = opts.prune_under.is_some();
    let pack = pack_path
        .as_deref()
        .and_then(|path| read_pack(path, opts.ahead));
    // A root without a pack of its own (a new checkout) takes what it can from another's.
    let by_content = match (&pack_path, &pack) {
        (Some(own), None) => other_pack(own, opts.dialect),
        _ => None,
    };
    let recent_path = pack_path.as_deref().map(recent_pack_path);
    let recent = match (&pack, &recent_path) {
        (Some(_), Some(path)) => read_pack(path, None),
        _ => None,
    };
    // A whole scan of a root with its pack opens sled only for a repack that is due, or
    // when a scan of some files may have left changes there.
    let marker = dir.join(SLED_HOLDS_CHANGES);
    let without_store = writes_pack && pack.is_some() && !marker.exists();
    let served_elsewhere = pack.is_some() || by_content.is_some();
    let open = match served_elsewhere {
        true => OpenOptions::waiting(Duration::ZERO, Duration::ZERO),
        false => open.clone(),
    };
    let words = Arc::new(WordSlot::new(dir.join(WORDS_FILE)));
    let store = LazyStore::new(base, open, served_elsewhere, words);
    let layers = Layers {
        pack: pack.as_ref(),
        by_content: by_content.as_ref(),
        // The root's first pack, or enough to be read that a new one is due (see
        // `needs_repacking`): their entries go there, not through sled.
        hold_entries: writes_pack.then(|| match pack {
            None => 0,
            Some(_) if without_store => 0,
            Some(_) => repack_slack(files.len()),
        }),
        recent: recent.as_ref(),
        without_store,
    };
    let (out, served) = scan_layered(&store, layers, files, opts, progress);
    let due = writes_pack && needs_repacking(pack.as_ref(), &served, &out);
    let packs = RootPacks {
        pack: pack.as_ref(),
        path: pack_path.as_deref(),
        recent: recent.as_ref(),
        recent_path: recent_path.as_deref().filter(|_| without_store),
        marker: &marker,
    };
    keep_changes(&store, &packs, due, (files, &served), opts.dialect);
    (out, store.fallback())
}

/// A root's packs as a scan found them, and where they go.
struct RootPacks<'p> {
    pack: Option<&'p Pack>,
    path: Option<&'p Path>,
    /// The recent pack read.
    recent: Option<&'p Pack>,
    /// Where the recent pack is written: only after a scan the packs answered for.
    recent_path: Option<&'p Path>,
    /// The store's [`SLED_HOLDS_CHANGES`] file.
    marker: &'p Path,
}

/// What a scan leaves for the next: a new pack when one is `due` (sled opened for it,
/// then emptied, and the mark removed); else, after a scan the packs answered for, the
/// recent pack; the mark set when the scan wrote entries to sled.
fn keep_changes(
    store: &LazyStore<'_>,
    packs: &RootPacks<'_>,
    due: bool,
    scanned: (&[(PathBuf, String)], &[Served]),
    dialect: Dialect,
) {
    // sled is opened only for a repack that is due (a tuple would open it every time).
    let repack_with = |path, sled| repack(sled, packs.pack, scanned, dialect, path);
    let repacked = due
        && packs
            .path
            .zip(store.opened_sled())
            .is_some_and(|(path, sled)| repack_with(path, sled));
    if repacked {
        let _ = std::fs::remove_file(packs.marker);
    } else if store.wrote() {
        // Whole scans look in sled until the next repack.
        let _ = crate::replace_file(packs.marker, b"");
    }
    // A repack that failed or could not have sled: the next whole scan repacks.
    if !repacked && let Some(path) = packs.recent_path {
        keep_recent(path, packs.recent, scanned, dialect);
    }
}

/// The recent pack beside the pack at `pack`: the entries of the root's files changed
/// since the pack was written (a dot file: not a root's pack, never another root's).
fn recent_pack_path(pack: &Path) -> PathBuf {
    let name = pack.file_name().unwrap_or_default().to_string_lossy();
    pack.with_file_name(format!("{RECENT_PREFIX}{name}"))
}

/// How a recent pack's name begins.
const RECENT_PREFIX: &str = ".recent-";

/// The file in the store directory saying that sled may hold entries newer than the
/// packs (a scan of some files wrote them): whole scans then look in sled, until a
/// repack empties it.
const SLED_HOLDS_CHANGES: &str = ".sled-holds-changes";

/// Writes the recent pack at `path` anew with the entries a whole scan of `files` held
/// in hand or found there (what its root's pack does not vouch for), unless it holds
/// exactly those already; removes it when there are none. A failure is logged at debug
/// level: the next scan reads those files again.
fn keep_recent(
    path: &Path,
    recent: Option<&Pack>,
    (files, served): (&[(PathBuf, String)], &[Served]),
    dialect: Dialect,
) {
    let count = |f: fn(&Served) -> bool| served.iter().filter(|s| f(s)).count();
    let fresh = count(|s| matches!(s, Served::Fresh(_)));
    let from_recent = count(|s| matches!(s, Served::Recent(_)));
    if fresh == 0 && recent.map_or(0, Pack::len) == from_recent {
        // It holds exactly what the pack did not vouch for (or there is none and nothing).
        return;
    }
    let mut builder = PackBuilder::default();
    for ((fname, _), served) in files.iter().zip(served) {
        if let Served::Fresh(entry) | Served::Recent(entry) = served {
            builder.push(&entry_key(dialect, fname), entry);
        }
    }
    let done = match fresh + from_recent {
        0 => std::fs::remove_file(path),
        _ => builder.write(path),
    };
    if let Err(e) = done
        && e.kind() != std::io::ErrorKind::NotFound
    {
        let text = format!("recent tag pack {} not written: {e}", path.display());
        tracing::debug!("{}", one_line(&text));
    }
}

/// A root's pack read ahead of its scan, on a thread of its own: reading and unpacking
/// it (a tenth of a second on the Linux tree) then overlaps what the caller does first,
/// such as walking the tree. Give it to the scan ([`ScanOptions::ahead`]), which takes
/// the pack if the file is still the one read: a pack is never changed in place, only
/// replaced (a new file renamed over it), so the same device, inode and size mean the
/// same bytes. Otherwise, or if the scan reads another pack, the scan reads its own.
///
/// ```
/// use repo_mapper_store::{CacheLocation, PackAhead, ScanOptions, scan_cached};
/// # let dir = std::env::temp_dir().join(format!("rm-ahead-doc-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir)?;
/// let (root, cache) = (dir.join("repo"), CacheLocation::Dir(dir.join("cache")));
/// std::fs::create_dir_all(&root)?;
/// let ahead = PackAhead::start(&cache, &root, Default::default());
/// // ... walk the tree meanwhile ...
/// let opts = ScanOptions { pack_root: Some(&root), ahead: ahead.as_ref(), ..Default::default() };
/// let (out, _) = scan_cached(&cache, &Default::default(), &[], &opts, &|_| {});
/// assert!(out.tags.is_empty());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug)]
pub struct PackAhead {
    path: PathBuf,
    reading: Mutex<Option<JoinHandle<ReadAhead>>>,
}

/// What [`Pack::read`] gives.
type PackRead = Result<Option<Pack>, ()>;

/// The file's identity before it was read, and what was read.
type ReadAhead = (Option<FileId>, PackRead);

impl PackAhead {
    /// Starts reading the pack of `root`'s files of `dialect` in the cache at `location`;
    /// `None` for a cache in memory, or if no thread could be started.
    pub fn start(location: &CacheLocation, root: &Path, dialect: Dialect) -> Option<PackAhead> {
        let CacheLocation::Dir(base) = location else {
            return None;
        };
        let path = pack_path(base, root, dialect);
        let reading = path.clone();
        let handle = std::thread::Builder::new()
            .name("repo-mapper-pack".into())
            .spawn(move || Pack::read_identified(&reading))
            .ok()?;
        Some(PackAhead {
            path,
            reading: Mutex::new(Some(handle)),
        })
    }

    /// The pack as read ahead, if it is `path`'s and `path` is still the file read; once.
    fn take(&self, path: &Path) -> Option<PackRead> {
        if path != self.path {
            return None;
        }
        let handle = self.reading.lock().ok()?.take()?;
        let (id, read) = handle.join().ok()?;
        (id == file_id_of(path)).then_some(read)
    }
}

/// The identity of the file `path` names now.
fn file_id_of(path: &Path) -> Option<FileId> {
    std::fs::metadata(path).ok().map(|m| file_id(&m))
}

/// Every key the cache at `location` holds an entry under (sled's and every pack's, of
/// this version), sorted, without repeats: for tests and tools that look inside a cache.
/// Opens sled as [`open_store`](crate::open_store) does (waiting for another holder).
pub fn stored_keys(location: &CacheLocation) -> Vec<Vec<u8>> {
    let opened = crate::open_store(location, &OpenOptions::default());
    let mut keys = opened.store.keys();
    if let CacheLocation::Dir(base) = location {
        let packs = base.join(store_dir_name()).join(PACKS_DIR);
        for entry in std::fs::read_dir(packs).into_iter().flatten().flatten() {
            if let Ok(Some(pack)) = Pack::read(&entry.path()) {
                keys.extend(pack.keys().map(<[u8]>::to_vec));
            }
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The pack of the files under `root` in the cache directory `base`, for `dialect`.
fn pack_path(base: &Path, root: &Path, dialect: Dialect) -> PathBuf {
    let hash = blake3::hash(&entry_key(dialect, root));
    let name = &hash.to_hex()[..16];
    base.join(store_dir_name()).join(PACKS_DIR).join(name)
}

/// The most recently used sound pack of `dialect` beside `own` (another root's), by
/// content.
fn other_pack(own: &Path, dialect: Dialect) -> Option<ByContent> {
    let dir = own.parent()?;
    let mut others: Vec<(std::time::SystemTime, PathBuf)> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .filter(|(_, path)| path != own)
        .collect();
    others.sort_by_key(|o| std::cmp::Reverse(o.0));
    others.into_iter().find_map(|(_, path)| {
        let by_content = ByContent::new(Pack::read(&path).ok()??, dialect);
        (!by_content.is_empty()).then_some(by_content)
    })
}

/// The pack at `path`, if there is a sound one (as `ahead` read it, if it read this one);
/// a damaged one is removed, with a warning.
fn read_pack(path: &Path, ahead: Option<&PackAhead>) -> Option<Pack> {
    if path.is_dir() {
        // Ours to remove (a pack's name in the store directory), or no pack could be
        // written there ever again.
        let _ = std::fs::remove_dir_all(path);
    }
    let read = ahead
        .and_then(|ahead| ahead.take(path))
        .unwrap_or_else(|| Pack::read(path));
    match read {
        Ok(pack) => {
            // Used: kept before others when packs are pruned.
            if pack.is_some()
                && let Ok(file) =
                    crate::trust::no_follow(std::fs::File::options().write(true)).open(path)
            {
                let _ = file.set_modified(SystemTime::now());
            }
            pack
        }
        Err(()) => {
            let removed = match std::fs::remove_file(path) {
                Ok(()) => "removed it".to_owned(),
                Err(e) => format!("cannot remove it: {e}"),
            };
            let text = format!("the tag pack {} is damaged; {removed}", path.display());
            tracing::warn!("{}", one_line(&text));
            None
        }
    }
}

/// Whether the pack should be written anew: there is none, sled served more than a
/// 64th of the files with tags (at least 16), the pack holds more files than the list
/// has (some were deleted: pruned as soon as seen), or it has no name table.
fn needs_repacking(pack: Option<&Pack>, served: &[Served], out: &ScanOutput) -> bool {
    let Some(pack) = pack else {
        return true;
    };
    let packed = served.iter().filter(|s| matches!(s, Served::Pack)).count();
    let stats = &out.stats;
    let with_tags = stats.hits + stats.hash_hits + stats.misses;
    let slack = repack_slack(with_tags);
    with_tags - packed.min(with_tags) >= slack || pack.len() > with_tags || !pack.has_names()
}

/// How many files sled may serve (or a scan read) before the pack is written anew: a
/// 64th of `files`, at least 16.
fn repack_slack(files: usize) -> usize {
    (files / 64).max(16)
}

/// Writes the pack of `files` (each entry where the scan left it: sled, the pack, or in
/// hand from another root's pack), then empties sled; whether both were done. A failure
/// leaves sled as it is: nothing is lost.
fn repack(
    sled: &SledStore,
    pack: Option<&Pack>,
    (files, served): (&[(PathBuf, String)], &[Served]),
    dialect: Dialect,
    path: &Path,
) -> bool {
    let mut builder = PackBuilder::default();
    for ((fname, _), served) in files.iter().zip(served) {
        if Language::for_path(fname, dialect).is_none() {
            continue;
        }
        let key = entry_key(dialect, fname);
        let packed = || pack.and_then(|p| p.get(&key));
        match served {
            Served::None => {}
            Served::Fresh(value) | Served::Recent(value) => builder.push(&key, value),
            Served::Pack => packed().into_iter().for_each(|v| builder.push(&key, &v)),
            // sled's entry is the newer; the pack's still stands when the scan confirmed
            // it by content hash without rewriting it (a racy file).
            Served::Store => match sled.get(&key) {
                Some(value) => builder.push(&key, &value),
                None => packed().into_iter().for_each(|v| builder.push(&key, &v)),
            },
        }
    }
    let done = builder.write(path).and_then(|()| sled.clear());
    if let Err(e) = &done {
        let text = format!("tag pack {} not written: {e}", path.display());
        tracing::debug!("{}", one_line(&text));
    } else {
        // The new pack holds the recent pack's entries.
        let _ = std::fs::remove_file(recent_pack_path(path));
    }
    if let Some(dir) = path.parent() {
        prune_packs(dir, MAX_PACKS);
    }
    done.is_ok()
}

/// Packs kept in a store directory: the roots (checkouts) most recently used there.
const MAX_PACKS: usize = 8;

/// Removes all but the `keep` most recently used packs in `dir` (a read renews a pack's
/// modification time), and temporary files writers that died left there.
fn prune_packs(dir: &Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let mut packs = Vec::new();
    for entry in entries.flatten() {
        let Some(modified) = entry.metadata().ok().and_then(|m| m.modified().ok()) else {
            continue;
        };
        if crate::blobs::is_stale_temp(&entry.path(), now) {
            let _ = std::fs::remove_file(entry.path());
        } else if !entry.file_name().to_string_lossy().starts_with('.') {
            packs.push((modified, entry.path()));
        }
    }
    packs.sort_by_key(|p| std::cmp::Reverse(p.0));
    for (_, path) in packs.into_iter().skip(keep) {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(recent_pack_path(&path));
    }
}

/// sled, opened at the first use; memory if it cannot be.
struct LazyStore<'b> {
    base: &'b Path,
    open: OpenOptions,
    /// A store held by another process is not worth a warning (the pack serves).
    quiet_when_locked: bool,
    words: Arc<WordSlot>,
    opened: OnceLock<Opened>,
    /// Whether entries were written to sled.
    wrote: std::sync::atomic::AtomicBool,
}

enum Opened {
    Sled(SledStore),
    Memory(MemoryStore, Option<StoreFallback>),
}

impl<'b> LazyStore<'b> {
    fn new(base: &'b Path, open: OpenOptions, quiet: bool, words: Arc<WordSlot>) -> Self {
        LazyStore {
            base,
            open,
            quiet_when_locked: quiet,
            words,
            opened: OnceLock::new(),
            wrote: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether this scan wrote entries to sled.
    fn wrote(&self) -> bool {
        self.wrote.load(std::sync::atomic::Ordering::Relaxed) && self.sled().is_some()
    }

    fn store(&self) -> &dyn TagStore {
        match self.opened.get_or_init(|| self.open_now()) {
            Opened::Sled(sled) => sled,
            Opened::Memory(memory, _) => memory,
        }
    }

    fn open_now(&self) -> Opened {
        match open_sharing(self.base, &self.open, Arc::clone(&self.words)) {
            Ok(sled) => {
                // Read before the lock was ours: another holder may have replaced it.
                self.words.forget();
                Opened::Sled(sled)
            }
            Err(StoreFallback::Locked { store }) if self.quiet_when_locked => {
                let text = format!(
                    "the tag cache {} is in use by another process; the pack serves, \
                     changed files are parsed in memory",
                    store.display()
                );
                tracing::debug!("{}", one_line(&text));
                Opened::Memory(MemoryStore::new(), None)
            }
            Err(fallback) => {
                tracing::warn!("{fallback}; keeping tags in memory for this run");
                Opened::Memory(MemoryStore::new(), Some(fallback))
            }
        }
    }

    /// sled, opened now if this scan did not yet (`None` if it cannot be).
    fn opened_sled(&self) -> Option<&SledStore> {
        self.store();
        self.sled()
    }

    /// sled, if this scan opened it.
    fn sled(&self) -> Option<&SledStore> {
        match self.opened.get()? {
            Opened::Sled(sled) => Some(sled),
            Opened::Memory(..) => None,
        }
    }

    fn fallback(&self) -> Option<StoreFallback> {
        match self.opened.get()? {
            Opened::Memory(_, fallback) => fallback.clone(),
            Opened::Sled(_) => None,
        }
    }
}

impl TagStore for LazyStore<'_> {
    fn get(&self, key: &[u8]) -> Option<Vec<u8>> {
        self.store().get(key)
    }

    fn put_batch(&self, entries: Vec<(Vec<u8>, Vec<u8>)>) -> std::io::Result<()> {
        self.wrote.store(true, std::sync::atomic::Ordering::Relaxed);
        self.store().put_batch(entries)
    }

    fn remove_batch(&self, keys: Vec<Vec<u8>>) -> std::io::Result<()> {
        self.store().remove_batch(keys)
    }

    fn keys(&self) -> Vec<Vec<u8>> {
        self.store().keys()
    }

    fn flush(&self) -> std::io::Result<()> {
        self.store().flush()
    }

    fn describe(&self) -> String {
        match self.opened.get() {
            Some(_) => self.store().describe(),
            None => format!("pack in {}", self.base.display()),
        }
    }

    fn is_damaged(&self) -> bool {
        self.opened.get().is_some() && self.store().is_damaged()
    }

    /// From the word file, read without sled's lock.
    fn words(&self, hash: &[u8; 32]) -> Option<repo_mapper_tags::Terms> {
        self.words.get(hash)
    }

    /// Through sled if this scan opened it, in memory if the cache cannot be used; else
    /// (the packs answered for it, or another process holds sled) straight to the word
    /// files, without sled's lock: a writer racing another loses words at worst, which
    /// costs reading their files again.
    fn keep_words(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> std::io::Result<()> {
        match self.opened.get() {
            Some(Opened::Sled(sled)) => return sled.keep_words(used, new, whole),
            // A cache that cannot be used (not another holder): memory only.
            Some(Opened::Memory(memory, Some(_))) => return memory.keep_words(used, new, whole),
            None | Some(Opened::Memory(_, None)) => {}
        }
        self.words.keep(used, new, whole).inspect_err(|e| {
            let text = format!("code words not kept in {}: {e}", self.base.display());
            tracing::debug!("{}", one_line(&text));
        })
    }

    fn reset(&self) -> std::io::Result<()> {
        self.store().reset()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-entry pack of `value` at the pack path of `root` in the cache `base`.
    fn write_pack(base: &Path, root: &Path, value: &[u8]) -> PathBuf {
        let path = pack_path(base, root, Dialect::Default);
        let mut b = PackBuilder::default();
        b.push(b"k", value);
        b.write(&path).unwrap();
        path
    }

    /// A cache directory, and a root `r` in it.
    fn a_root() -> (tempfile::TempDir, PathBuf, CacheLocation) {
        let dir = tempfile::tempdir().unwrap();
        let (root, cache) = (dir.path().join("r"), CacheLocation::Dir(dir.path().into()));
        (dir, root, cache)
    }

    /// `ahead`'s read, once its thread has finished (it is not taken).
    fn wait(ahead: &PackAhead) {
        while !ahead
            .reading
            .lock()
            .unwrap()
            .as_ref()
            .unwrap()
            .is_finished()
        {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_pack_without_names_is_written_anew() {
        let entries = vec![(b"k".to_vec(), b"v".to_vec())];
        let old = crate::pack::parsed(&crate::pack::first_layout(&entries)).unwrap();
        let mut b = PackBuilder::default();
        b.push(b"k", b"v");
        let new = crate::pack::parsed(&b.finish().unwrap()).unwrap();
        let mut out = ScanOutput::default();
        out.stats.hits = 1;
        let served = [Served::Pack];
        assert!(needs_repacking(Some(&old), &served, &out));
        assert!(!needs_repacking(Some(&new), &served, &out));
    }

    #[test]
    fn a_pack_read_ahead_is_taken_once_by_a_scan_of_its_path() {
        let (dir, root, cache) = a_root();
        let path = write_pack(dir.path(), &root, b"one");
        let ahead = PackAhead::start(&cache, &root, Dialect::Default).unwrap();
        assert!(ahead.take(&path.with_extension("other")).is_none());
        let pack = ahead.take(&path).unwrap().unwrap().unwrap();
        assert_eq!(pack.get(b"k").as_deref(), Some(&b"one"[..]));
        assert!(ahead.take(&path).is_none(), "taken once");
        assert!(PackAhead::start(&CacheLocation::Memory, &root, Dialect::Default).is_none());
    }

    #[test]
    fn a_pack_replaced_after_it_was_read_ahead_is_not_taken() {
        let (dir, root, cache) = a_root();
        let path = write_pack(dir.path(), &root, b"old");
        let ahead = PackAhead::start(&cache, &root, Dialect::Default).unwrap();
        wait(&ahead);
        // Replaced as packs are (a new file renamed over it): another inode.
        write_pack(dir.path(), &root, b"new!");
        assert!(ahead.take(&path).is_none());
        let pack = read_pack(&path, Some(&ahead)).unwrap();
        assert_eq!(pack.get(b"k").as_deref(), Some(&b"new!"[..]));
    }

    #[test]
    fn a_pack_written_after_reading_ahead_found_none_is_not_missed() {
        let (dir, root, cache) = a_root();
        let ahead = PackAhead::start(&cache, &root, Dialect::Default).unwrap();
        wait(&ahead);
        let path = write_pack(dir.path(), &root, b"late");
        let pack = read_pack(&path, Some(&ahead)).unwrap();
        assert_eq!(pack.get(b"k").as_deref(), Some(&b"late"[..]));
    }

    fn aged(path: &Path, secs_ago: u64) {
        std::fs::write(path, b"x").unwrap();
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(secs_ago))
            .unwrap();
    }

    #[test]
    fn packs_are_kept_by_recent_use_and_old_temporary_files_removed() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..10 {
            aged(&dir.path().join(format!("pack{i}")), 10 * i);
        }
        aged(&dir.path().join(".tmp-1-0"), 7200);
        aged(&dir.path().join(".tmp-2-0"), 10);
        prune_packs(dir.path(), MAX_PACKS);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected: Vec<String> = (0..8).map(|i| format!("pack{i}")).collect();
        expected.insert(0, ".tmp-2-0".to_owned());
        assert_eq!(left, expected);
    }
}
