//! The pack: one root's entries as the last whole scan left them, in one immutable file
//! read without sled's lock (issue 26). A warm run whose files `stat` vouches for against
//! the pack never opens sled; sled holds what changed since (see `cached.rs`).
//!
//! ```text
//! file  = magic:"RMPACK\x01" format:u8 entries:u32le chunks:u32le
//!         chunk_len{chunks}: (raw:u32le, packed:u32le)
//!         packed_chunk{chunks}           (zstd, level 1, of raw bytes)
//!         blake3-of-all-before:[u8;32]
//! raw   = (key_len:varint key value_len:varint value)*
//! ```
//!
//! Keys and values are the store's own (`scan::entry_key`, the `codec` entry). Chunks
//! hold about [`CHUNK`] raw bytes each, so they are packed and unpacked in parallel.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use rayon::prelude::*;
use repo_mapper_tags::{Dialect, Language, leb128};

use crate::codec::{self, FORMAT};
use crate::words::replace_file;

const MAGIC: &[u8; 7] = b"RMPACK\x01";
const CHECKSUM_LEN: usize = 32;
/// Raw bytes per chunk, about.
const CHUNK: usize = 256 * 1024;
/// The most raw bytes a chunk may claim: a chunk holds about [`CHUNK`] bytes and the
/// entry that passed it, and no entry comes near this.
const MAX_RAW_CHUNK: usize = 256 * 1024 * 1024;
/// zstd's fastest level: a pack is read on every warm run.
const LEVEL: i32 = 1;

/// Where one entry lies: its chunk, and the key's and the value's ranges there.
#[derive(Debug, Clone, Copy)]
struct Slot {
    chunk: u32,
    key: (u32, u32),
    value: (u32, u32),
}

/// A pack as read: its chunks unpacked, its entries indexed by a hash of their key.
#[derive(Debug, Default)]
pub(crate) struct Pack {
    chunks: Vec<Vec<u8>>,
    index: HashMap<u64, Slot>,
}

impl Pack {
    /// Reads the pack at `path`: `Ok(None)` if there is none or it cannot be read (the
    /// store's own opening reports what is wrong with its directory), `Err(())` if it is
    /// damaged (then it is never trusted).
    pub(crate) fn read(path: &Path) -> Result<Option<Pack>, ()> {
        match std::fs::read(path) {
            Ok(bytes) => Pack::parse(&bytes).map(Some).ok_or(()),
            Err(e) => {
                if e.kind() != io::ErrorKind::NotFound {
                    let text = format!("tag pack {} not read: {e}", path.display());
                    tracing::debug!("{}", crate::store::one_line(&text));
                }
                Ok(None)
            }
        }
    }

    /// The pack in `bytes`; `None` if they are damaged or of another format.
    fn parse(bytes: &[u8]) -> Option<Pack> {
        let body = bytes.get(..bytes.len().checked_sub(CHECKSUM_LEN)?)?;
        if blake3::hash(body).as_bytes()[..] != bytes[body.len()..] {
            return None;
        }
        let rest = body.strip_prefix(MAGIC)?;
        let (&format, rest) = rest.split_first()?;
        if format != FORMAT {
            return None;
        }
        let (entries, rest) = read_u32(rest)?;
        let (n, mut rest) = read_u32(rest)?;
        // Counts bounded by the bytes there are, so that no count allocates beyond them.
        if n as usize > rest.len() / 8 {
            return None;
        }
        let mut lens = Vec::with_capacity(n as usize);
        let mut raw_total = 0usize;
        for _ in 0..n {
            let (raw, r) = read_u32(rest)?;
            let (packed, r) = read_u32(r)?;
            if raw as usize > MAX_RAW_CHUNK {
                return None;
            }
            raw_total += raw as usize;
            lens.push((raw as usize, packed as usize));
            rest = r;
        }
        // An entry takes two length bytes at least.
        if entries as usize > raw_total / 2 {
            return None;
        }
        let packed = split_chunks(rest, &lens)?;
        let chunks: Option<Vec<Vec<u8>>> = packed
            .par_iter()
            .zip(&lens)
            .map(|(p, &(raw, _))| zstd::block::decompress(p, raw).ok())
            .collect();
        let chunks = chunks?;
        let index = index_chunks(&chunks, entries as usize)?;
        Some(Pack { chunks, index })
    }

    /// The value stored under `key`, if the pack has it.
    pub(crate) fn get(&self, key: &[u8]) -> Option<&[u8]> {
        let slot = self.index.get(&key_hash(key))?;
        let chunk = &self.chunks[slot.chunk as usize];
        let at = |(start, end): (u32, u32)| &chunk[start as usize..end as usize];
        (at(slot.key) == key).then(|| at(slot.value))
    }

    /// Every entry, as (key, value), in no order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.index.values().map(|s| {
            let chunk = &self.chunks[s.chunk as usize];
            (
                &chunk[s.key.0 as usize..s.key.1 as usize],
                &chunk[s.value.0 as usize..s.value.1 as usize],
            )
        })
    }

    /// Every key it holds, in no order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &[u8]> {
        self.index
            .values()
            .map(|s| &self.chunks[s.chunk as usize][s.key.0 as usize..s.key.1 as usize])
    }

    /// How many entries it holds.
    pub(crate) fn len(&self) -> usize {
        self.index.len()
    }
}

