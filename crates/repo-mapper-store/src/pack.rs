//! The pack: one root's entries as the last whole scan left them, in one immutable file
//! read without sled's lock (issue 26). A warm run whose files `stat` vouches for against
//! the pack never opens sled; sled holds what changed since (see `cached.rs`).
//!
//! ```text
//! file  = magic:"RMPACK\x03" format:u8 entries:u32le chunks:u32le
//!         chunk_len{chunks}: (raw:u32le, packed:u32le, ids_raw:u32le, ids_packed:u32le)
//!         names_raw:u32le names_packed:u32le
//!         (packed_chunk packed_ids){chunks} packed_names   (zstd, level 1, of raw bytes)
//!         blake3-of-all-before:[u8;32]
//! raw   = (key_len:varint key value_len:varint value)*
//! ```
//!
//! Keys and values are the store's own (`scan::entry_key`, the `codec` entry). Chunks
//! hold about [`CHUNK`] raw bytes each, so they are packed and unpacked in parallel. The
//! ids and names parts (`pack_names`) number every string of the entries' tables once,
//! so that tags served from the pack carry their names' numbers, and the entries are
//! kept without their strings' bytes (the names part has them; `get` gives an entry
//! whole again). A pack of the first layout (`"RMPACK\x01"`: `chunk_len` without the
//! ids, no names, entries whole) is still read; its tags carry no numbers, and the next
//! whole scan writes it anew. (`"RMPACK\x02"` was never released.)

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::Arc;

use rayon::prelude::*;
use repo_mapper_tags::{Dialect, Language, NameTable, leb128};

use crate::blobs::replace_file;
use crate::codec::{self, FORMAT, Side};
use crate::pack_names::{ChunkIds, NamesBuilder, decode_ids, decode_names};

const MAGIC: &[u8; 7] = b"RMPACK\x03";
/// The first layout: no name table.
const MAGIC_V1: &[u8; 7] = b"RMPACK\x01";
const CHECKSUM_LEN: usize = 32;
/// Raw bytes per chunk, about.
const CHUNK: usize = 256 * 1024;
/// The most raw bytes a chunk may claim: a chunk holds about [`CHUNK`] bytes and the
/// entry that passed it, and no entry comes near this.
const MAX_RAW_CHUNK: usize = 256 * 1024 * 1024;
/// The most raw bytes the names part may claim.
const MAX_RAW_NAMES: usize = 4 * MAX_RAW_CHUNK;
/// zstd's fastest level: a pack is read on every warm run.
const LEVEL: i32 = 1;

/// Where one entry lies: its chunk, the key's and the value's ranges there, the range of
/// its strings' numbers in the chunk's ids, and whether the value is stripped of its
/// strings' bytes.
#[derive(Debug, Clone, Copy)]
struct Slot {
    chunk: u32,
    key: (u32, u32),
    value: (u32, u32),
    ids: (u32, u32),
    stripped: bool,
}

/// A pack as read: its chunks unpacked, its entries indexed by a hash of their key, and
/// its name table (none in a pack of the first layout).
#[derive(Debug, Default)]
pub(crate) struct Pack {
    chunks: Vec<Vec<u8>>,
    /// Per chunk: its entries' strings' numbers (empty without a name table).
    ids: Vec<Vec<u32>>,
    index: HashMap<u64, Slot>,
    names: Option<Arc<NameTable>>,
}

/// A file's identity while it is not replaced: device, inode, size (a pack is never
/// changed in place, only replaced by a rename).
pub(crate) type FileId = (u64, u64, u64);

/// The identity of the file `meta` describes.
pub(crate) fn file_id(meta: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino(), meta.len())
}

/// One chunk's lengths: raw and packed, of its entries then of their ids.
#[derive(Debug, Clone, Copy)]
struct ChunkLen {
    raw: usize,
    packed: usize,
    ids_raw: usize,
    ids_packed: usize,
}

impl Pack {
    /// Reads the pack at `path`: `Ok(None)` if there is none or it cannot be read (the
    /// store's own opening reports what is wrong with its directory), `Err(())` if it is
    /// damaged (then it is never trusted).
    pub(crate) fn read(path: &Path) -> Result<Option<Pack>, ()> {
        Pack::read_identified(path).1
    }

