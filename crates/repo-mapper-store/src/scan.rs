//! The batch scan: cached tags for unchanged files, fresh extraction for the rest.

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use rayon::prelude::*;
use repo_mapper_tags::{
    CountedTags, CutShort, Dialect, FileStamp, Language, Limits, StatTime, Terms,
    extract_source_parsed, source_from_bytes,
};
use tree_sitter::Tree;

use crate::codec::{self, FileKey, Note};
use crate::pack::{ByContent, Pack};
use crate::{NewWords, TagStore};

/// Entries written to the store per batch.
const WRITE_BATCH: usize = 1024;

/// What a scan did, for `--verbose` and progress reporting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Files asked for.
    pub files: usize,
    /// Files of no supported language (no tags, not stored).
    pub skipped: usize,
    /// Files larger than [`ScanOptions::max_file_size`]: not read, no tags.
    pub too_large: usize,
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
    /// Whether the store was found damaged and rebuilt from this scan's tags.
    pub rebuilt: bool,
}

/// Why a file of a scan has no tags or fewer than its text holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// The file could not be read (vanished, no permission, not a regular file).
    Unreadable(String),
    /// The file is not valid UTF-8 (behaviour.md §13.6: no tags).
    NotUtf8,
    /// Extraction ran out of time: the tags found before, or none.
    CutShort(CutShort),
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Problem::Unreadable(why) => write!(f, "cannot be read ({why})"),
            Problem::NotUtf8 => f.write_str("is not valid UTF-8"),
            Problem::CutShort(CutShort::Parse) => f.write_str("took too long to parse"),
            Problem::CutShort(CutShort::Query) => {
                f.write_str("took too long to query; only the tags found first are used")
            }
            Problem::CutShort(CutShort::Depth) => f.write_str(
                "is nested over 60,000 levels deep; only the tags above that depth are used",
            ),
        }
    }
}

impl From<Note> for Problem {
    fn from(note: Note) -> Problem {
        match note {
            Note::NotUtf8 => Problem::NotUtf8,
            Note::CutShort(cut) => Problem::CutShort(cut),
        }
    }
}

/// Tags of every file of a scan, in input order, and the counts.
#[derive(Debug, Default)]
pub struct ScanOutput {
    /// One per input file, in input order (definitions as tags, references counted);
    /// empty for skipped and unreadable files.
    pub tags: Vec<CountedTags>,
    /// What happened.
    pub stats: ScanStats,
    /// The files with a problem, as (index in the input, problem), in input order; cached
    /// files report the problem found when they were parsed.
    pub problems: Vec<(usize, Problem)>,
}

/// A file a scan parsed, as [`ScanOptions::on_parse`] sees it before its tree is freed.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Parsed<'p> {
    /// The file, as the caller named it.
    pub path: &'p Path,
    /// The language it was parsed as.
    pub language: Language,
    /// The text parsed (as [`source_from_bytes`] gives it).
    pub source: &'p str,
    /// The parse of `source` as `language`.
    pub tree: &'p Tree,
}

/// Options of a [`scan`].
#[derive(Debug, Clone, Default)]
pub struct ScanOptions<'a> {
    /// Which dialect's tags to extract; each dialect has its own entries in the store.
    pub dialect: Dialect,
    /// Remove stored entries for paths under this directory that are not in the scan's
    /// file list: set it when the list is the whole repository, so the store does not grow
    /// without bound as files are deleted. [`scan_cached`](crate::scan_cached) then also
    /// writes the root's pack anew when it is due.
    pub prune_under: Option<&'a Path>,
    /// The root whose pack serves the files ([`scan_cached`](crate::scan_cached)): set it
    /// when they are every file the caller maps under it (not for a few changed files:
    /// reading the pack would cost more than they do). `prune_under` implies it.
    pub pack_root: Option<&'a Path>,
    /// The bound on the work one file may cost.
    pub limits: Limits,
    /// Files larger than this many bytes are not read (no tags; counted in
    /// [`ScanStats::too_large`]). `None`: no limit.
    pub max_file_size: Option<u64>,
    /// Each file's stamp as the caller's `stat` just read it (symlinks followed), in the
    /// order of the files: the scan then stats none itself. `None`: it stats each.
    pub stamps: Option<&'a [FileStamp]>,
    /// Leave the code words of stored files unread ([`CountedTags::terms`] empty): the
    /// caller reads none (a map without a message). Files parsed now still get theirs,
    /// and the store keeps every file's words.
    pub skip_words: bool,
    /// The root's pack, read ahead ([`PackAhead`](crate::PackAhead)): the scan takes it
    /// if it is the pack it reads and the file was not replaced since.
    pub ahead: Option<&'a crate::PackAhead>,
    /// Called, on the scan's threads, with each file parsed and its syntax tree: a caller
    /// that renders files in the same run takes from the tree what it would parse them
    /// again for.
    pub on_parse: Option<OnParse<'a>>,
}