/// Another root's pack, its entries found by content: a new checkout of a repository
/// mapped here takes each file's tags from there once its content hash matches (the file
/// is read and hashed, not parsed).
#[derive(Debug)]
pub(crate) struct ByContent {
    pack: Pack,
    /// The start of the content's BLAKE3 and the language its path gave, to the key.
    keys: HashMap<([u8; 16], Language), Vec<u8>>,
}

impl ByContent {
    /// The entries of `pack` (of `dialect`) by content and language.
    pub(crate) fn new(pack: Pack, dialect: Dialect) -> ByContent {
        let mut keys = HashMap::with_capacity(pack.len());
        for (key, value) in pack.entries() {
            let (Some(k), Some(lang)) = (codec::decode_key(value), key_language(key, dialect))
            else {
                continue;
            };
            let mut start = [0; 16];
            start.copy_from_slice(&k.hash[..16]);
            keys.entry((start, lang)).or_insert_with(|| key.to_vec());
        }
        ByContent { pack, keys }
    }

    /// Whether it holds no entry of the dialect it was made for.
    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The entry of a file of language `lang` whose content hashes to `hash`, if any.
    pub(crate) fn get(&self, hash: &[u8; 32], lang: Language) -> Option<&[u8]> {
        let mut start = [0; 16];
        start.copy_from_slice(&hash[..16]);
        self.pack.get(self.keys.get(&(start, lang))?)
    }
}

/// The language of the file an entry key names, if the key is of `dialect`.
fn key_language(key: &[u8], dialect: Dialect) -> Option<Language> {
    let (&tag, path) = key.split_first()?;
    if tag != crate::scan::dialect_tag(dialect) {
        return None;
    }
    #[cfg(unix)]
    let path = {
        use std::os::unix::ffi::OsStrExt;
        Path::new(std::ffi::OsStr::from_bytes(path))
    };
    #[cfg(not(unix))]
    let path = Path::new(std::str::from_utf8(path).ok()?);
    Language::for_path(path, dialect)
}

fn read_u32(bytes: &[u8]) -> Option<(u32, &[u8])> {
    let (n, rest) = bytes.split_first_chunk::<4>()?;
    Some((u32::from_le_bytes(*n), rest))
}

/// The packed chunks, by their lengths; `None` unless they fill `bytes` exactly.
fn split_chunks<'b>(mut bytes: &'b [u8], lens: &[(usize, usize)]) -> Option<Vec<&'b [u8]>> {
    let mut out = Vec::with_capacity(lens.len());
    for &(_, packed) in lens {
        let (chunk, rest) = bytes.split_at_checked(packed)?;
        out.push(chunk);
        bytes = rest;
    }
    bytes.is_empty().then_some(out)
}

/// Every entry's slot; `None` if a chunk is malformed or the count is not `entries`. Of
/// two keys with one hash (or one key twice) the first is kept: the other reads as
/// missing, which a scan treats as a file to check again.
fn index_chunks(chunks: &[Vec<u8>], entries: usize) -> Option<HashMap<u64, Slot>> {
    let mut index = HashMap::with_capacity(entries);
    let mut seen = 0;
    for (c, chunk) in chunks.iter().enumerate() {
        let mut at = 0;
        while at < chunk.len() {
            let (key, after_key) = field(chunk, at)?;
            let (value, next) = field(chunk, after_key)?;
            let slot = Slot {
                chunk: c as u32,
                key,
                value,
            };
            let k = key_hash(&chunk[key.0 as usize..key.1 as usize]);
            index.entry(k).or_insert(slot);
            seen += 1;
            at = next;
        }
    }
    (seen == entries).then_some(index)
}

/// A length-prefixed field at `at`: its range and where the next begins.
fn field(chunk: &[u8], at: usize) -> Option<((u32, u32), usize)> {
    let mut rest = chunk.get(at..)?;
    let len = leb128::take(&mut rest)?;
    let start = chunk.len() - rest.len();
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    (end <= chunk.len()).then_some(((start as u32, end as u32), end))
}

/// FNV-1a, 64 bits: keys are paths, the hash only picks the slot (the key is compared).
fn key_hash(key: &[u8]) -> u64 {
    repo_mapper_tags::fnv1a(repo_mapper_tags::FNV_OFFSET, key.iter().copied())
}

/// Builds a pack from entries given one at a time, packing each chunk as it fills (so
/// the raw entries are never all held at once).
#[derive(Debug, Default)]
pub(crate) struct PackBuilder {
    /// Packed chunks, each with its raw length.
    done: Vec<(u32, Vec<u8>)>,
    current: Vec<u8>,
    entries: u32,
    failed: Option<io::Error>,
}

