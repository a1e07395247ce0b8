//! Token counts known from earlier runs (issue 26): the exact count of each map text a
//! run counted, by the text's BLAKE3 hash, kept in the cache directory. A run that renders
//! what an earlier run rendered takes its counts from there and never builds the
//! tokenizer's rank map (cl100k's costs a few milliseconds of CPU in every process that
//! counts).
//!
//! The file also lists the requests whose maps were counted (a hash of everything the
//! request and the budget say, not the files' state): a session that finds its request
//! there does not start building the map ahead of its first count, which a request never
//! seen would need.
//!
//! A count is served only for a text whose 128-bit hash is that of a text counted before
//! by the same tokenizer, so counts stay exact. The file is bounded ([`MAX_COUNTS`],
//! [`MAX_REQUESTS`]: the most recently used are kept), checksummed (a damaged or foreign
//! file is ignored and replaced) and replaced by rename, merged with what another process
//! wrote since it was read; losing an entry to a race costs one count, nothing more.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::tokens::Tokenizer;

/// Counts kept in the file: the texts of the last few hundred maps' probes.
pub(crate) const MAX_COUNTS: usize = 4096;

/// Requests kept in the file.
pub(crate) const MAX_REQUESTS: usize = 256;

/// The file's first bytes: its layout and the crate version that wrote it.
const MAGIC: &[u8] = concat!("RMCOUNTS1 ", env!("CARGO_PKG_VERSION"), "\n").as_bytes();

/// The longest file read: a larger one is no file this module wrote.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// A 128-bit BLAKE3 hash (of a text, or of a request).
pub(crate) type Hash128 = [u8; 16];

/// The hash of `bytes`.
pub(crate) fn hash128(bytes: &[u8]) -> Hash128 {
    let mut out = [0u8; 16];
    out.copy_from_slice(&blake3::hash(bytes).as_bytes()[..16]);
    out
}

/// What the file holds, and what this session added (see the module documentation).
#[derive(Debug)]
pub(crate) struct KnownCounts {
    tokenizer: Tokenizer,
    /// The file, if counts are kept on disk.
    file: Option<PathBuf>,
    /// Per text hash: its count and when it was last used (higher is later).
    counts: HashMap<Hash128, (u32, u64)>,
    /// Requests whose maps were counted, least recently used first.
    requests: Vec<Hash128>,
    /// The next use's number.
    clock: u64,
    /// Whether anything was added since the file was read or written.
    added: bool,
    /// Texts this session counted with the tokenizer (not known before).
    fresh: u64,
}

impl KnownCounts {
    /// The counts kept in `dir` for `tokenizer` (`None`: in memory only).
    pub(crate) fn open(dir: Option<&Path>, tokenizer: Tokenizer) -> KnownCounts {
        let file = dir.map(|d| d.join(format!("counts-{}", tokenizer.name())));
        let mut known = KnownCounts {
            tokenizer,
            file,
            counts: HashMap::new(),
            requests: Vec::new(),
            clock: 0,
            added: false,
            fresh: 0,
        };
        if let Some(read) = known.file.as_deref().and_then(read_file) {
            known.merge(read);
        }
        known
    }

    /// Whether any request's maps were counted before.
    pub(crate) fn knows_any_request(&self) -> bool {
        !self.requests.is_empty()
    }

    /// Whether the maps of `request` were counted before.
    pub(crate) fn knows_request(&self, request: &Hash128) -> bool {
        self.requests.contains(request)
    }

    /// Notes that every text of `request`'s map is now counted.
    pub(crate) fn counted_request(&mut self, request: Hash128) {
        if let Some(at) = self.requests.iter().position(|r| *r == request) {
            self.requests.remove(at);
        } else {
            self.added = true;
        }
        self.requests.push(request);
    }