    /// [`Pack::read`], with the identity of the file read: taken from the open file, so
    /// it is the identity of the bytes read, not of whatever the path names by then.
    pub(crate) fn read_identified(path: &Path) -> (Option<FileId>, Result<Option<Pack>, ()>) {
        let read = crate::trust::no_follow(std::fs::File::options().read(true))
            .open(path)
            .and_then(|mut file| {
                use std::io::Read;
                let id = file_id(&file.metadata()?);
                let mut bytes = Vec::new();
                file.read_to_end(&mut bytes)?;
                Ok((id, bytes))
            });
        match read {
            Ok((id, bytes)) => (Some(id), Pack::parse(&bytes).map(Some).ok_or(())),
            Err(e) => {
                if e.kind() != io::ErrorKind::NotFound {
                    let text = format!("tag pack {} not read: {e}", path.display());
                    tracing::debug!("{}", crate::store::one_line(&text));
                }
                (None, Ok(None))
            }
        }
    }

    /// The pack in `bytes`; `None` if they are damaged or of another format.
    fn parse(bytes: &[u8]) -> Option<Pack> {
        let body = bytes.get(..bytes.len().checked_sub(CHECKSUM_LEN)?)?;
        if blake3::hash(body).as_bytes()[..] != bytes[body.len()..] {
            return None;
        }
        let (named, rest) = match body.strip_prefix(MAGIC) {
            Some(rest) => (true, rest),
            None => (false, body.strip_prefix(MAGIC_V1)?),
        };
        let (&format, rest) = rest.split_first()?;
        if format != FORMAT {
            return None;
        }
        let (entries, rest) = read_u32(rest)?;
        let (lens, names_len, rest) = read_lens(rest, named)?;
        // An entry takes two length bytes at least.
        if entries as usize > lens.iter().map(|l| l.raw).sum::<usize>() / 2 {
            return None;
        }
        let (packed, packed_names) = split_chunks(rest, &lens, names_len.1, named)?;
        let (chunks, names) = rayon::join(
            || unpack_chunks(&packed, &lens),
            || packed_names.map(|p| unpack(p, names_len.0).and_then(decode_names)),
        );
        let (chunks, names) = (chunks?, names.map_or(Some(None), |n| n.map(Some))?);
        let name_count = names.as_ref().map_or(0, NameTable::len);
        // Per chunk, in parallel: its ids decoded, its entries' slots found.
        let decoded: Option<Vec<Decoded>> = (chunks.par_iter().enumerate())
            .map(|(c, chunk)| {
                let ids = match &chunk.ids {
                    Some(raw) => decode_ids(raw, name_count)?,
                    None => ChunkIds::default(),
                };
                let slots = chunk_slots(c as u32, &chunk.entries, &ids.ranges, named)?;
                Some((ids.ids, slots))
            })
            .collect();
        let (ids, slots): (Vec<Vec<u32>>, Vec<_>) = decoded?.into_iter().unzip();
        let index = index_slots(slots, entries as usize)?;
        Some(Pack {
            chunks: chunks.into_iter().map(|c| c.entries).collect(),
            ids,
            index,
            names: names.map(Arc::new),
        })
    }

    /// The value stored under `key` and its strings' numbers, if the pack has it (the
    /// numbers if it has a name table and they were written for this entry).
    pub(crate) fn get_named(&self, key: &[u8]) -> Option<(&[u8], Option<Side<'_>>)> {
        let slot = self.index.get(&key_hash(key))?;
        let chunk = &self.chunks[slot.chunk as usize];
        let at = |(start, end): (u32, u32)| &chunk[start as usize..end as usize];
        if at(slot.key) != key {
            return None;
        }
        let side = self.names.as_ref().map(|table| Side {
            table,
            ids: &self.ids[slot.chunk as usize][slot.ids.0 as usize..slot.ids.1 as usize],
            stripped: slot.stripped,
        });
        Some((at(slot.value), side))
    }

    /// The value stored under `key` as it was given to the pack, if the pack has it
    /// (an entry kept stripped of its strings' bytes is made whole again).
    pub(crate) fn get(&self, key: &[u8]) -> Option<Cow<'_, [u8]>> {
        match self.get_named(key)? {
            (value, Some(side)) if side.stripped => {
                let strings = side.ids.iter().map(|&id| side.table.get(id));
                codec::unstripped(value, strings).map(Cow::Owned)
            }
            (value, _) => Some(Cow::Borrowed(value)),
        }
    }

    /// Whether it has a name table (a pack of the first layout has none).
    pub(crate) fn has_names(&self) -> bool {
        self.names.is_some()
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
    pub(crate) fn get(&self, hash: &[u8; 32], lang: Language) -> Option<Cow<'_, [u8]>> {
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

/// The chunks' lengths and the names part's (raw, packed), after which the packed parts
/// begin.
type Lens<'b> = (Vec<ChunkLen>, (usize, usize), &'b [u8]);

