//! The code words of the files a store has seen ([`Terms`]), kept apart from their tags:
//! by content hash, in one immutable file that is replaced whole (a temporary file and a
//! rename). sled keeps values it cannot compress at about two and a half times their size
//! (Django 5.2: 0.95 MB of words took 2.5 MB of its pages); here they cost their encoded
//! bytes and 17 bytes of key each.
//!
//! ```text
//! file  = magic:"RMWORDS" version:u8 terms:u64le n:u32le entry{n}
//!         blake3-of-all-before:[u8;32]
//! entry = hash:[u8;16] age:u8 len:varint words:[u8;len]   (ascending by hash)
//! ```
//!
//! `hash` is the start of the content's BLAKE3 hash, `words` the [`codec::encode_terms`]
//! form. `age` counts the rewrites since a scan last used the entry. `terms` is
//! [`terms_fingerprint`]: a file made under another (other stop words, say) is not read.
//!
//! **Bound.** A rewrite after a scan of the whole file list keeps the words of the
//! contents the scan used, and of others at most as many (the most recently used first,
//! none older than [`MAX_AGE`] rewrites): the file then holds at most twice the words of
//! that scan. A scan of some files only (a warm session's changed files) adds its words
//! and drops none, so the file grows by the contents edited until the next whole scan. A
//! scan that adds no words does not rewrite it.
//!
//! **Recent words.** A scan that found a few new contents (files edited since the last
//! run) adds their words to a second, small file beside the first (`{name}-recent`, the
//! same layout) instead of rewriting the first: the Linux tree's word file is 46 MB, and
//! rewriting it after every edit cost a fifth of a second. Lookups read the recent file
//! first. Once the recent file would outgrow [`recent_limit`] of the first, or a scan of
//! every file finds the first holding more than twice its contents, the first is
//! rewritten with both (the bound above applies) and the recent file removed. Words are
//! keyed by content, so an entry in either file is never wrong, whichever a reader saw.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

use repo_mapper_tags::{Terms, leb128, terms_fingerprint};

use crate::blobs::replace_file;
use crate::codec;
use crate::store::one_line;

const MAGIC: &[u8; 8] = b"RMWORDS\x01";
const CHECKSUM_LEN: usize = 32;

/// Where a word file's entry count is: after the magic and the terms fingerprint.
const COUNT_AT: usize = MAGIC.len() + 8;

/// Rewrites after which an entry no scan used is dropped.
pub(crate) const MAX_AGE: u8 = 8;

/// The key of a content: the start of its BLAKE3 hash.
type Key = [u8; 16];

fn key_of(hash: &[u8; 32]) -> Key {
    let mut key = [0; 16];
    key.copy_from_slice(&hash[..16]);
    key
}

/// Where one entry's words lie in the file.
#[derive(Debug, Clone, Copy)]
struct Slot {
    start: usize,
    end: usize,
    age: u8,
}

/// The code words of one file content, found by a scan, for a store to keep
/// ([`TagStore::keep_words`](crate::TagStore::keep_words)).
#[derive(Debug, Clone)]
pub struct NewWords {
    hash: [u8; 32],
    encoded: Vec<u8>,
}

impl NewWords {
    /// The words of the content whose BLAKE3 hash is `hash`.
    pub fn new(hash: [u8; 32], terms: &Terms) -> NewWords {
        NewWords {
            hash,
            encoded: codec::encode_terms(terms),
        }
    }

    /// The content's BLAKE3 hash.
    pub fn hash(&self) -> &[u8; 32] {
        &self.hash
    }

    /// The words.
    pub fn terms(&self) -> Terms {
        codec::decode_terms(&self.encoded).unwrap_or_default()
    }
}

/// The most the recent words may take beside a first file of `main_len` bytes before
/// the first is rewritten with them: a 16th of it, between 64 KiB and 1 MiB (so keeping
/// an edit's words writes at most that much).
pub(crate) fn recent_limit(main_len: u64) -> u64 {
    (main_len / 16).clamp(64 << 10, 1 << 20)
}