    /// The exact token count of `text`: known, or counted now (and kept).
    pub(crate) fn count(&mut self, text: &str) -> usize {
        let hash = hash128(text.as_bytes());
        self.clock += 1;
        if let Some((count, used)) = self.counts.get_mut(&hash) {
            *used = self.clock;
            return *count as usize;
        }
        let count = self.tokenizer.count(text);
        self.fresh += 1;
        // A text of 4 billion tokens is not kept (none fits a budget anyway).
        if let Ok(kept) = u32::try_from(count) {
            self.counts.insert(hash, (kept, self.clock));
            self.added = true;
        }
        count
    }

    /// How many requests are known.
    #[cfg(test)]
    pub(crate) fn requests(&self) -> usize {
        self.requests.len()
    }

    /// How many texts this session counted with the tokenizer.
    #[cfg(test)]
    pub(crate) fn fresh(&self) -> u64 {
        self.fresh
    }

    /// Aider's estimate of `text`'s tokens ([`Tokenizer::aider_estimate`]), its one count
    /// known or kept.
    pub(crate) fn aider_estimate(&mut self, text: &str) -> f64 {
        crate::tokens::aider_estimate_with(text, |sample| self.count(sample))
    }

    /// Writes the file if this session added anything, merged with what it holds now.
    /// A failure is logged at debug level: it costs counts later, nothing else. What is
    /// held in memory is bounded as the file is (a long-lived session saves after each
    /// map).
    pub(crate) fn save(&mut self) {
        self.write_file();
        self.trim();
    }

    fn write_file(&mut self) {
        let Some(file) = self.file.clone() else {
            return;
        };
        if !self.added {
            return;
        }
        if let Some(on_disk) = read_file(&file) {
            self.merge(on_disk);
        }
        tracing::debug!(counted = self.fresh, "token counts kept");
        match repo_mapper_store::replace_file(&file, &self.encode()) {
            Ok(()) => self.added = false,
            Err(e) => tracing::debug!(file = %file.display(), "token counts not kept: {e}"),
        }
    }

    /// Keeps what the file would: the most recently used counts and requests, once
    /// there are twice as many (so that trimming costs little per map).
    fn trim(&mut self) {
        if self.counts.len() > 2 * MAX_COUNTS {
            let mut used: Vec<u64> = self.counts.values().map(|(_, used)| *used).collect();
            let (_, &mut oldest_kept, _) = used.select_nth_unstable(self.counts.len() - MAX_COUNTS);
            self.counts.retain(|_, (_, used)| *used >= oldest_kept);
        }
        if self.requests.len() > 2 * MAX_REQUESTS {
            self.requests.drain(..self.requests.len() - MAX_REQUESTS);
        }
    }

    /// Takes in what another writer kept: its entries count as used before any of ours.
    fn merge(&mut self, read: Read) {
        // Ours move up past the file's, which take the uses below them in file order.
        let read_counts = read.counts.len() as u64;
        for (_, used) in self.counts.values_mut() {
            *used += read_counts;
        }
        self.clock += read_counts;
        for (used, (hash, count)) in (0..).zip(read.counts) {
            self.counts.entry(hash).or_insert((count, used));
        }
        let ours = std::mem::take(&mut self.requests);
        self.requests = read.requests;
        self.requests.retain(|r| !ours.contains(r));
        self.requests.extend(ours);
    }

    /// The file's bytes: the most recently used counts and requests, oldest first.
    fn encode(&self) -> Vec<u8> {
        let mut counts: Vec<(&Hash128, &(u32, u64))> = self.counts.iter().collect();
        counts.sort_unstable_by_key(|(hash, (_, used))| (*used, **hash));
        let counts = &counts[counts.len().saturating_sub(MAX_COUNTS)..];
        let requests = &self.requests[self.requests.len().saturating_sub(MAX_REQUESTS)..];
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&(counts.len() as u32).to_le_bytes());
        out.extend_from_slice(&(requests.len() as u32).to_le_bytes());
        for (hash, (count, _)) in counts {
            out.extend_from_slice(*hash);
            out.extend_from_slice(&count.to_le_bytes());
        }
        for request in requests {
            out.extend_from_slice(request);
        }
        let sum = hash128(&out);
        out.extend_from_slice(&sum);
        out
    }
}