/// The lengths the header gives ([`Lens`]); `None` if one is absurd.
fn read_lens(rest: &[u8], named: bool) -> Option<Lens<'_>> {
    let (n, mut rest) = read_u32(rest)?;
    let per_chunk = if named { 16 } else { 8 };
    // Counts bounded by the bytes there are, so that no count allocates beyond them.
    if n as usize > rest.len() / per_chunk {
        return None;
    }
    let mut next = || -> Option<usize> {
        let (v, r) = read_u32(rest)?;
        rest = r;
        Some(v as usize)
    };
    let mut lens = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let (raw, packed) = (next()?, next()?);
        let (ids_raw, ids_packed) = if named { (next()?, next()?) } else { (0, 0) };
        if raw > MAX_RAW_CHUNK || ids_raw > MAX_RAW_CHUNK {
            return None;
        }
        lens.push(ChunkLen {
            raw,
            packed,
            ids_raw,
            ids_packed,
        });
    }
    let names = if named { (next()?, next()?) } else { (0, 0) };
    if names.0 > MAX_RAW_NAMES {
        return None;
    }
    Some((lens, names, rest))
}

/// The packed parts: per chunk its entries and its ids, then the names (if any).
type Parts<'b> = (Vec<(&'b [u8], &'b [u8])>, Option<&'b [u8]>);

/// The packed parts, by their lengths (the names if `named`); `None` unless they fill
/// `bytes` exactly.
fn split_chunks<'b>(
    mut bytes: &'b [u8],
    lens: &[ChunkLen],
    names_packed: usize,
    named: bool,
) -> Option<Parts<'b>> {
    let mut take = |len: usize| -> Option<&'b [u8]> {
        let (part, rest) = bytes.split_at_checked(len)?;
        bytes = rest;
        Some(part)
    };
    let mut out = Vec::with_capacity(lens.len());
    for l in lens {
        out.push((take(l.packed)?, take(l.ids_packed)?));
    }
    let names = if named {
        Some(take(names_packed)?)
    } else {
        None
    };
    bytes.is_empty().then_some((out, names))
}

/// A chunk's ids decoded, and its entries' slots with their keys' hashes.
type Decoded = (Vec<u32>, Vec<(u64, Slot)>);

/// A chunk unpacked: its entries, and its ids part where it has one.
struct Unpacked {
    entries: Vec<u8>,
    ids: Option<Vec<u8>>,
}

/// Each chunk unpacked.
fn unpack_chunks(packed: &[(&[u8], &[u8])], lens: &[ChunkLen]) -> Option<Vec<Unpacked>> {
    packed
        .par_iter()
        .zip(lens)
        .map(|(&(entries, ids), l)| {
            let ids = match l.ids_packed {
                0 => None,
                _ => Some(unpack(ids, l.ids_raw)?),
            };
            Some(Unpacked {
                entries: unpack(entries, l.raw)?,
                ids,
            })
        })
        .collect()
}

fn unpack(packed: &[u8], raw: usize) -> Option<Vec<u8>> {
    zstd::block::decompress(packed, raw).ok()
}

/// Every entry's slot, by its key's hash, from each chunk's ([`chunk_slots`]); `None`
/// unless there are `entries`. Of two keys with one hash (or one key twice) the first is
/// kept: the other reads as missing, which a scan treats as a file to check again.
fn index_slots(slots: Vec<Vec<(u64, Slot)>>, entries: usize) -> Option<HashMap<u64, Slot>> {
    if slots.iter().map(Vec::len).sum::<usize>() != entries {
        return None;
    }
    let mut index = HashMap::with_capacity(entries);
    for (k, slot) in slots.into_iter().flatten() {
        index.entry(k).or_insert(slot);
    }
    Some(index)
}