/// A store's word files (the first and the recent one, see the module documentation),
/// each read at its first lookup and shared by whoever reads the store's words in one
/// run (sled's store, the pack's reader): read and warned about once.
#[derive(Debug)]
pub(crate) struct WordSlot {
    main: LazyWords,
    recent: LazyWords,
}

impl WordSlot {
    /// The word files at `path` and beside it, not read yet.
    pub(crate) fn new(path: PathBuf) -> WordSlot {
        let mut recent = path.clone().into_os_string();
        recent.push("-recent");
        WordSlot {
            main: LazyWords::new(path),
            recent: LazyWords::new(recent.into()),
        }
    }

    /// The words of the content whose BLAKE3 hash is `hash`, if kept.
    pub(crate) fn get(&self, hash: &[u8; 32]) -> Option<Terms> {
        let recent = self.recent.read().as_ref().and_then(|w| w.get(hash));
        recent.or_else(|| self.main.read().as_ref()?.get(hash))
    }

    /// Keeps the words a scan used and found (see the module documentation): `new` added
    /// to the recent file while it stays within [`recent_limit`], else the first file
    /// written anew with the recent words and the recent file removed.
    pub(crate) fn keep(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> io::Result<()> {
        // A first file that is missing, not a file, or found damaged is written anew.
        let main_len = std::fs::metadata(&self.main.path)
            .ok()
            .filter(|m| m.is_file() && !self.main.found_damaged())
            .map_or(0, |m| m.len());
        // A scan of every file bounds the first file again once it holds more than twice
        // the contents that scan has (see the module's bound).
        let over_bound = whole
            && entries_in(&self.main.path)
                .is_some_and(|held| held > 2 * (used.len() + new.len()) as u64);
        if main_len > 0 && !over_bound {
            let next_recent = self.recent.with(|recent| recent.successor(&[], new, false));
            if next_recent.len() as u64 <= recent_limit(main_len) {
                replace_file(&self.recent.path, &next_recent)?;
                self.recent.forget();
                return Ok(());
            }
        }
        let recent = self.recent.with(WordFile::as_new_words);
        let all: Vec<NewWords> = recent.into_iter().chain(new.iter().cloned()).collect();
        let next = self.main.with(|main| main.successor(used, &all, whole));
        replace_file(&self.main.path, &next)?;
        match std::fs::remove_file(&self.recent.path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        self.forget();
        Ok(())
    }

    /// Reads the files again at the next lookup (they were replaced).
    pub(crate) fn forget(&self) {
        self.main.forget();
        self.recent.forget();
    }

    /// Holds no words from now on (the store was reset).
    pub(crate) fn empty(&self) {
        self.main.empty();
        self.recent.empty();
    }
}

/// One word file, read at its first lookup.
#[derive(Debug)]
struct LazyWords {
    path: PathBuf,
    file: RwLock<Option<WordFile>>,
    /// Whether the last read found the file damaged or unreadable.
    damaged: AtomicBool,
}

impl LazyWords {
    fn new(path: PathBuf) -> LazyWords {
        LazyWords {
            path,
            file: RwLock::new(None),
            damaged: AtomicBool::new(false),
        }
    }

    /// Whether the file was read and found damaged or unreadable (so it must be replaced).
    fn found_damaged(&self) -> bool {
        self.damaged.load(Ordering::Relaxed)
    }

    /// What `f` makes of the file (read if it was not yet).
    fn with<T>(&self, f: impl FnOnce(&WordFile) -> T) -> T {
        match self.read().as_ref() {
            Some(words) => f(words),
            None => f(&WordFile::default()),
        }
    }

    fn forget(&self) {
        *self.file.write().unwrap_or_else(PoisonError::into_inner) = None;
        self.damaged.store(false, Ordering::Relaxed);
    }

    fn empty(&self) {
        *self.file.write().unwrap_or_else(PoisonError::into_inner) = Some(WordFile::default());
    }

    /// The file, read if it was not yet; a damaged or unreadable one counts as empty (one
    /// warning), and the next scan that keeps words replaces it.
    fn read(&self) -> RwLockReadGuard<'_, Option<WordFile>> {
        {
            let words = self.file.read().unwrap_or_else(PoisonError::into_inner);
            if words.is_some() {
                return words;
            }
        }
        let mut slot = self.file.write().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(WordFile::read(&self.path).unwrap_or_else(|why| {
                self.damaged.store(true, Ordering::Relaxed);
                let text = format!(
                    "the word cache {} is {why}; reading its files again",
                    self.path.display()
                );
                tracing::warn!("{}", one_line(&text));
                WordFile::default()
            }));
        }
        drop(slot);
        self.file.read().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The code words of contents by hash, as read from a word file (or empty).
#[derive(Debug, Default)]
pub(crate) struct WordFile {
    bytes: Vec<u8>,
    index: HashMap<Key, Slot>,
}

impl WordFile {
    /// The words in `bytes` (a word file's content); `None` if they are damaged.
    pub(crate) fn parse(bytes: Vec<u8>) -> Option<WordFile> {
        let body_len = bytes.len().checked_sub(CHECKSUM_LEN)?;
        let (body, checksum) = bytes.split_at(body_len);
        if !body.starts_with(MAGIC) || blake3::hash(body).as_bytes()[..] != checksum[..] {
            return None;
        }
        if fingerprint_of(body)? != terms_fingerprint() {
            return Some(WordFile::default());
        }
        let index = parse_entries(body)?;
        Some(WordFile { bytes, index })
    }

    /// Reads the word file at `path`: empty if there is none, `Err` with the reason if
    /// it cannot be read or is damaged.
    pub(crate) fn read(path: &Path) -> Result<WordFile, String> {
        match std::fs::read(path) {
            Ok(bytes) => WordFile::parse(bytes).ok_or_else(|| "damaged".to_owned()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(WordFile::default()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// The words of the content whose BLAKE3 hash is `hash`, if kept.
    pub(crate) fn get(&self, hash: &[u8; 32]) -> Option<Terms> {
        let slot = self.index.get(&key_of(hash))?;
        codec::decode_terms(&self.bytes[slot.start..slot.end])
    }

    /// Every entry as words to keep (the key stands for the hash: only its start is
    /// kept, and only the start is read back).
    fn as_new_words(&self) -> Vec<NewWords> {
        let words = |(key, slot): (&Key, &Slot)| {
            let mut hash = [0; 32];
            hash[..16].copy_from_slice(key);
            let encoded = self.bytes[slot.start..slot.end].to_vec();
            NewWords { hash, encoded }
        };
        self.index.iter().map(words).collect()
    }

    /// How many contents' words are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }

    /// The file that follows this one after a scan that used the words of `used` and
    /// found `new` ones, of the whole file list or not (see the module's bound).
    pub(crate) fn successor(&self, used: &[[u8; 32]], new: &[NewWords], whole: bool) -> Vec<u8> {
        let mut fresh: HashMap<Key, &[u8]> = HashMap::new();
        for n in new {
            fresh.insert(key_of(&n.hash), &n.encoded);
        }
        for hash in used {
            let key = key_of(hash);
            if let Some(slot) = self.index.get(&key) {
                fresh
                    .entry(key)
                    .or_insert(&self.bytes[slot.start..slot.end]);
            }
        }
        let mut entries: Vec<(Key, u8, &[u8])> =
            fresh.into_iter().map(|(k, words)| (k, 0, words)).collect();
        let used: HashSet<Key> = entries.iter().map(|e| e.0).collect();
        if whole {
            entries.extend(self.kept_unused(&used, entries.len()));
        } else {
            entries.extend(
                self.index
                    .iter()
                    .filter(|(k, _)| !used.contains(*k))
                    .map(|(k, slot)| (*k, slot.age, &self.bytes[slot.start..slot.end])),
            );
        }
        entries.sort_unstable_by_key(|e| e.0);
        encode_file(&entries)
    }

    /// The entries not in `used` that a rewrite keeps, aged by one: at most `room`, the
    /// youngest first, none reaching [`MAX_AGE`].
    fn kept_unused(&self, used: &HashSet<Key>, room: usize) -> Vec<(Key, u8, &[u8])> {
        let mut unused: Vec<(Key, u8, &[u8])> = self
            .index
            .iter()
            .filter(|(k, slot)| !used.contains(*k) && slot.age.saturating_add(1) < MAX_AGE)
            .map(|(k, slot)| (*k, slot.age + 1, &self.bytes[slot.start..slot.end]))
            .collect();
        unused.sort_unstable_by_key(|e| (e.1, e.0));
        unused.truncate(room);
        unused
    }
}

/// How many entries the word file at `path` says it holds (its header only is read).
fn entries_in(path: &Path) -> Option<u64> {
    use std::io::Read;
    let mut header = [0u8; COUNT_AT + 4];
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut header)
        .ok()?;
    let count: [u8; 4] = header[COUNT_AT..].try_into().ok()?;
    Some(u64::from(u32::from_le_bytes(count)))
}

/// The [`terms_fingerprint`] a word file's `body` was made under; `None` if it is cut
/// short.
fn fingerprint_of(body: &[u8]) -> Option<u64> {
    let at = MAGIC.len();
    Some(u64::from_le_bytes(body.get(at..at + 8)?.try_into().ok()?))
}

/// The index of a word file's entries (`body` without the checksum); `None` if damaged.
fn parse_entries(body: &[u8]) -> Option<HashMap<Key, Slot>> {
    let n = u32::from_le_bytes(body.get(COUNT_AT..COUNT_AT + 4)?.try_into().ok()?) as usize;
    // Every entry takes at least 18 bytes: never trust a count the data cannot hold.
    if n > body.len() / 18 {
        return None;
    }
    let mut index = HashMap::with_capacity(n);
    let mut rest = &body[COUNT_AT + 4..];
    for _ in 0..n {
        let key: Key = rest.get(..16)?.try_into().ok()?;
        let age = *rest.get(16)?;
        if age >= MAX_AGE {
            return None;
        }
        rest = &rest[17..];
        let len = usize::try_from(leb128::take(&mut rest)?).ok()?;
        let start = body.len() - rest.len();
        rest = rest.get(len..)?;
        let slot = Slot {
            start,
            end: start + len,
            age,
        };
        index.insert(key, slot);
    }
    rest.is_empty().then_some(index)
}

/// A word file holding `entries` (ascending by key).
fn encode_file(entries: &[(Key, u8, &[u8])]) -> Vec<u8> {
    let size: usize = entries.iter().map(|e| 20 + e.2.len()).sum();
    let mut out = Vec::with_capacity(MAGIC.len() + 4 + size + CHECKSUM_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&terms_fingerprint().to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    for (key, age, words) in entries {
        out.extend_from_slice(key);
        out.push(*age);
        leb128::push(&mut out, words.len() as u64);
        out.extend_from_slice(words);
    }
    let checksum = blake3::hash(&out);
    out.extend_from_slice(checksum.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(i: u8) -> [u8; 32] {
        *blake3::hash(&[i]).as_bytes()
    }

    fn words(i: u8) -> NewWords {
        let word = "abc".repeat(usize::from(i) + 1);
        NewWords::new(hash(i), &Terms::of_text(&format!("{word} shared")))
    }

    #[test]
    fn words_come_back_by_hash() {
        let file = WordFile::parse(WordFile::default().successor(&[], &[words(1), words(2)], true));
        let file = file.unwrap();
        assert_eq!(file.get(&hash(1)), Some(words(1).terms()));
        assert_eq!(file.get(&hash(2)), Some(words(2).terms()));
        assert_eq!(file.get(&hash(3)), None);
        assert_ne!(file.get(&hash(1)), file.get(&hash(2)));
    }

    #[test]
    fn any_damage_is_found() {
        let bytes = WordFile::default().successor(&[], &[words(1), words(2)], true);
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 0x10;
            assert!(WordFile::parse(bad).is_none(), "byte {at} flipped");
        }
        for len in 0..bytes.len() {
            assert!(
                WordFile::parse(bytes[..len].to_vec()).is_none(),
                "cut at {len}"
            );
        }
    }

    /// The module's bound: unused words age and go, and never outnumber the used ones.
    #[test]
    fn unused_words_are_bounded() {
        let mut file = WordFile::parse(WordFile::default().successor(
            &[],
            &(0..10).map(words).collect::<Vec<_>>(),
            true,
        ))
        .unwrap();
        // Each scan uses two contents, one of them new: the other eight age.
        for round in 0..MAX_AGE + 1 {
            let used = [hash(100 + round)];
            let next = file.successor(&used, &[words(100 + round + 1)], true);
            file = WordFile::parse(next).unwrap();
            assert!(file.len() <= 2 * 2, "round {round}: {}", file.len());
        }
        let mut file = WordFile::parse(WordFile::default().successor(
            &[],
            &(0..4).map(words).collect::<Vec<_>>(),
            true,
        ))
        .unwrap();
        for round in 0..MAX_AGE {
            file = WordFile::parse(file.successor(
                &[],
                &(10..14).map(words).collect::<Vec<_>>(),
                true,
            ))
            .unwrap();
            assert_eq!(file.get(&hash(0)).is_some(), round + 1 < MAX_AGE, "{round}");
        }
    }

    #[test]
    fn used_words_stay_and_new_words_replace_nothing_else() {
        let first =
            WordFile::parse(WordFile::default().successor(&[], &[words(1), words(2)], true));
        let first = first.unwrap();
        let second = WordFile::parse(first.successor(&[hash(1)], &[words(3)], true)).unwrap();
        assert_eq!(second.len(), 3, "one unused entry fits beside two used");
        assert_eq!(second.get(&hash(1)), Some(words(1).terms()));
        assert_eq!(second.get(&hash(3)), Some(words(3).terms()));
    }

    /// A scan of some files only (a warm session's edits) adds its words and drops none.
    #[test]
    fn a_partial_scan_keeps_every_word() {
        let all: Vec<NewWords> = (0..10).map(words).collect();
        let file = WordFile::parse(WordFile::default().successor(&[], &all, true)).unwrap();
        let file = WordFile::parse(file.successor(&[], &[words(20)], false)).unwrap();
        assert_eq!(file.len(), 11);
        let whole = WordFile::parse(file.successor(&[], &[words(21)], true)).unwrap();
        assert_eq!(whole.len(), 2, "a whole scan bounds them again");
    }

    /// Issue 26: an edit's words go to the small recent file; the first file is left as
    /// it is until the recent one would outgrow its limit, then rewritten with both.
    #[test]
    fn a_few_new_words_go_to_the_recent_file_until_it_is_full() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words");
        let recent = dir.path().join("words-recent");
        let slot = WordSlot::new(path.clone());
        let all: Vec<NewWords> = (0..10).map(words).collect();
        slot.keep(&[], &all, true).unwrap();
        assert!(!recent.exists(), "the first scan writes the first file");
        let first = std::fs::read(&path).unwrap();
        // A whole scan that used every content's words and found one new.
        let used: Vec<[u8; 32]> = (0..10).map(hash).collect();
        slot.keep(&used, &[words(20)], true).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), first, "left as it was");
        assert!(recent.exists());
        let again = WordSlot::new(path.clone());
        assert_eq!(again.get(&hash(20)), Some(words(20).terms()));
        assert_eq!(again.get(&hash(3)), Some(words(3).terms()));
        // Past the limit (64 KiB at least), the first file takes everything.
        let big: Vec<NewWords> = (0..40u8)
            .map(|i| {
                // Words of letters only (digits are no code words), all different.
                let letters = |mut n: u32| {
                    let mut w = String::from("q");
                    while n > 0 {
                        w.push(char::from(b'a' + (n % 26) as u8));
                        n /= 26;
                    }
                    w
                };
                let text: String = (0..3000u32)
                    .map(|j| letters(u32::from(i) * 3000 + j) + " ")
                    .collect();
                NewWords::new(hash(100 + i), &Terms::of_text(&text))
            })
            .collect();
        let mut rounds = 0;
        while recent.exists() {
            again.keep(&[], &big[rounds..rounds + 1], false).unwrap();
            rounds += 1;
            assert!(rounds < big.len(), "the recent file never filled");
        }
        assert_ne!(std::fs::read(&path).unwrap(), first);
        let last = WordSlot::new(path);
        for i in [20, 3] {
            assert_eq!(last.get(&hash(i)), Some(words(i).terms()), "{i}");
        }
        for kept in &big[..rounds] {
            assert_eq!(last.get(&kept.hash), Some(kept.terms()));
        }
    }

    /// A scan of every file that finds the first file holding more than twice its
    /// contents rewrites it, bounded, however small the recent file is.
    #[test]
    fn a_whole_scan_bounds_the_first_file_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words");
        let slot = WordSlot::new(path.clone());
        let all: Vec<NewWords> = (0..10).map(words).collect();
        slot.keep(&[], &all, true).unwrap();
        // Two contents left; one of them edited.
        slot.keep(&[hash(1)], &[words(20)], true).unwrap();
        assert!(!dir.path().join("words-recent").exists());
        let file = WordFile::read(&path).unwrap();
        assert_eq!(file.len(), 4, "two used, and at most as many unused");
        assert_eq!(file.get(&hash(20)), Some(words(20).terms()));
    }

    /// A damaged recent file counts as empty and the next keep replaces it.
    #[test]
    fn a_damaged_recent_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("words");
        let slot = WordSlot::new(path.clone());
        slot.keep(&[], &[words(1)], true).unwrap();
        slot.keep(&[], &[words(2)], false).unwrap();
        std::fs::write(dir.path().join("words-recent"), b"damaged").unwrap();
        let again = WordSlot::new(path.clone());
        assert_eq!(again.get(&hash(2)), None);
        assert_eq!(again.get(&hash(1)), Some(words(1).terms()));
        again.keep(&[], &[words(3)], false).unwrap();
        let last = WordSlot::new(path);
        assert_eq!(last.get(&hash(3)), Some(words(3).terms()));
    }

    /// Words made under other stop words (another fingerprint) are not read; an age no
    /// writer gives is damage.
    #[test]
    fn another_fingerprint_or_age_is_not_read() {
        let bytes = WordFile::default().successor(&[], &[words(1)], true);
        let resealed = |edit: &dyn Fn(&mut Vec<u8>)| {
            let mut body = bytes[..bytes.len() - CHECKSUM_LEN].to_vec();
            edit(&mut body);
            let checksum = blake3::hash(&body);
            body.extend_from_slice(checksum.as_bytes());
            WordFile::parse(body)
        };
        let other = resealed(&|b| b[MAGIC.len()] ^= 1).expect("not damage");
        assert_eq!(other.len(), 0);
        let aged = resealed(&|b| b[MAGIC.len() + 8 + 4 + 16] = MAX_AGE);
        assert!(aged.is_none());
    }
}