/// What [`ScanOptions::on_parse`] calls.
#[derive(Clone, Copy)]
pub struct OnParse<'a>(pub &'a (dyn Fn(Parsed<'_>) + Sync));

impl std::fmt::Debug for OnParse<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnParse(..)")
    }
}

/// One file's result before the counts are made.
enum Outcome {
    Skipped,
    TooLarge,
    Error(String),
    /// From the store (its entry rewritten if its key changed, see [`Writer`]).
    Stored {
        tags: CountedTags,
        note: Option<Note>,
        hash_hit: bool,
        words: WordUse,
        /// Where its entry is, for the root's next pack.
        served: Served,
    },
    /// Extracted (its entry written, see [`Writer`], or kept in hand).
    Parsed {
        tags: CountedTags,
        note: Option<Note>,
        words: WordUse,
        /// Where its entry is, for the root's next pack.
        served: Served,
    },
}

/// Where a file's entry is after a scan, for the root's next pack.
#[derive(Debug, Default)]
pub(crate) enum Served {
    /// Nowhere: a file skipped, too large or unreadable has no entry.
    None,
    /// In the store.
    #[default]
    Store,
    /// In the root's pack, which served it without the store.
    Pack,
    /// In the root's recent pack ([`Layers::recent`]), which served it: its entry here,
    /// for the next recent pack or the root's next pack.
    Recent(Vec<u8>),
    /// Here, not in the store: the entry made or rewritten now (or another root's for
    /// the same content, given this file's stamp) while the root's first pack is built
    /// ([`Layers::hold_entries`]).
    Fresh(Vec<u8>),
}

impl Outcome {
    /// Where its entry is (taken: left [`Served::Store`]).
    fn take_served(&mut self) -> Served {
        match self {
            Outcome::Stored { served, .. } | Outcome::Parsed { served, .. } => {
                std::mem::take(served)
            }
            _ => Served::None,
        }
    }

    /// Whether finding it asked the store (or will write to it): all but what the root's
    /// packs served.
    fn uses_store(&self) -> bool {
        match self {
            Outcome::Stored { served, .. } => !matches!(served, Served::Pack | Served::Recent(_)),
            Outcome::Parsed { .. } => true,
            _ => false,
        }
    }
}

/// Where a file's code words came from (the default dialect's; Aider's has none).
enum WordUse {
    None,
    /// The store's, kept for the content with this hash.
    Kept([u8; 32]),
    /// Read from the text now, to be kept.
    New(NewWords),
}

/// The words a scan used and found, for [`TagStore::keep_words`].
#[derive(Default)]
struct WordLog {
    used: Vec<[u8; 32]>,
    new: Vec<NewWords>,
}

impl WordLog {
    fn add(&mut self, words: WordUse) {
        match words {
            WordUse::None => {}
            WordUse::Kept(hash) => self.used.push(hash),
            WordUse::New(new) => self.new.push(new),
        }
    }

    /// Keeps the words in `store` if the scan found new ones (a scan that found none
    /// leaves the store's word file as it is); `whole`: the scan was of every file.
    fn keep(self, store: &dyn TagStore, whole: bool) {
        if !self.new.is_empty() {
            let _ = store.keep_words(&self.used, &self.new, whole);
        }
    }
}

/// How far a [`scan`] is in reading the files the store cannot vouch for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScanProgress {
    /// Files read (and parsed, unless their content hash matched the store) so far.
    pub read: usize,
    /// Files to read: new, or changed since the store saw them (0 on a warm run).
    pub to_read: usize,
}

/// Returns the tags of `files` (each `(absolute path, path relative to the root)`): from
/// `store` where the file is unchanged, else extracted (in parallel) and written back in
/// batches.
///
/// Two passes: every file is first checked against the store by `stat` alone (the first
/// few it cannot vouch for are read then, so that the files an edit changed are parsed
/// while the check goes on); then the other files it cannot vouch for are read, and
/// parsed unless their content hash matches.
/// `progress` is called once when the second pass starts (`read` counting the few files
/// the first read, so a caller knows how much parsing is ahead before the bulk of it
/// happens) and once per file read after that, from any thread.
///
/// Never fails: unreadable files get no tags and count as errors; a store that cannot be
/// written only logs (once); a store found damaged while reading is reset and refilled
/// with this scan's tags, so the next run finds it whole.
pub fn scan(
    store: &dyn TagStore,
    files: &[(PathBuf, String)],
    opts: &ScanOptions<'_>,
    progress: &(dyn Fn(ScanProgress) + Sync),
) -> ScanOutput {
    scan_layered(store, Layers::default(), files, opts, progress).0
}