/// The slots of chunk `c`'s entries, each with its key's hash; `None` if the chunk is
/// malformed or, in a pack with a name table (`named`), `ranges` (its ids') are not one
/// per entry.
fn chunk_slots(
    c: u32,
    chunk: &[u8],
    ranges: &[(u32, u32, bool)],
    named: bool,
) -> Option<Vec<(u64, Slot)>> {
    let mut out = Vec::with_capacity(ranges.len());
    let mut ids = ranges.iter();
    let mut at = 0;
    while at < chunk.len() {
        let (key, after_key) = field(chunk, at)?;
        let (value, next) = field(chunk, after_key)?;
        let (ids, stripped) = match named {
            false => ((0, 0), false),
            true => {
                let &(start, end, stripped) = ids.next()?;
                ((start, end), stripped)
            }
        };
        let slot = Slot {
            chunk: c,
            key,
            value,
            ids,
            stripped,
        };
        out.push((key_hash(&chunk[key.0 as usize..key.1 as usize]), slot));
        at = next;
    }
    ids.next().is_none().then_some(out)
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
/// the raw entries are never all held at once), and numbering their strings.
#[derive(Debug, Default)]
pub(crate) struct PackBuilder {
    /// Packed chunks, each with its raw length and how many entries it holds.
    done: Vec<(u32, Vec<u8>, usize)>,
    current: Vec<u8>,
    current_entries: usize,
    entries: u32,
    names: NamesBuilder,
    failed: Option<io::Error>,
}

impl PackBuilder {
    /// Adds an entry.
    pub(crate) fn push(&mut self, key: &[u8], value: &[u8]) {
        let kept = self.names.add_entry(value);
        for part in [key, &kept[..]] {
            leb128::push(&mut self.current, part.len() as u64);
            self.current.extend_from_slice(part);
        }
        self.entries += 1;
        self.current_entries += 1;
        if self.current.len() >= CHUNK {
            self.pack_current();
        }
    }

    fn pack_current(&mut self) {
        let raw = std::mem::take(&mut self.current);
        let count = std::mem::take(&mut self.current_entries);
        match zstd::block::compress(&raw, LEVEL) {
            Ok(packed) => self.done.push((raw.len() as u32, packed, count)),
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
        let (raw_names, numbers) = self.names.finish();
        let starts = numbers.starts();
        let mut firsts = Vec::with_capacity(self.done.len());
        let mut first = 0;
        for &(_, _, count) in &self.done {
            firsts.push((first, count));
            first += count;
        }
        let ids: io::Result<Vec<(usize, Vec<u8>)>> = firsts
            .par_iter()
            .map(|&(first, count)| {
                let raw = numbers.encode(&starts, first, count);
                Ok((raw.len(), zstd::block::compress(&raw, LEVEL)?))
            })
            .collect();
        let ids = ids?;
        let names = zstd::block::compress(&raw_names, LEVEL)?;
        let mut out = MAGIC.to_vec();
        out.push(FORMAT);
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&(self.done.len() as u32).to_le_bytes());
        let mut put = |v: usize| out.extend_from_slice(&(v as u32).to_le_bytes());
        for ((raw, packed, _), (ids_raw, ids_packed)) in self.done.iter().zip(&ids) {
            put(*raw as usize);
            put(packed.len());
            put(*ids_raw);
            put(ids_packed.len());
        }
        put(raw_names.len());
        put(names.len());
        for ((_, packed, _), (_, ids_packed)) in self.done.iter().zip(&ids) {
            out.extend_from_slice(packed);
            out.extend_from_slice(ids_packed);
        }
        out.extend_from_slice(&names);
        let checksum = blake3::hash(&out);
        out.extend_from_slice(checksum.as_bytes());
        Ok(out)
    }

    /// Writes the pack to `path`, replacing any there whole (a temporary file, renamed).
    pub(crate) fn write(self, path: &Path) -> io::Result<()> {
        replace_file(path, &self.finish()?)
    }
}

/// A pack of the first layout (one chunk, no names) holding `entries`.
#[cfg(test)]
pub(crate) fn first_layout(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let mut raw = Vec::new();
    for (k, v) in entries {
        for part in [k, v] {
            leb128::push(&mut raw, part.len() as u64);
            raw.extend_from_slice(part);
        }
    }
    let packed = zstd::block::compress(&raw, LEVEL).unwrap();
    let mut bytes = MAGIC_V1.to_vec();
    bytes.push(FORMAT);
    for n in [entries.len(), 1, raw.len(), packed.len()] {
        bytes.extend_from_slice(&(n as u32).to_le_bytes());
    }
    bytes.extend_from_slice(&packed);
    let checksum = blake3::hash(&bytes);
    bytes.extend_from_slice(checksum.as_bytes());
    bytes
}

/// The pack in `bytes`, for tests of other modules.
#[cfg(test)]
pub(crate) fn parsed(bytes: &[u8]) -> Option<Pack> {
    Pack::parse(bytes)
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
            assert_eq!(pack.get(k).as_deref(), Some(&v[..]));
        }
        assert_eq!(pack.get(b"d/repo/src/other.rs").as_deref(), None);
        let empty = Pack::parse(&built(&[])).expect("an empty pack is sound");
        assert_eq!(empty.len(), 0);
    }

    /// Real entries: each file's tags, encoded as the store keeps them.
    fn tagged_entries(n: usize) -> Vec<(Vec<u8>, Vec<u8>, Vec<repo_mapper_tags::Tag>)> {
        use repo_mapper_tags::{Tag, TagKind};
        let key = codec::a_key();
        (0..n)
            .map(|i| {
                let rel: Arc<str> = Arc::from(format!("f{i}.py"));
                let fname: Arc<Path> = Arc::from(Path::new(&*format!("/r/f{i}.py")));
                let tag = |line: i32, name: String, kind| Tag {
                    rel_fname: Arc::clone(&rel),
                    fname: Arc::clone(&fname),
                    line,
                    name,
                    kind,
                    sub_kind: if kind == TagKind::Def {
                        "function"
                    } else {
                        "call"
                    },
                };
                let tags = vec![
                    tag(1, format!("own_{i}"), TagKind::Def),
                    tag(2, "shared".into(), TagKind::Ref),
                    tag(3, format!("r{}", i % 7), TagKind::Ref),
                    tag(4, "shared".into(), TagKind::Ref),
                    tag(5, format!("é{}", i % 3), TagKind::Def),
                ];
                let key_bytes = format!("d/r/f{i}.py").into_bytes();
                (key_bytes, codec::encode(&key, &tags, None), tags)
            })
            .collect()
    }

    #[test]
    fn tags_from_the_pack_carry_their_names_numbers() {
        let all = tagged_entries(8_000);
        let mut b = PackBuilder::default();
        for (k, v, _) in &all {
            b.push(k, v);
        }
        let pack = Pack::parse(&b.finish().unwrap()).expect("sound");
        assert!(pack.has_names() && pack.chunks.len() > 1);
        let table = pack.names.clone().unwrap();
        // Each distinct string once: own_i and é0..2, shared and r0..6, two sub-kinds.
        assert_eq!(table.len(), 8_000 + 3 + 1 + 7 + 2);
        // Numbered by how many entries hold them: those every entry holds first.
        let first: Vec<&str> = table.iter().take(3).collect();
        assert!(
            first.contains(&"shared") && first.contains(&"function"),
            "{first:?}"
        );
        for (k, v, tags) in &all {
            assert_eq!(pack.get(k).as_deref(), Some(&v[..]), "made whole again");
            let (value, side) = pack.get_named(k).unwrap();
            let side = side.unwrap();
            assert!(
                side.stripped && value.len() < v.len(),
                "kept without its strings"
            );
            let strings = codec::entry_strings(v).unwrap();
            let named: Vec<&str> = side.ids.iter().map(|&i| table.get(i).unwrap()).collect();
            assert_eq!(named, strings);
            let names = (&tags[0].rel_fname, &tags[0].fname);
            let counted = codec::decode_counted(value, names, Some(side)).unwrap();
            let plain = codec::decode_counted(v, names, None).unwrap();
            assert_eq!(counted, plain, "the same tags, references and words");
            assert!(plain.names.is_none() && plain.refs.numbers().is_none());
            let ids = counted.names.as_ref().unwrap();
            let by_number: Vec<&str> = ids.ids.iter().map(|&i| table.get(i).unwrap()).collect();
            let by_text: Vec<&str> = counted.defs.iter().map(|t| t.name.as_str()).collect();
            assert_eq!(by_number, by_text);
            let numbers = counted.refs.numbers().unwrap();
            assert!(Arc::ptr_eq(numbers.table, &table));
            let refs: Vec<(&str, u32)> = numbers
                .pairs
                .iter()
                .map(|&(i, c)| (table.get(i).unwrap(), c))
                .collect();
            assert_eq!(refs, plain.refs.iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn a_pack_of_the_first_layout_is_read_without_names() {
        let all = tagged_entries(10);
        let kv: Vec<(Vec<u8>, Vec<u8>)> =
            all.iter().map(|(k, v, _)| (k.clone(), v.clone())).collect();
        let pack = Pack::parse(&first_layout(&kv)).expect("the first layout is read");
        assert!(!pack.has_names());
        for (k, v, _) in &all {
            let (value, side) = pack.get_named(k).unwrap();
            assert_eq!((value, side.is_none()), (&v[..], true));
        }
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
        assert_eq!(pack.get(b"k").as_deref(), Some(&b"v"[..]));
        std::fs::write(&path, b"RMPACK\x01 nonsense").unwrap();
        assert!(Pack::read(&path).is_err());
        assert!(
            matches!(Pack::read(dir.path()), Ok(None)),
            "a directory is no pack"
        );
    }
}