impl PackBuilder {
    /// Adds an entry.
    pub(crate) fn push(&mut self, key: &[u8], value: &[u8]) {
        for part in [key, value] {
            leb128::push(&mut self.current, part.len() as u64);
            self.current.extend_from_slice(part);
        }
        self.entries += 1;
        if self.current.len() >= CHUNK {
            self.pack_current();
        }
    }

    fn pack_current(&mut self) {
        let raw = std::mem::take(&mut self.current);
        match zstd::block::compress(&raw, LEVEL) {
            Ok(packed) => self.done.push((raw.len() as u32, packed)),
            Err(e) => self.failed = Some(e),
        }
    }

    /// The pack's bytes.
    pub(crate) fn finish(mut self) -> io::Result<Vec<u8>> {
        if !self.current.is_empty() {
            self.pack_current();
        }
        if let Some(e) = self.failed {
            return Err(e);
        }
        let mut out = MAGIC.to_vec();
        out.push(FORMAT);
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&(self.done.len() as u32).to_le_bytes());
        for (raw, packed) in &self.done {
            out.extend_from_slice(&raw.to_le_bytes());
            out.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        }
        for (_, packed) in &self.done {
            out.extend_from_slice(packed);
        }
        let checksum = blake3::hash(&out);
        out.extend_from_slice(checksum.as_bytes());
        Ok(out)
    }

    /// Writes the pack to `path`, replacing any there whole (a temporary file, renamed).
    pub(crate) fn write(self, path: &Path) -> io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        replace_file(path, &self.finish()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
        (0..n)
            .map(|i| {
                let key = format!("d/repo/src/file{i}.rs").into_bytes();
                let value = vec![(i % 251) as u8; 40 + i % 700];
                (key, value)
            })
            .collect()
    }

    fn built(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
        let mut b = PackBuilder::default();
        for (k, v) in entries {
            b.push(k, v);
        }
        b.finish().unwrap()
    }

    #[test]
    fn every_entry_comes_back_across_chunks() {
        let all = entries(3_000);
        let bytes = built(&all);
        let pack = Pack::parse(&bytes).expect("sound");
        assert!(pack.chunks.len() > 2, "{} chunks", pack.chunks.len());
        assert_eq!(pack.len(), all.len());
        for (k, v) in &all {
            assert_eq!(pack.get(k), Some(&v[..]));
        }
        assert_eq!(pack.get(b"d/repo/src/other.rs"), None);
        let empty = Pack::parse(&built(&[])).expect("an empty pack is sound");
        assert_eq!(empty.len(), 0);
    }

    #[test]
    fn a_damaged_or_foreign_pack_is_not_read() {
        let bytes = built(&entries(500));
        for at in [0, 8, 9, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(Pack::parse(&damaged).is_none(), "flipped byte {at}");
        }
        assert!(Pack::parse(&bytes[..bytes.len() - 1]).is_none());
        assert!(Pack::parse(b"").is_none());
        // Another format, checksum made right: still not read.
        let mut other = bytes[..bytes.len() - CHECKSUM_LEN].to_vec();
        other[MAGIC.len()] = FORMAT.wrapping_add(1);
        let checksum = blake3::hash(&other);
        other.extend_from_slice(checksum.as_bytes());
        assert!(Pack::parse(&other).is_none());
    }

    /// A pack whose checksum is right but whose counts are absurd is refused before
    /// anything is allocated by them.
    #[test]
    fn absurd_counts_are_refused_without_allocating_them() {
        let sealed = |body: Vec<u8>| {
            let mut bytes = body;
            let checksum = blake3::hash(&bytes);
            bytes.extend_from_slice(checksum.as_bytes());
            bytes
        };
        let header = |entries: u32, chunks: u32| {
            let mut b = MAGIC.to_vec();
            b.push(FORMAT);
            b.extend_from_slice(&entries.to_le_bytes());
            b.extend_from_slice(&chunks.to_le_bytes());
            b
        };
        assert!(Pack::parse(&sealed(header(0, u32::MAX))).is_none());
        let mut huge_chunk = header(1, 1);
        huge_chunk.extend_from_slice(&u32::MAX.to_le_bytes());
        huge_chunk.extend_from_slice(&0u32.to_le_bytes());
        assert!(Pack::parse(&sealed(huge_chunk)).is_none());
        let many_entries = header(u32::MAX, 0);
        assert!(Pack::parse(&sealed(many_entries)).is_none());
    }

    #[test]
    fn read_tells_a_missing_pack_from_a_damaged_one() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("packs").join("p");
        assert!(matches!(Pack::read(&path), Ok(None)));
        let mut b = PackBuilder::default();
        b.push(b"k", b"v");
        b.write(&path).unwrap();
        let pack = Pack::read(&path).unwrap().unwrap();
        assert_eq!(pack.get(b"k"), Some(&b"v"[..]));
        std::fs::write(&path, b"RMPACK\x01 nonsense").unwrap();
        assert!(Pack::read(&path).is_err());
        assert!(
            matches!(Pack::read(dir.path()), Ok(None)),
            "a directory is no pack"
        );
    }
}