/// A file's content: counts and requests, oldest first.
#[derive(Debug, Default, PartialEq)]
struct Read {
    counts: Vec<(Hash128, u32)>,
    requests: Vec<Hash128>,
}

/// The file at `path`, if there is one this module wrote, undamaged.
fn read_file(path: &Path) -> Option<Read> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    let file = std::fs::File::open(path).ok()?;
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes).ok()?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return None;
    }
    let decoded = decode(&bytes);
    if decoded.is_none() {
        tracing::debug!(file = %path.display(), "token counts unreadable: replaced");
    }
    decoded
}

/// The counts and requests `bytes` hold; `None` unless [`KnownCounts::encode`] wrote them.
fn decode(bytes: &[u8]) -> Option<Read> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(16)?)?;
    if hash128(body) != *sum {
        return None;
    }
    let rest = body.strip_prefix(MAGIC)?;
    let (lens, rest) = rest.split_at_checked(8)?;
    let counts = u32::from_le_bytes(lens[..4].try_into().ok()?) as usize;
    let requests = u32::from_le_bytes(lens[4..].try_into().ok()?) as usize;
    if rest.len()
        != counts
            .checked_mul(20)?
            .checked_add(requests.checked_mul(16)?)?
    {
        return None;
    }
    let (count_bytes, request_bytes) = rest.split_at(counts * 20);
    let counts = count_bytes
        .chunks_exact(20)
        .map(|c| {
            let hash: Hash128 = c[..16].try_into().ok()?;
            Some((hash, u32::from_le_bytes(c[16..].try_into().ok()?)))
        })
        .collect::<Option<_>>()?;
    let requests = request_bytes
        .chunks_exact(16)
        .map(|r| r.try_into().ok())
        .collect::<Option<_>>()?;
    Some(Read { counts, requests })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &Path) -> KnownCounts {
        KnownCounts::open(Some(dir), Tokenizer::Cl100kBase)
    }

    /// Every fixture's text, and slices of it.
    fn fixture_texts() -> Vec<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/languages");
        let mut texts = Vec::new();
        for path in crate::list_files(&dir, None) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                let half: String = text.chars().take(text.chars().count() / 2).collect();
                texts.extend([text, half]);
            }
        }
        texts
    }

    #[test]
    fn kept_counts_are_the_tokenizers_on_every_fixture() {
        let dir = tempfile::tempdir().unwrap();
        let texts = fixture_texts();
        assert!(texts.len() > 60, "{} texts", texts.len());
        let mut first = open(dir.path());
        let counted: Vec<usize> = texts.iter().map(|t| first.count(t)).collect();
        let distinct: std::collections::HashSet<&String> = texts.iter().collect();
        assert_eq!(first.fresh() as usize, distinct.len());
        first.save();
        let mut second = open(dir.path());
        for (text, count) in texts.iter().zip(&counted) {
            assert_eq!(*count, Tokenizer::Cl100kBase.count(text));
            assert_eq!(second.count(text), *count);
        }
        assert_eq!(second.fresh(), 0, "every count known");
        for text in &texts {
            let estimate = Tokenizer::Cl100kBase.aider_estimate(text);
            assert_eq!(second.aider_estimate(text).to_bits(), estimate.to_bits());
        }
    }

    #[test]
    fn a_request_counted_is_known_to_the_next_session() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (hash128(b"a"), hash128(b"b"));
        let mut first = open(dir.path());
        assert!(!first.knows_any_request());
        first.counted_request(a);
        first.save();
        let second = open(dir.path());
        assert!(second.knows_any_request() && second.knows_request(&a));
        assert!(!second.knows_request(&b));
    }

    #[test]
    fn a_damaged_or_foreign_file_is_ignored_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let mut first = open(dir.path());
        first.count("fn main() {}");
        first.counted_request(hash128(b"r"));
        first.save();
        let file = dir.path().join("counts-cl100k_base");
        let good = std::fs::read(&file).unwrap();
        let mut flipped = good.clone();
        flipped[MAGIC.len() + 9] ^= 1;
        let mut foreign = good.clone();
        foreign[0] = b'X';
        for bad in [
            flipped,
            foreign,
            good[..good.len() - 1].to_vec(),
            Vec::new(),
        ] {
            std::fs::write(&file, &bad).unwrap();
            let mut again = open(dir.path());
            assert!(!again.knows_any_request());
            assert_eq!(again.count("fn main() {}"), 4);
            assert_eq!(again.fresh(), 1, "the damaged file's count is not used");
            again.save();
            assert!(decode(&std::fs::read(&file).unwrap()).is_some(), "replaced");
        }
    }

    #[test]
    fn the_file_keeps_the_most_recently_used_counts() {
        let dir = tempfile::tempdir().unwrap();
        let mut known = open(dir.path());
        known.count("the first text");
        for i in 0..MAX_COUNTS {
            known.count(&format!("text {i}"));
        }
        known.count("the first text"); // used again: among the most recent
        for i in 0..MAX_REQUESTS + 5 {
            known.counted_request(hash128(&i.to_le_bytes()));
        }
        known.save();
        let read = read_file(&dir.path().join("counts-cl100k_base")).unwrap();
        assert_eq!(read.counts.len(), MAX_COUNTS);
        assert_eq!(read.requests.len(), MAX_REQUESTS);
        let last = read.counts.last().unwrap();
        assert_eq!(*last, (hash128(b"the first text"), 3));
        assert!(
            !read.counts.contains(&(hash128(b"text 0"), 2)),
            "the oldest left out"
        );
        assert_eq!(read.requests[0], hash128(&5usize.to_le_bytes()));
    }

    /// A session's own counts outrank what another wrote meanwhile, even a full file.
    #[test]
    fn a_session_saving_over_a_full_file_keeps_its_own_counts() {
        let dir = tempfile::tempdir().unwrap();
        let mut late = open(dir.path());
        late.count("counted by the late session");
        let mut full = open(dir.path());
        for i in 0..MAX_COUNTS {
            full.count(&format!("text {i}"));
        }
        full.save();
        late.save();
        let read = read_file(&dir.path().join("counts-cl100k_base")).unwrap();
        let ours = hash128(b"counted by the late session");
        assert_eq!(read.counts.last().map(|c| c.0), Some(ours));
    }

    #[test]
    fn two_sessions_saving_keep_what_both_counted() {
        let dir = tempfile::tempdir().unwrap();
        let (mut a, mut b) = (open(dir.path()), open(dir.path()));
        a.count("alpha beta");
        a.counted_request(hash128(b"a"));
        b.count("gamma delta");
        b.counted_request(hash128(b"b"));
        a.save();
        b.save();
        let mut c = open(dir.path());
        assert!(c.knows_request(&hash128(b"a")) && c.knows_request(&hash128(b"b")));
        c.count("alpha beta");
        c.count("gamma delta");
        assert_eq!(c.fresh(), 0);
    }

    #[test]
    fn a_long_session_holds_no_more_than_the_file_would() {
        let mut known = KnownCounts::open(None, Tokenizer::Cl100kBase);
        for i in 0..2 * MAX_COUNTS + 1 {
            known.count(&format!("text {i}"));
        }
        for i in 0..2 * MAX_REQUESTS + 1 {
            known.counted_request(hash128(&i.to_le_bytes()));
        }
        known.save();
        assert_eq!(known.counts.len(), MAX_COUNTS);
        assert_eq!(known.requests.len(), MAX_REQUESTS);
        let last = format!("text {}", 2 * MAX_COUNTS);
        assert!(known.counts.contains_key(&hash128(last.as_bytes())));
        assert!(!known.counts.contains_key(&hash128(b"text 0")));
    }

    #[test]
    fn in_memory_counts_are_kept_for_the_session_only() {
        let mut known = KnownCounts::open(None, Tokenizer::Cl100kBase);
        assert_eq!(known.count("x = 1"), known.count("x = 1"));
        assert_eq!(known.fresh(), 1);
        known.save();
    }
}