/// What a scan looks in besides its store.
#[derive(Clone, Copy, Default)]
pub(crate) struct Layers<'a> {
    /// The root's pack: looked in first.
    pub(crate) pack: Option<&'a Pack>,
    /// Another root's pack, by content: for a file neither holds, once read and hashed.
    pub(crate) by_content: Option<&'a ByContent>,
    /// Keep the entries made or rewritten in hand ([`Served::Fresh`]) rather than write
    /// them to the store when at least this many files must be read: the root's pack
    /// will be written anew from them (`Some(0)`: its first), and sled, which an emptying
    /// leaves its pages as garbage, stays small.
    pub(crate) hold_entries: Option<usize>,
    /// The root's recent pack: the entries of files changed since its pack was written,
    /// looked in after the pack.
    pub(crate) recent: Option<&'a Pack>,
    /// The packs answer for the store, which is never opened: a file they do not vouch
    /// for is read (confirmed by hash against their entry, else parsed) and its entry
    /// kept in hand; the words found are kept without the store's lock. The store's
    /// entries (which only scans of some files write) are not looked at: each would be
    /// checked by stamp and hash anyway, so leaving one unread costs a parse, no more.
    pub(crate) without_store: bool,
}

/// Where a file's stored entry, to be confirmed by its content hash, came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StoredIn {
    Store,
    Pack,
    Recent,
}

/// [`scan`], each file looked up in `layers.pack` first (`stat` vouching for the pack's
/// entry settles it without `store`), then in `store`, then, once read, by its content in
/// `layers.by_content`; with which files the pack served. When it served every file that
/// has tags, `store` is not touched at all.
pub(crate) fn scan_layered(
    store: &dyn TagStore,
    layers: Layers<'_>,
    files: &[(PathBuf, String)],
    opts: &ScanOptions<'_>,
    progress: &(dyn Fn(ScanProgress) + Sync),
) -> (ScanOutput, Vec<Served>) {
    let started = SystemTime::now();
    // Stamps given for another list are not used.
    let stamps = opts.stamps.filter(|s| s.len() == files.len());
    let early = AtomicUsize::new(0);
    let check_one = |i: usize| {
        let (fname, rel) = &files[i];
        let given = stamps.map(|s| s[i]);
        let checked = check(store, &layers, (fname, rel, given), opts, started);
        read_early(checked, &early, (opts, layers.by_content), store)
    };
    // The files changed last first: an edited file is among them, and its parse then
    // starts at once instead of when a thread's share of the list reaches it.
    let last = stamps.map_or_else(Vec::new, |s| changed_last(s, EARLY_READS));
    let check_all = || -> Vec<Checked> {
        let (first, mut checked) = rayon::join(
            || {
                last.par_iter()
                    .map(|&i| (i, check_one(i)))
                    .collect::<Vec<_>>()
            },
            || {
                (0..files.len())
                    .into_par_iter()
                    .map(|i| match last.contains(&i) {
                        true => Checked::Done(Outcome::Skipped),
                        false => check_one(i),
                    })
                    .collect::<Vec<_>>()
            },
        );
        for (i, c) in first {
            checked[i] = c;
        }
        checked
    };
    let mut checked = check_all();
    // Reads of the store happen in the first pass only: a store found damaged there is
    // reset and checked against again (now empty), so every file is parsed and stored.
    let rebuild = store.is_damaged() && reset(store);
    if rebuild {
        checked = check_all();
    }
    let mut writer = Writer::new(store, opts.dialect);
    let count = |read_early: bool| {
        let counted = |c: &&Checked| match c {
            Checked::Read(..) => read_early,
            Checked::Unvouched(_) => !read_early,
            Checked::Done(_) => false,
        };
        checked.iter().filter(counted).count()
    };
    let early = count(true);
    let reads = Reads {
        early,
        all: early + count(false),
    };
    writer.hold = layers.hold_entries.is_some_and(|least| reads.all >= least);
    let how = (opts, layers.by_content);
    let mut outcomes = read_unvouched(checked, how, (progress, reads), &writer);
    let store_used = !layers.without_store && outcomes.iter().any(Outcome::uses_store);
    let served: Vec<Served> = outcomes.iter_mut().map(Outcome::take_served).collect();
    let mut out = ScanOutput {
        stats: ScanStats {
            files: files.len(),
            rebuilt: rebuild,
            ..ScanStats::default()
        },
        ..ScanOutput::default()
    };
    let mut words = WordLog::default();
    for (i, outcome) in outcomes.into_iter().enumerate() {
        account(&mut out, &mut words, i, outcome);
    }
    if store_used {
        out.stats.pruned = finish_store(store, writer, words, files, opts);
    } else if layers.without_store {
        words.keep(store, opts.prune_under.is_some());
    }
    tracing::debug!(
        store = %store.describe(),
        stats = ?out.stats,
        problems = out.problems.len(),
        "tag scan done"
    );
    (out, served)
}

/// After a scan that used the store: the last writes, the words, pruning, a flush; how
/// many entries pruning removed.
fn finish_store(
    store: &dyn TagStore,
    writer: Writer<'_>,
    words: WordLog,
    files: &[(PathBuf, String)],
    opts: &ScanOptions<'_>,
) -> usize {
    let wrote = writer.wrote();
    if !writer.finish() {
        return 0;
    }
    // Only a scan of the whole list (the one that prunes) may drop others' words.
    words.keep(store, opts.prune_under.is_some());
    let pruned = match opts.prune_under {
        Some(root) => prune_unless_clean(store, files, root),
        // Entries outside a pruned list may have been added: the next walk prunes.
        None if wrote => {
            forget_clean_list(store);
            0
        }
        None => 0,
    };
    let _ = store.flush();
    pruned
}

/// How many files the first pass of [`scan`] reads as it finds them unvouched, instead of
/// leaving them to the second: a run after an edit parses the edited files while the
/// other threads go on checking the rest.
const EARLY_READS: usize = 8;

/// `checked`, read now if it is unvouched and among the first [`EARLY_READS`] files
/// found so.
fn read_early(
    checked: Checked,
    early: &AtomicUsize,
    (opts, by_content): (&ScanOptions<'_>, Option<&ByContent>),
    store: &dyn TagStore,
) -> Checked {
    let Checked::Unvouched(file) = checked else {
        return checked;
    };
    let nth = early.fetch_add(1, Ordering::Relaxed);
    if nth >= EARLY_READS {
        return Checked::Unvouched(file);
    }
    let path = Arc::clone(&file.names.abs);
    Checked::Read(file.read(opts, by_content, store), path)
}

/// The (at most) `k` files whose stamps say they changed last (status or content, the
/// later of the two), newest first.
fn changed_last(stamps: &[FileStamp], k: usize) -> Vec<usize> {
    let mut last: Vec<(StatTime, usize)> = Vec::with_capacity(k + 1);
    for (i, s) in stamps.iter().enumerate() {
        let changed = s.ctime.max(s.mtime);
        if last.len() == k && last.last().is_none_or(|&(t, _)| t >= changed) {
            continue;
        }
        let at = last.partition_point(|&(t, _)| t >= changed);
        last.insert(at, (changed, i));
        last.truncate(k);
    }
    last.into_iter().map(|(_, i)| i).collect()
}

/// The most files a task of the second pass takes.
const MAX_TASK: usize = 1024;

/// How many files a scan reads: in all, and of those in its first pass.
#[derive(Clone, Copy)]
struct Reads {
    all: usize,
    early: usize,
}

/// The second pass of [`scan`]: places the entries the first pass made, and reads (in
/// parallel) every file it left unvouched (looking its content up in `by_content` before
/// parsing it); every file's outcome, in order.
fn read_unvouched(
    checked: Vec<Checked>,
    (opts, by_content): (&ScanOptions<'_>, Option<&ByContent>),
    (progress, reads): (&(dyn Fn(ScanProgress) + Sync), Reads),
    writer: &Writer<'_>,
) -> Vec<Outcome> {
    let to_read = reads.all;
    progress(ScanProgress {
        read: reads.early,
        to_read,
    });
    let read = AtomicUsize::new(reads.early);
    // Tasks of about one file to read each: a thread never holds files to read that an
    // idle one could take (a cold run's last files waited on one core).
    let task = (checked.len() / to_read.max(1)).clamp(1, MAX_TASK);
    checked
        .into_par_iter()
        .with_max_len(task)
        .map(|c| match c {
            Checked::Done(outcome) => outcome,
            Checked::Read(outcome, path) => writer.place_made(outcome, &path),
            Checked::Unvouched(file) => {
                let path = Arc::clone(&file.names.abs);
                let outcome = file.read(opts, by_content, writer.store);
                let read = read.fetch_add(1, Ordering::Relaxed) + 1;
                progress(ScanProgress { read, to_read });
                writer.place_made(outcome, &path)
            }
        })
        .collect()
}

/// Resets a damaged store; whether it is usable again (else it is left for this run).
fn reset(store: &dyn TagStore) -> bool {
    match store.reset() {
        Ok(()) => {
            tracing::warn!("the tag cache {} was damaged; rebuilt it", store.describe());
            true
        }
        Err(e) => {
            tracing::warn!(
                "the tag cache {} is damaged and cannot be rebuilt: {e}",
                store.describe()
            );
            false
        }
    }
}

/// Adds one file's outcome to `out`, and its words' source to `words`.
fn account(out: &mut ScanOutput, words: &mut WordLog, i: usize, outcome: Outcome) {
    let (tags, note) = match outcome {
        Outcome::Skipped => {
            out.stats.skipped += 1;
            (CountedTags::default(), None)
        }
        Outcome::TooLarge => {
            out.stats.too_large += 1;
            (CountedTags::default(), None)
        }
        Outcome::Error(why) => {
            out.stats.errors += 1;
            out.problems.push((i, Problem::Unreadable(why)));
            (CountedTags::default(), None)
        }
        Outcome::Stored {
            tags,
            note,
            hash_hit,
            words: used,
            ..
        } => {
            if hash_hit {
                out.stats.hash_hits += 1;
            } else {
                out.stats.hits += 1;
            }
            words.add(used);
            (tags, note)
        }
        Outcome::Parsed {
            tags,
            note,
            words: new,
            ..
        } => {
            out.stats.misses += 1;
            words.add(new);
            (tags, note)
        }
    };
    if let Some(note) = note {
        out.problems.push((i, note.into()));
    }
    out.tags.push(tags);
}

/// Entries on their way to the store, written [`WRITE_BATCH`] at a time by whichever
/// thread fills a batch, so that a cold scan never holds every entry at once. After a
/// failed write nothing more is written, and the scan neither prunes nor flushes.
struct Writer<'s> {
    store: &'s dyn TagStore,
    dialect: Dialect,
    pending: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
    /// An entry was queued.
    queued: AtomicBool,
    failed: AtomicBool,
    /// Entries are not written but kept in hand ([`Layers::hold_entries`] says when).
    hold: bool,
}

impl<'s> Writer<'s> {
    fn new(store: &'s dyn TagStore, dialect: Dialect) -> Self {
        Writer {
            store,
            dialect,
            pending: Mutex::new(Vec::new()),
            queued: AtomicBool::new(false),
            failed: AtomicBool::new(false),
            hold: false,
        }
    }

    /// `outcome` of the file at `path` with the entry it made ([`Served::Fresh`], as
    /// [`Unvouched::read`] leaves it) placed.
    fn place_made(&self, mut outcome: Outcome, path: &Path) -> Outcome {
        if let Outcome::Stored { served, .. } | Outcome::Parsed { served, .. } = &mut outcome
            && let Served::Fresh(entry) = served
        {
            *served = self.place(path, std::mem::take(entry));
        }
        outcome
    }

    /// The entry of the file at `path`, queued (`None`), or given back to be kept in hand
    /// ([`Served::Fresh`]) when the writer holds entries.
    fn place(&self, path: &Path, entry: Vec<u8>) -> Served {
        if self.hold {
            return Served::Fresh(entry);
        }
        self.push(path, entry);
        Served::Store
    }

    /// Queues the entry of the file at `path`; writes the batch if it is full.
    fn push(&self, path: &Path, entry: Vec<u8>) {
        self.queued.store(true, Ordering::Relaxed);
        let key = entry_key(self.dialect, path);
        let full = {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            pending.push((key, entry));
            (pending.len() >= WRITE_BATCH).then(|| std::mem::take(&mut *pending))
        };
        if let Some(batch) = full {
            self.write(batch);
        }
    }

    fn write(&self, batch: Vec<(Vec<u8>, Vec<u8>)>) {
        if !self.failed.load(Ordering::Relaxed) && self.store.put_batch(batch).is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
    }

    /// Whether any entry was queued.
    fn wrote(&self) -> bool {
        self.queued.load(Ordering::Relaxed)
    }

    /// Writes what is left; whether every write succeeded.
    fn finish(self) -> bool {
        let rest =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        if !rest.is_empty() {
            self.write(rest);
        }
        !self.failed.load(Ordering::Relaxed)
    }
}

/// A file after the first pass of [`scan`].
enum Checked {
    /// Its outcome is known: skipped, unreadable, or vouched for by `stat`.
    Done(Outcome),
    /// Read in the first pass ([`EARLY_READS`]): its outcome, the entry it made not
    /// placed yet ([`Writer::place_made`]), and the file.
    Read(Outcome, Arc<Path>),
    /// It must be read: new, changed, or racy.
    Unvouched(Unvouched),
}

/// What the second pass needs of a file the store could not vouch for.
struct Unvouched {
    lang: Language,
    stat: Stat,
    names: Names,
    stored: Option<(Vec<u8>, StoredIn)>,
}

/// First pass, one file: its outcome if `stat` and the store settle it, else what reading
/// it needs.
fn check(
    store: &dyn TagStore,
    layers: &Layers<'_>,
    (fname, rel, given): (&Path, &str, Option<FileStamp>),
    opts: &ScanOptions<'_>,
    started: SystemTime,
) -> Checked {
    let Some(lang) = Language::for_path(fname, opts.dialect) else {
        return Checked::Done(Outcome::Skipped);
    };
    let stat = match given {
        Some(stamp) => Stat::given(stamp, started),
        None => match Stat::of(fname, started) {
            Ok(stat) => stat,
            Err(why) => return Checked::Done(Outcome::Error(why)),
        },
    };
    if opts.max_file_size.is_some_and(|max| stat.stamp.size > max) {
        return Checked::Done(Outcome::TooLarge);
    }
    let names = Names {
        rel: Arc::from(rel),
        abs: Arc::from(fname),
    };
    let key = entry_key(opts.dialect, fname);
    let pack = layers.pack;
    let named = pack.and_then(|p| p.get_named(&key));
    if let Some(mut hit) = named.and_then(|(e, side)| trusted_by_stat(e, &stat, &names, side))
        && add_kept_words(store, opts, &mut hit)
    {
        if let Outcome::Stored { served, .. } = &mut hit {
            *served = Served::Pack;
        }
        return Checked::Done(hit);
    }
    let in_recent = layers.recent.and_then(|p| p.get(&key)).map(Cow::into_owned);
    if let Some(entry) = &in_recent
        && let Some(mut hit) = trusted_by_stat(entry, &stat, &names, None)
        && add_kept_words(store, opts, &mut hit)
    {
        if let Outcome::Stored { served, .. } = &mut hit {
            *served = Served::Recent(entry.clone());
        }
        return Checked::Done(hit);
    }
    let stored = changed_entry(store, layers, &key, in_recent);
    if let Some((entry, StoredIn::Store)) = &stored
        && let Some(mut hit) = trusted_by_stat(entry, &stat, &names, None)
        && add_kept_words(store, opts, &mut hit)
    {
        return Checked::Done(hit);
    }
    Checked::Unvouched(Unvouched {
        lang,
        stat,
        names,
        stored,
    })
}

/// The entry of a file neither pack vouches for by stat, and where it is: the store's
/// (unless the packs answer for it), which a scan of some files wrote last, else the
/// recent pack's (`in_recent`), else the pack's, whole (it may keep it stripped of its
/// strings' bytes).
fn changed_entry(
    store: &dyn TagStore,
    layers: &Layers<'_>,
    key: &[u8],
    in_recent: Option<Vec<u8>>,
) -> Option<(Vec<u8>, StoredIn)> {
    let in_store = (!layers.without_store).then(|| store.get(key)).flatten();
    if let Some(entry) = in_store {
        return Some((entry, StoredIn::Store));
    }
    if let Some(entry) = in_recent {
        return Some((entry, StoredIn::Recent));
    }
    let in_pack = layers.pack.and_then(|p| p.get(key));
    in_pack.map(|entry| (entry.into_owned(), StoredIn::Pack))
}

impl Unvouched {
    /// One file read: the stored tags if the content hash matches, else a fresh
    /// extraction (its tree shown to [`ScanOptions::on_parse`]). An entry made or
    /// rewritten now is left in the outcome as [`Served::Fresh`], for
    /// [`Writer::place_made`].
    fn read(
        mut self,
        opts: &ScanOptions<'_>,
        by_content: Option<&ByContent>,
        store: &dyn TagStore,
    ) -> Outcome {
        let bytes = match std::fs::read(&*self.names.abs) {
            Ok(b) => b,
            Err(e) => return Outcome::Error(e.to_string()),
        };
        let key = self.stat.key_of(&bytes);
        let stored = self.stored.take();
        let source = stored.as_ref().map(|(entry, source)| match source {
            StoredIn::Store => Served::Store,
            StoredIn::Pack => Served::Pack,
            StoredIn::Recent => Served::Recent(entry.clone()),
        });
        let confirmed = match stored.and_then(|(e, _)| confirmed_by_hash(e, &key, &self.names)) {
            Some((mut hit, rewrite)) => {
                if let Outcome::Stored { served, .. } = &mut hit {
                    *served = match rewrite {
                        Some(entry) => Served::Fresh(entry),
                        // Where it was: its entry stands.
                        None => source.unwrap_or_default(),
                    };
                }
                Some(hit)
            }
            None => by_content.and_then(|c| self.found_elsewhere(c, &key)),
        };
        if let Some(mut hit) = confirmed {
            if !add_kept_words(store, opts, &mut hit) {
                add_read_words(&mut hit, bytes);
            }
            return hit;
        }
        let (mut outcome, entry) = extract(self.lang, bytes, key, &self.names, opts);
        if let Outcome::Parsed { served, .. } = &mut outcome {
            *served = Served::Fresh(entry);
        }
        outcome
    }
}

impl Unvouched {
    /// Another root's entry for this content and language, given this file's stamp (to
    /// be placed: [`Served::Fresh`]).
    fn found_elsewhere(&self, by_content: &ByContent, key: &FileKey) -> Option<Outcome> {
        let entry = by_content.get(&key.hash, self.lang)?.to_vec();
        let (mut hit, rewrite) = confirmed_by_hash(entry.clone(), key, &self.names)?;
        if let Outcome::Stored { served, .. } = &mut hit {
            *served = Served::Fresh(rewrite.unwrap_or(entry));
        }
        Some(hit)
    }
}

/// A file's names, as its tags carry them.
struct Names {
    rel: Arc<str>,
    abs: Arc<Path>,
}

/// What `stat` says of a file.
struct Stat {
    stamp: FileStamp,
    /// Modified or changed within the racy window before the scan started.
    racy: bool,
}

impl Stat {
    /// What the caller's `stat` said, racy as of `started`.
    fn given(stamp: FileStamp, started: SystemTime) -> Stat {
        let racy = stamp.racy_at(started);
        Stat { stamp, racy }
    }

    fn of(fname: &Path, started: SystemTime) -> Result<Stat, String> {
        match std::fs::metadata(fname) {
            Ok(m) if m.is_file() => {
                let stamp = FileStamp::of(&m);
                let racy = stamp.racy_at(started);
                Ok(Stat { stamp, racy })
            }
            Ok(_) => Err("not a regular file".into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The validation key of the file whose content is `bytes`.
    fn key_of(&self, bytes: &[u8]) -> FileKey {
        FileKey {
            stamp: FileStamp {
                size: bytes.len() as u64,
                ..self.stamp
            },
            hash: *blake3::hash(bytes).as_bytes(),
            racy: self.racy,
        }
    }
}

/// The stored entry, trusted without reading the file: only if neither this scan nor the
/// one that wrote the entry saw the file within the racy window. Its tags carry their
/// names' numbers where the pack gives them (`side`).
fn trusted_by_stat(
    entry: &[u8],
    stat: &Stat,
    names: &Names,
    side: Option<codec::Side<'_>>,
) -> Option<Outcome> {
    let k = codec::decode_key(entry)?;
    if stat.racy || k.racy || k.stamp != stat.stamp {
        return None;
    }
    let tags = codec::decode_counted(entry, (&names.rel, &names.abs), side)?;
    Some(Outcome::Stored {
        tags,
        note: codec::decode_note(entry),
        hash_hit: false,
        words: WordUse::Kept(k.hash),
        served: Served::Store,
    })
}

/// The stored entry, if its content hash is the file's, and the entry to write back when
/// its key changed (after a `touch`, or to clear the racy flag).
fn confirmed_by_hash(
    entry: Vec<u8>,
    key: &FileKey,
    names: &Names,
) -> Option<(Outcome, Option<Vec<u8>>)> {
    let k = codec::decode_key(&entry)?;
    if k.hash != key.hash {
        return None;
    }
    let tags = codec::decode_counted(&entry, (&names.rel, &names.abs), None)?;
    let note = codec::decode_note(&entry);
    let unchanged = k.stamp == key.stamp;
    let rewrite = (k != *key).then(|| codec::with_key(entry, key));
    let stored = Outcome::Stored {
        tags,
        note,
        hash_hit: !unchanged,
        words: WordUse::Kept(k.hash),
        served: Served::Store,
    };
    Some((stored, rewrite))
}

/// Gives a stored outcome (its words [`WordUse::Kept`], to be looked up) its words: none
/// in Aider's dialect, none read with [`ScanOptions::skip_words`], else those the store
/// keeps for its content; `false` (the outcome unchanged) if the store keeps none.
fn add_kept_words(store: &dyn TagStore, opts: &ScanOptions<'_>, outcome: &mut Outcome) -> bool {
    let Outcome::Stored { tags, words, .. } = outcome else {
        return true;
    };
    let WordUse::Kept(hash) = words else {
        return true;
    };
    if opts.dialect == Dialect::Aider {
        *words = WordUse::None;
        return true;
    }
    if opts.skip_words {
        // Still used: the store keeps them.
        return true;
    }
    match store.words(hash) {
        Some(terms) => {
            tags.terms = terms;
            true
        }
        None => false,
    }
}

/// Gives a stored outcome whose words the store lacks the words of `bytes`, its
/// content's, to be kept (no parse: words are a function of the text alone).
fn add_read_words(outcome: &mut Outcome, bytes: Vec<u8>) {
    if let Outcome::Stored { tags, words, .. } = outcome
        && let WordUse::Kept(hash) = *words
    {
        tags.terms = source_from_bytes(bytes).map_or_else(Terms::default, |t| Terms::of_text(&t));
        *words = WordUse::New(NewWords::new(hash, &tags.terms));
    }
}

/// A fresh extraction and the entry to store for it; the file's tree shown to
/// [`ScanOptions::on_parse`].
fn extract(
    lang: Language,
    bytes: Vec<u8>,
    key: FileKey,
    names: &Names,
    opts: &ScanOptions<'_>,
) -> (Outcome, Vec<u8>) {
    let (tags, note, terms) = match source_from_bytes(bytes) {
        Some(source) => {
            let (out, tree) = extract_source_parsed(
                lang,
                &source,
                Arc::clone(&names.rel),
                Arc::clone(&names.abs),
                opts.dialect,
                &opts.limits,
            );
            // The default dialect's ranking reads every word of the text; Aider's none.
            let terms = match opts.dialect {
                Dialect::Default => Terms::of_text(&source),
                Dialect::Aider => Terms::default(),
            };
            let note = out.cut_short.map(Note::CutShort);
            if let (Some(OnParse(on_parse)), Some(tree)) = (opts.on_parse, &tree) {
                on_parse(Parsed {
                    path: &names.abs,
                    language: lang,
                    source: &source,
                    tree,
                });
            }
            (out.tags, note, terms)
        }
        None => (Vec::new(), Some(Note::NotUtf8), Terms::default()),
    };
    let entry = codec::encode(&key, &tags, note);
    let words = match opts.dialect {
        Dialect::Default => WordUse::New(NewWords::new(key.hash, &terms)),
        Dialect::Aider => WordUse::None,
    };
    let parsed = Outcome::Parsed {
        tags: CountedTags {
            terms,
            ..CountedTags::from_tags(tags)
        },
        note,
        words,
        served: Served::Store,
    };
    (parsed, entry)
}

/// The store key recording the last file list a prune left the store clean for: the
/// root's path and a hash of the list. Listing every key to prune costs a read of the
/// whole store (0.8 s on the Linux tree), so a walk with the same list skips it. Entry keys
/// start with a dialect byte (`d`, `a`), never with this one.
const CLEAN_LIST_KEY: &[u8] = b"m";

/// [`prune`], unless the store was pruned for this very list and nothing but a pruning
/// scan has written since; then records the list.
fn prune_unless_clean(store: &dyn TagStore, files: &[(PathBuf, String)], root: &Path) -> usize {
    let mut record = entry_key(Dialect::Default, root);
    record.extend_from_slice(&list_hash(files));
    if store.get(CLEAN_LIST_KEY).as_deref() == Some(&record[..]) {
        return 0;
    }
    let pruned = prune(store, files, root);
    let _ = store.put_batch(vec![(CLEAN_LIST_KEY.to_vec(), record)]);
    pruned
}

/// Forgets the clean list: a scan without pruning may have stored entries outside it.
fn forget_clean_list(store: &dyn TagStore) {
    let _ = store.remove_batch(vec![CLEAN_LIST_KEY.to_vec()]);
}

/// A hash of the paths of `files`, in order.
fn list_hash(files: &[(PathBuf, String)]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    for (f, _) in files {
        let key = entry_key(Dialect::Default, f);
        hasher.update(&(key.len() as u64).to_le_bytes());
        hasher.update(&key);
    }
    *hasher.finalize().as_bytes()
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

pub(crate) fn dialect_tag(dialect: Dialect) -> u8 {
    match dialect {
        Dialect::Default => b'd',
        Dialect::Aider => b'a',
    }
}

/// The store key of a file's entry: a dialect byte, then the path's bytes (the OS encoding
/// on Unix, UTF-8 elsewhere). Dialects extract different tags from one file, so each has
/// its own entry.
pub(crate) fn entry_key(dialect: Dialect, path: &Path) -> Vec<u8> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(mtime: i64, ctime: i64) -> FileStamp {
        FileStamp {
            size: 1,
            mtime: (mtime, 0),
            ctime: (ctime, 0),
            inode: 1,
        }
    }

    #[test]
    fn the_files_changed_last_come_newest_first() {
        // By the later of content and status change: a copy that kept an old mtime
        // still has a new ctime.
        let stamps = [
            stamp(10, 10),
            stamp(50, 50),
            stamp(20, 90),
            stamp(30, 30),
            stamp(70, 0),
            stamp(40, 40),
        ];
        assert_eq!(changed_last(&stamps, 3), [2, 4, 1]);
        assert_eq!(changed_last(&stamps, 10), [2, 4, 1, 5, 3, 0]);
        assert_eq!(changed_last(&stamps, 0), [] as [usize; 0]);
        assert_eq!(changed_last(&[], 3), [] as [usize; 0]);
    }
}
