//! The byte format of a stored entry: the file's validation key, then its tags without
//! paths (the key of the entry is the path).
//!
//! ```text
//! entry   = FORMAT:u8 flags:u8 mtime:time ctime:time inode:u64le size:u64le hash:[u8;32]
//!           nstrings:varint str* ntags:varint tag* ngroups:varint group*
//! flags   = bit 0: racy when written ([`FileKey::racy`]);
//!           bits 1–3: [`Note`] (0 none, 1 not UTF-8, cut short: 2 at the parse, 3 at the
//!           query, 4 by the tree's depth)
//! time    = secs:i64le nanos:u32le
//! str     = len:varint utf8-bytes
//! tag     = line-delta:zigzag-varint kind-sub:varint name:varint
//! kind-sub = sub_kind << 1 | kind (0 definition, 1 reference)
//! group   = sub_kind:varint name:varint count:varint
//! ```
//!
//! A file's code words (`Terms`) are kept apart, by content hash (the `words` module), in
//! this form:
//!
//! ```text
//! words      = unlisted:varint nterm-groups:varint term-group*
//!           (unlisted: the stop words, counted in the length only)
//! term-group = count-delta:varint n:varint rice-bits
//!           (grouped by count ascending; a group's hashes ascending, as gaps — the
//!           first from 0, the others less one — Golomb-Rice coded with the parameter
//!           `rice_k(n)`, low bit first, padded to a whole byte)
//! ```
//!
//! The references at line −1 that end a file's tags (the identifier fallback's,
//! behaviour.md §3.2: one per identifier token, thousands in a C file) are stored as groups, one per
//! (sub-kind, name) with its count, in order of first appearance: the same tags, a
//! fraction of the bytes. Decoding gives each group's copies together.
//!
//! Names and sub-kinds are indices into the entry's string table (a file names the same
//! identifier many times); lines are stored as the difference from the previous tag's.
//!
//! Any change to this layout bumps [`FORMAT`], which is part of the store's directory name,
//! so an old store is never misread.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use repo_mapper_tags::{
    CountedTags, CutShort, FileStamp, NameIds, NameTable, RefCounts, StatTime, TERM_HASH_BITS, Tag,
    TagKind, Terms, known_sub_kind, leb128,
};

/// Version of the entry layout.
pub(crate) const FORMAT: u8 = 10;

/// Why a stored file has fewer tags than its text holds, kept so that every run can say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Note {
    /// The file is not valid UTF-8: no tags (behaviour.md §13.6).
    NotUtf8,
    /// Extraction ran out of time ([`repo_mapper_tags::Limits`]).
    CutShort(CutShort),
}

const RACY_BIT: u8 = 1;
const NOTE_SHIFT: u8 = 1;

fn note_bits(note: Option<Note>) -> u8 {
    let code = match note {
        None => 0,
        Some(Note::NotUtf8) => 1,
        Some(Note::CutShort(CutShort::Parse)) => 2,
        Some(Note::CutShort(CutShort::Query)) => 3,
        Some(Note::CutShort(CutShort::Depth)) => 4,
    };
    code << NOTE_SHIFT
}

/// The note an entry carries (`None` for a complete entry or one not in this format).
pub(crate) fn decode_note(entry: &[u8]) -> Option<Note> {
    decode_key(entry)?;
    match (entry[1] >> NOTE_SHIFT) & 7 {
        1 => Some(Note::NotUtf8),
        2 => Some(Note::CutShort(CutShort::Parse)),
        3 => Some(Note::CutShort(CutShort::Query)),
        4 => Some(Note::CutShort(CutShort::Depth)),
        _ => None,
    }
}

/// What decides whether a stored entry still describes the file on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileKey {
    /// What `stat` said of the file when it was read (its size: the bytes read).
    pub stamp: FileStamp,
    /// blake3 of the file's bytes.
    pub hash: [u8; 32],
    /// The file's mtime was not older than the scan that wrote the entry (by the racy
    /// window): the file may have changed again within the same timestamp tick, so the
    /// entry is trusted only after its hash is checked, until a scan finds the file clean
    /// (git's racy-clean rule).
    pub racy: bool,
}

const HEADER_LEN: usize = 1 + 1 + 12 + 12 + 8 + 8 + 32;

/// Encodes a file's key, tags and note.
pub(crate) fn encode(key: &FileKey, tags: &[Tag], note: Option<Note>) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + 4 + tags.len() * 4);
    out.push(FORMAT);
    out.push(u8::from(key.racy) | note_bits(note));
    let stamp = &key.stamp;
    for (secs, nanos) in [stamp.mtime, stamp.ctime] {
        out.extend_from_slice(&secs.to_le_bytes());
        out.extend_from_slice(&nanos.to_le_bytes());
    }
    out.extend_from_slice(&stamp.inode.to_le_bytes());
    out.extend_from_slice(&stamp.size.to_le_bytes());
    out.extend_from_slice(&key.hash);
    let (listed, tail) = tags.split_at(tags.len() - fallback_tail_len(tags));
    let mut strings = StringTable::default();
    let listed_ids: Vec<(u64, u64)> = listed.iter().map(|t| strings.ids_of(t)).collect();
    let groups = strings.group(tail);
    leb128::push(&mut out, strings.list.len() as u64);
    for s in &strings.list {
        put_str(&mut out, s);
    }
    leb128::push(&mut out, listed.len() as u64);
    let mut prev_line = 0i64;
    for (t, (sub, name)) in listed.iter().zip(listed_ids) {
        leb128::push(&mut out, zigzag(i64::from(t.line) - prev_line));
        prev_line = i64::from(t.line);
        let kind = match t.kind {
            TagKind::Def => 0,
            TagKind::Ref => 1,
        };
        leb128::push(&mut out, sub << 1 | kind);
        leb128::push(&mut out, name);
    }
    leb128::push(&mut out, groups.len() as u64);
    for ((sub, name), count) in groups {
        leb128::push(&mut out, sub);
        leb128::push(&mut out, name);
        leb128::push(&mut out, count);
    }
    out
}

/// The code words grouped by count, ascending (most words occur once or twice, so a
/// count costs nothing per word); each group's hashes ascending, as Golomb-Rice coded
/// gaps (about two bytes a word: the hashes are uniform, so their gaps are near
/// geometric, which Rice codes within a bit of their entropy).
pub(crate) fn encode_terms(terms: &Terms) -> Vec<u8> {
    let mut out = Vec::new();
    put_terms(&mut out, terms);
    out
}

fn put_terms(out: &mut Vec<u8>, terms: &Terms) {
    leb128::push(out, terms.unlisted());
    let mut by_count: Vec<(u32, u32)> = terms.pairs().map(|(h, n)| (n, h)).collect();
    by_count.sort_unstable();
    let groups: Vec<&[(u32, u32)]> = by_count.chunk_by(|a, b| a.0 == b.0).collect();
    leb128::push(out, groups.len() as u64);
    let mut count = 0u32;
    for group in groups {
        leb128::push(out, u64::from(group[0].0 - count));
        count = group[0].0;
        leb128::push(out, group.len() as u64);
        let k = rice_k(group.len());
        let mut bits = BitWriter::new(out);
        let mut next = 0u32; // the least the next hash can be
        for &(_, hash) in group {
            bits.rice(hash - next, k);
            next = hash + 1;
        }
    }
}

/// The Rice parameter for `n` hashes spread over [`TERM_HASH_BITS`] bits: about
/// log2(0.69 × mean gap), the choice that costs least for geometric gaps.
fn rice_k(n: usize) -> u32 {
    let mean_gap = (1u64 << TERM_HASH_BITS) / (n as u64).max(1);
    (mean_gap * 69 / 100).max(1).ilog2()
}

/// Appends bits to a byte vector, low bit first; the last byte is padded with zeros.
struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Bits used in the last byte (0: start a new byte).
    used: u32,
}

impl<'a> BitWriter<'a> {
    fn new(out: &'a mut Vec<u8>) -> BitWriter<'a> {
        BitWriter { out, used: 0 }
    }

    fn bit(&mut self, one: bool) {
        if self.used == 0 {
            self.out.push(0);
        }
        if one && let Some(last) = self.out.last_mut() {
            *last |= 1 << self.used;
        }
        self.used = (self.used + 1) % 8;
    }

    /// `value` Rice coded with parameter `k`: `value >> k` ones and a zero, then the
    /// low `k` bits.
    fn rice(&mut self, value: u32, k: u32) {
        for _ in 0..value >> k {
            self.bit(true);
        }
        self.bit(false);
        for i in 0..k {
            self.bit(value >> i & 1 == 1);
        }
    }
}

/// How many tags at the end of `tags` are references at line −1: the identifier
/// fallback's, which extraction appends last and which differ in their name only.
fn fallback_tail_len(tags: &[Tag]) -> usize {
    tags.iter()
        .rev()
        .take_while(|t| t.line == -1 && t.kind == TagKind::Ref)
        .count()
}

/// An entry's string table under construction.
#[derive(Default)]
struct StringTable<'a> {
    index: HashMap<&'a str, u64>,
    list: Vec<&'a str>,
}

impl<'a> StringTable<'a> {
    fn id(&mut self, s: &'a str) -> u64 {
        *self.index.entry(s).or_insert_with(|| {
            self.list.push(s);
            self.list.len() as u64 - 1
        })
    }

    /// A tag's (sub-kind, name) ids.
    fn ids_of(&mut self, t: &'a Tag) -> (u64, u64) {
        (self.id(t.sub_kind), self.id(t.name.as_str()))
    }

    /// `tags` counted per (sub-kind, name), in order of first appearance.
    fn group(&mut self, tags: &'a [Tag]) -> Vec<((u64, u64), u64)> {
        let mut slot: HashMap<(u64, u64), usize> = HashMap::new();
        let mut groups: Vec<((u64, u64), u64)> = Vec::new();
        for t in tags {
            let ids = self.ids_of(t);
            let i = *slot.entry(ids).or_insert_with(|| {
                groups.push((ids, 0));
                groups.len() - 1
            });
            groups[i].1 += 1;
        }
        groups
    }
}

/// Replaces the key of an encoded entry, leaving its tags and note as they are.
pub(crate) fn with_key(mut entry: Vec<u8>, key: &FileKey) -> Vec<u8> {
    if entry.len() >= HEADER_LEN {
        let header = encode(key, &[], decode_note(&entry));
        entry[..HEADER_LEN].copy_from_slice(&header[..HEADER_LEN]);
    }
    entry
}

/// Decodes the key of an entry; `None` if the entry is not in this format.
pub(crate) fn decode_key(entry: &[u8]) -> Option<FileKey> {
    if entry.len() < HEADER_LEN || entry[0] != FORMAT {
        return None;
    }
    let u64_at = |at: usize| Some(u64::from_le_bytes(entry[at..at + 8].try_into().ok()?));
    let time_at = |at: usize| -> Option<StatTime> {
        let secs = i64::from_le_bytes(entry[at..at + 8].try_into().ok()?);
        Some((
            secs,
            u32::from_le_bytes(entry[at + 8..at + 12].try_into().ok()?),
        ))
    };
    let stamp = FileStamp {
        mtime: time_at(2)?,
        ctime: time_at(14)?,
        inode: u64_at(26)?,
        size: u64_at(34)?,
    };
    Some(FileKey {
        stamp,
        hash: entry[42..74].try_into().ok()?,
        racy: entry[1] & RACY_BIT != 0,
    })
}

/// Decodes every tag of an entry for the file `fname` (`rel_fname` relative to the root);
/// `None` if the entry is damaged. Scans use [`decode_counted`]; this full form checks that
/// the layout keeps every tag.
#[cfg(test)]
pub(crate) fn decode_tags(
    entry: &[u8],
    rel_fname: &Arc<str>,
    fname: &Arc<Path>,
) -> Option<Vec<Tag>> {
    let mut tags = Vec::new();
    let (_, end) = walk_tags(entry, None, |t, strings| {
        let tag = t.to_tag(strings, rel_fname, fname);
        tags.extend(std::iter::repeat_n(tag, t.count as usize));
    })?;
    (end == entry.len()).then_some(tags)
}

/// Decodes an entry as a map uses it: the definition tags, the references counted per
/// name (no reference becomes a [`Tag`]), no code words (they are kept apart); `None` if
/// the entry is damaged.
pub(crate) fn decode_counted(
    entry: &[u8],
    (rel_fname, fname): (&Arc<str>, &Arc<Path>),
    side: Option<Side<'_>>,
) -> Option<CountedTags> {
    SCRATCH.with_borrow_mut(|scratch| decode_counted_in(scratch, entry, (rel_fname, fname), side))
}

/// Buffers [`decode_counted`] reuses from entry to entry on a thread: each entry's tags
/// are gathered there, then copied once into allocations of their exact size (a warm scan
/// of the Linux tree decodes 56,000 entries; growing each one's vectors by doubling
/// touched twice the memory it kept, every page of it faulted in afresh).
#[derive(Default)]
struct Scratch {
    defs: Vec<Tag>,
    def_ids: Vec<u32>,
    counts: Vec<u32>,
    order: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// [`decode_counted`] with `scratch` as its buffers.
fn decode_counted_in(
    scratch: &mut Scratch,
    entry: &[u8],
    (rel_fname, fname): (&Arc<str>, &Arc<Path>),
    side: Option<Side<'_>>,
) -> Option<CountedTags> {
    let Scratch {
        defs,
        def_ids,
        counts,
        order,
    } = scratch;
    defs.clear();
    // With `side`, the definitions' names' numbers (the references' are in `refs`).
    def_ids.clear();
    // Per string: its reference count; and the strings referenced, in first-seen order.
    counts.clear();
    order.clear();
    let (strings, end) = walk_tags(entry, side, |t, strings| {
        if t.kind == TagKind::Def {
            defs.push(t.to_tag(strings, rel_fname, fname));
            if let Some(s) = &side {
                def_ids.push(s.ids[t.name]);
            }
            return;
        }
        if counts.is_empty() {
            counts.resize(strings.len(), 0);
        }
        if counts[t.name] == 0 {
            order.push(t.name as u32);
        }
        counts[t.name] = counts[t.name].saturating_add(t.count);
    })?;
    let refs = match side {
        // Numbered: no name copied.
        Some(s) => {
            let refs = order
                .iter()
                .map(|&i| (s.ids[i as usize], counts[i as usize]));
            RefCounts::numbered(Arc::clone(s.table), refs.collect())
        }
        None => {
            let bytes = order.iter().map(|&i| strings.get(i as usize).len()).sum();
            let mut refs = RefCounts::with_capacity(order.len(), bytes);
            for &i in order.iter() {
                refs.push(strings.get(i as usize), counts[i as usize]);
            }
            refs
        }
    };
    let names = side.map(|s| NameIds {
        table: Arc::clone(s.table),
        ids: def_ids[..].into(),
    });
    // Moved into an allocation of their number, the buffer kept for the next entry.
    let mut kept = Vec::with_capacity(defs.len());
    kept.append(defs);
    (end == entry.len()).then(|| CountedTags {
        defs: kept,
        refs,
        terms: Terms::default(),
        names,
    })
}

/// The pack's numbers for an entry's strings (in order, as [`stripped`] gives them), in its name
/// table: decoded tags then carry their names' numbers ([`CountedTags::names`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Side<'p> {
    pub(crate) table: &'p Arc<NameTable>,
    /// Each below the table's length: a pack's numbers are checked once, as the pack is
    /// read (`pack_names::decode_ids`), not again per entry.
    pub(crate) ids: &'p [u32],
    /// Whether the entry is stripped of its strings' bytes ([`stripped`]).
    pub(crate) stripped: bool,
}

/// One stored tag, its name an index into the entry's strings, and how many times it
/// occurs (more than once only in the fallback tail).
struct StoredTag {
    line: i32,
    kind: TagKind,
    sub_kind: &'static str,
    name: usize,
    count: u32,
}

impl StoredTag {
    /// The tag, for the file `fname` (`rel_fname` relative to the root).
    fn to_tag(&self, strings: &Strings<'_>, rel_fname: &Arc<str>, fname: &Arc<Path>) -> Tag {
        Tag {
            rel_fname: Arc::clone(rel_fname),
            fname: Arc::clone(fname),
            line: self.line,
            name: strings.get(self.name).to_owned(),
            kind: self.kind,
            sub_kind: self.sub_kind,
        }
    }
}

/// Reads an entry's tags in order: `each` gets every listed tag, then every group of the
/// fallback tail, with the entry's strings. Returns the strings and where the tags end,
/// or `None` if the entry is damaged (after which the tags already seen must be
/// discarded).
fn walk_tags<'e>(
    entry: &'e [u8],
    side: Option<Side<'e>>,
    mut each: impl FnMut(StoredTag, &Strings<'e>),
) -> Option<(Strings<'e>, usize)> {
    decode_key(entry)?;
    let mut r = Reader {
        buf: entry,
        pos: HEADER_LEN,
    };
    // Every string takes at least 1 byte and every tag 3: never trust a count the data
    // cannot hold.
    let strings = match side {
        Some(side) => strings_by_number(&mut r, side)?,
        None => Strings::Text(read_strings(&mut r)?),
    };
    let nstrings = strings.len();
    let mut sub_kinds = SubKinds::new(&strings);
    let ntags = usize::try_from(r.varint()?).ok()?;
    if ntags > entry.len() / 3 {
        return None;
    }
    let mut line = 0i64;
    for _ in 0..ntags {
        line = line.checked_add(unzigzag(r.varint()?))?;
        let kind_sub = r.varint()?;
        let kind = if kind_sub & 1 == 0 {
            TagKind::Def
        } else {
            TagKind::Ref
        };
        let sub_kind = sub_kinds.get(kind_sub >> 1)?;
        let name = r.index(nstrings)?;
        let line = i32::try_from(line).ok()?;
        let tag = StoredTag {
            line,
            kind,
            sub_kind,
            name,
            count: 1,
        };
        each(tag, &strings);
    }
    let ngroups = usize::try_from(r.varint()?).ok()?;
    if ngroups > entry.len() / 3 {
        return None;
    }
    for _ in 0..ngroups {
        let sub_kind = sub_kinds.get(r.varint()?)?;
        let name = r.index(nstrings)?;
        let count = u32::try_from(r.varint()?).ok().filter(|&c| c > 0)?;
        let tag = StoredTag {
            line: -1,
            kind: TagKind::Ref,
            sub_kind,
            name,
            count,
        };
        each(tag, &strings);
    }
    Some((strings, r.pos))
}

/// The strings of an entry's table, in order (what its tags' names are indices into);
/// `None` if the entry is damaged.
#[cfg(test)]
pub(crate) fn entry_strings(entry: &[u8]) -> Option<Vec<&str>> {
    stripped(entry).map(|(strings, _)| strings)
}

/// The strings of an entry's table, and the entry without their bytes: its header, the
/// number of strings, then its tags (how the pack keeps an entry whose strings its name
/// table numbers); `None` if the entry is damaged.
pub(crate) fn stripped(entry: &[u8]) -> Option<(Vec<&str>, Vec<u8>)> {
    decode_key(entry)?;
    let mut r = Reader {
        buf: entry,
        pos: HEADER_LEN,
    };
    let strings = read_strings(&mut r)?;
    let mut out = Vec::with_capacity(HEADER_LEN + 5 + entry.len() - r.pos);
    out.extend_from_slice(&entry[..HEADER_LEN]);
    leb128::push(&mut out, strings.len() as u64);
    out.extend_from_slice(&entry[r.pos..]);
    Some((strings, out))
}

/// The entry `stripped` ([`stripped`]) was made from, its strings given again; `None`
/// if it is damaged or `strings` are not as many as it had.
pub(crate) fn unstripped<'s>(
    stripped: &[u8],
    strings: impl ExactSizeIterator<Item = Option<&'s str>>,
) -> Option<Vec<u8>> {
    let mut rest = stripped.get(HEADER_LEN..)?;
    let n = leb128::take(&mut rest)?;
    if n != strings.len() as u64 {
        return None;
    }
    let mut out = Vec::with_capacity(stripped.len() + 16 * strings.len());
    out.extend_from_slice(&stripped[..HEADER_LEN]);
    leb128::push(&mut out, n);
    for s in strings {
        put_str(&mut out, s?);
    }
    out.extend_from_slice(rest);
    Some(out)
}

/// An entry's string table, `r` at its start.
fn read_strings<'e>(r: &mut Reader<'e>) -> Option<Vec<&'e str>> {
    // Every string takes at least 1 byte: never trust a count the data cannot hold.
    let nstrings = usize::try_from(r.varint()?).ok()?;
    if nstrings > r.buf.len() {
        return None;
    }
    let mut strings = Vec::with_capacity(nstrings);
    for _ in 0..nstrings {
        strings.push(r.str()?);
    }
    Some(strings)
}

/// An entry's string table as `side` numbers it, `r` at its start: the text taken from
/// the name table (checked as UTF-8 once, when the pack was read), each string's bytes
/// passed over unless the entry is stripped of them; `None` if the table does not
/// number this entry's strings.
fn strings_by_number<'e>(r: &mut Reader<'e>, side: Side<'e>) -> Option<Strings<'e>> {
    let nstrings = usize::try_from(r.varint()?).ok()?;
    if nstrings != side.ids.len() {
        return None;
    }
    for _ in 0..nstrings * usize::from(!side.stripped) {
        let len = usize::try_from(r.varint()?).ok()?;
        r.pos = r.pos.checked_add(len).filter(|&end| end <= r.buf.len())?;
    }
    Some(Strings::Numbered(side))
}

/// An entry's strings, which its tags' names index: read from the entry, or numbered in
/// a pack's name table and looked up only when a name's text is asked for (a warm scan
/// wants the text of definitions alone: references are counted by number, and looking
/// every one up in a table of millions costs a cache miss each).
enum Strings<'e> {
    /// The entry's own strings.
    Text(Vec<&'e str>),
    /// The table's numbers for the entry's strings ([`Side::ids`]: in the table).
    Numbered(Side<'e>),
}

impl<'e> Strings<'e> {
    /// How many strings the entry has.
    fn len(&self) -> usize {
        match self {
            Strings::Text(strings) => strings.len(),
            Strings::Numbered(side) => side.ids.len(),
        }
    }

    /// String `i` (below [`Strings::len`], as [`Reader::index`] checks).
    fn get(&self, i: usize) -> &'e str {
        match self {
            Strings::Text(strings) => strings[i],
            // Every number was checked to be in the table when the pack was read.
            Strings::Numbered(side) => side.table.get(side.ids[i]).unwrap_or_default(),
        }
    }
}

/// Decodes code words encoded by [`encode_terms`]; `None` if damaged.
pub(crate) fn decode_terms(entry: &[u8]) -> Option<Terms> {
    let mut r = Reader { buf: entry, pos: 0 };
    let unlisted = r.varint()?;
    let groups = usize::try_from(r.varint()?).ok()?;
    if groups > entry.len() {
        return None;
    }
    let mut pairs = Vec::new();
    let mut count = 0u32;
    for _ in 0..groups {
        // Counts are at least 1 and each group's is above the last's.
        let step = u32::try_from(r.varint()?).ok()?;
        if step == 0 {
            return None;
        }
        count = count.checked_add(step)?;
        let n = usize::try_from(r.varint()?).ok()?;
        // Each hash takes at least one bit.
        if n == 0 || n > 8 * (entry.len() - r.pos) {
            return None;
        }
        let k = rice_k(n);
        let mut bits = BitReader::new(&mut r);
        let mut next = 0u32;
        for _ in 0..n {
            let hash = next.checked_add(bits.rice(k)?)?;
            if hash >= 1 << TERM_HASH_BITS {
                return None;
            }
            pairs.push((hash, count));
            next = hash + 1;
        }
    }
    if r.pos != entry.len() {
        return None;
    }
    pairs.sort_unstable();
    Terms::from_sorted(pairs, unlisted)
}

/// The sub-kinds an entry's strings name, each looked up once (they are few).
struct SubKinds<'s, 'e> {
    strings: &'s Strings<'e>,
    known: Vec<Option<&'static str>>,
}

impl<'s, 'e> SubKinds<'s, 'e> {
    fn new(strings: &'s Strings<'e>) -> Self {
        SubKinds {
            strings,
            known: vec![None; strings.len()],
        }
    }

    /// The sub-kind string `index` names; `None` for a name no query uses, which can
    /// only come from damage.
    fn get(&mut self, index: u64) -> Option<&'static str> {
        let i = usize::try_from(index).ok()?;
        if let Some(s) = *self.known.get(i)? {
            return Some(s);
        }
        let s = known_sub_kind(self.strings.get(i))?;
        self.known[i] = Some(s);
        Some(s)
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    leb128::push(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// Reads what [`BitWriter`] wrote, from a [`Reader`]'s position: up to 64 bits held at
/// a time, so a run of ones is counted in one step.
struct BitReader<'r, 'a> {
    r: &'r mut Reader<'a>,
    /// Bits not yet read, the next lowest.
    held: u64,
    /// How many bits `held` holds.
    count: u32,
}

/// Gives back the whole bytes read ahead: the next field starts after the byte holding
/// the last bit read.
impl Drop for BitReader<'_, '_> {
    fn drop(&mut self) {
        self.r.pos -= (self.count / 8) as usize;
    }
}

impl<'r, 'a> BitReader<'r, 'a> {
    fn new(r: &'r mut Reader<'a>) -> BitReader<'r, 'a> {
        BitReader {
            r,
            held: 0,
            count: 0,
        }
    }

    /// Tops `held` up with whole bytes; false when the input has ended and none is held.
    fn fill(&mut self) -> bool {
        while self.count <= 56 {
            let Some(b) = self.r.byte() else { break };
            self.held |= u64::from(b) << self.count;
            self.count += 8;
        }
        self.count > 0
    }

    /// The next `k` bits (`k` < 32) as a number, low bit first.
    fn bits(&mut self, k: u32) -> Option<u32> {
        if k == 0 {
            return Some(0);
        }
        if self.count < k {
            self.fill();
            if self.count < k {
                return None;
            }
        }
        let value = (self.held & ((1u64 << k) - 1)) as u32;
        self.held >>= k;
        self.count -= k;
        Some(value)
    }

    /// A Rice coded value with parameter `k`; `None` at the end of the input or for a
    /// value no hash gap can be.
    fn rice(&mut self, k: u32) -> Option<u32> {
        let limit = (1u32 << TERM_HASH_BITS) >> k;
        let mut high = 0u32;
        loop {
            if self.count == 0 && !self.fill() {
                return None;
            }
            let ones = self.held.trailing_ones().min(self.count);
            high += ones;
            if high > limit {
                return None;
            }
            // All 64 held bits may be ones: a shift by 64 leaves nothing.
            self.held = self.held.checked_shr(ones).unwrap_or(0);
            self.count -= ones;
            if self.count > 0 {
                break; // the zero that ends the run
            }
        }
        self.held >>= 1;
        self.count -= 1;
        Some(high << k | self.bits(k)?)
    }
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn varint(&mut self) -> Option<u64> {
        let mut rest = self.buf.get(self.pos..)?;
        let v = leb128::take(&mut rest)?;
        self.pos = self.buf.len() - rest.len();
        Some(v)
    }

    /// A string index, which must be below `n`.
    fn index(&mut self, n: usize) -> Option<usize> {
        usize::try_from(self.varint()?).ok().filter(|&i| i < n)
    }

    fn str(&mut self) -> Option<&'a str> {
        let len = usize::try_from(self.varint()?).ok()?;
        let end = self.pos.checked_add(len)?;
        let s = std::str::from_utf8(self.buf.get(self.pos..end)?).ok()?;
        self.pos = end;
        Some(s)
    }
}

/// A key for tests: the stamp `(3, (1, 2), (4, 5), 6)`, the hash zeros, not racy.
#[cfg(test)]
pub(crate) fn a_key() -> FileKey {
    FileKey {
        stamp: FileStamp {
            size: 3,
            mtime: (1, 2),
            ctime: (4, 5),
            inode: 6,
        },
        hash: [0; 32],
        racy: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(line: i32, name: &str, kind: TagKind, sub: &'static str) -> Tag {
        Tag {
            rel_fname: Arc::from("a.py"),
            fname: Arc::from(Path::new("/r/a.py")),
            line,
            name: name.to_owned(),
            kind,
            sub_kind: sub,
        }
    }

    fn a_key() -> FileKey {
        super::a_key()
    }

    /// Issue 24: a file's words, grouped by count and Rice coded, cost about two bytes
    /// each (three as varint deltas, five as a 32-bit hash delta and a count per word).
    #[test]
    fn code_words_cost_about_two_bytes_each() {
        let text: String = (0..400)
            .map(|i| format!("word{i}x{} ", "abcdefghij".repeat(i % 3 + 1)))
            .collect::<String>()
            + &"common shared often ".repeat(50);
        let terms = Terms::of_text(&text);
        let words = terms.pairs().len();
        assert!(words > 400, "{words}");
        let bytes = encode_terms(&terms);
        let per_word = bytes.len() as f64 / words as f64;
        assert!(per_word <= 2.3, "{per_word:.2} bytes per word");
        assert_eq!(decode_terms(&bytes), Some(terms));
    }

    /// Any set of hashes comes back: one alone, the extremes of the hash range, groups
    /// of every size up to thousands.
    #[test]
    fn rice_coded_hashes_round_trip() {
        let top = (1u32 << TERM_HASH_BITS) - 1;
        let mut state = 0x9e37_79b9_u32;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state
        };
        // A run of ones longer than the 64 bits read at a time: 50 hashes all in the
        // top half, so the first gap's high part is 64 ones (once not decodable).
        let top_half: Vec<(u32, u32)> = (0..50).map(|i| ((1 << 23) + i * 1000, 1)).collect();
        let terms = Terms::from_sorted(top_half, 0).unwrap();
        assert_eq!(decode_terms(&encode_terms(&terms)), Some(terms));
        for n in [1usize, 2, 3, 100, 5000] {
            let mut pairs: Vec<(u32, u32)> =
                (0..n).map(|_| (next() & top, next() % 4 + 1)).collect();
            pairs.extend([(0, 1), (top, 1), (top - 1, 7)]);
            pairs.sort_unstable();
            pairs.dedup_by_key(|p| p.0);
            let terms = Terms::from_sorted(pairs, n as u64).unwrap();
            let back = decode_terms(&encode_terms(&terms));
            assert_eq!(back, Some(terms), "{n} hashes");
        }
    }

    #[test]
    fn code_words_round_trip() {
        let terms = Terms::of_text("fn redirect_session(cookie: Cookie) { keep(cookie) }");
        let bytes = encode_terms(&terms);
        let back = decode_terms(&bytes).unwrap();
        assert_eq!(back, terms);
        assert!(back.count(repo_mapper_tags::term_hash("cookie")) >= 2);
        assert_eq!(
            decode_terms(&encode_terms(&Terms::default())),
            Some(Terms::default())
        );
        for cut in 1..bytes.len() {
            assert_ne!(
                decode_terms(&bytes[..bytes.len() - cut]),
                Some(terms.clone())
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_terms(&longer).is_none(), "trailing bytes are damage");
    }

    /// An entry holds tags only: anything after them is damage.
    #[test]
    fn bytes_after_the_tags_are_damage() {
        let tags = vec![tag(1, "redirect_session", TagKind::Def, "function")];
        let mut bytes = encode(&a_key(), &tags, None);
        let (rel, f) = (Arc::from("a.rs"), Arc::from(Path::new("/r/a.rs")));
        assert!(decode_counted(&bytes, (&rel, &f), None).is_some());
        bytes.push(0);
        assert!(decode_counted(&bytes, (&rel, &f), None).is_none());
        assert!(decode_tags(&bytes, &rel, &f).is_none());
    }

    #[test]
    fn round_trip() {
        let key = FileKey {
            stamp: FileStamp {
                size: 1 << 40,
                mtime: (-5, 999),
                ctime: (i64::MAX, 1),
                inode: u64::MAX,
            },
            hash: [7; 32],
            racy: true,
        };
        let tags = vec![
            tag(1, "f", TagKind::Def, "function"),
            tag(70_000, "g\u{e9}", TagKind::Ref, "call"),
            tag(-1, "x", TagKind::Ref, "identifier"),
            tag(i32::MAX, "", TagKind::Def, "class"),
            tag(2, "f", TagKind::Ref, "call"),
        ];
        let note = Some(Note::CutShort(CutShort::Depth));
        let bytes = encode(&key, &tags, note);
        assert_eq!(decode_key(&bytes), Some(key));
        assert_eq!(decode_note(&bytes), note);
        let back = decode_tags(&bytes, &tags[0].rel_fname, &tags[0].fname).unwrap();
        assert_eq!(back, tags);
        let key2 = FileKey {
            stamp: FileStamp {
                mtime: (9, 0),
                ..key.stamp
            },
            racy: false,
            ..key
        };
        let moved = with_key(bytes, &key2);
        assert_eq!(decode_key(&moved), Some(key2));
        assert_eq!(decode_note(&moved), note);
        assert_eq!(
            decode_tags(&moved, &tags[0].rel_fname, &tags[0].fname).unwrap(),
            tags
        );
    }

    #[test]
    fn damaged_entries_decode_to_none() {
        let key = a_key();
        let bytes = encode(&key, &[tag(3, "name", TagKind::Def, "function")], None);
        let rel: Arc<str> = Arc::from("a");
        let f: Arc<Path> = Arc::from(Path::new("/a"));
        for cut in 0..bytes.len() {
            assert!(
                decode_tags(&bytes[..cut], &rel, &f).is_none(),
                "cut at {cut}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode_tags(&longer, &rel, &f).is_none());
        let mut other_format = bytes.clone();
        other_format[0] = FORMAT + 1;
        assert!(decode_key(&other_format).is_none());
        let mut huge_count = bytes[..HEADER_LEN].to_vec();
        huge_count.extend_from_slice(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(decode_tags(&huge_count, &rel, &f).is_none());
        // A sub-kind no query uses can only be damage (it used to be leaked, then mapped
        // to "unknown").
        let at = bytes.windows(8).position(|w| w == b"function").unwrap();
        let mut renamed = bytes.clone();
        renamed[at..at + 8].copy_from_slice(b"functiox");
        assert!(decode_tags(&renamed, &rel, &f).is_none());
        for cut in 0..bytes.len() {
            assert!(decode_counted(&bytes[..cut], (&rel, &f), None).is_none());
        }
        assert!(decode_counted(&renamed, (&rel, &f), None).is_none());
    }

    #[test]
    fn the_fallback_tail_is_stored_as_groups() {
        let key = a_key();
        let mut tags = vec![
            tag(1, "main", TagKind::Def, "function"),
            tag(-1, "main", TagKind::Ref, "identifier"),
        ];
        for i in 0..300 {
            let name = ["printf", "x", "main"][i % 3];
            tags.push(tag(-1, name, TagKind::Ref, "identifier"));
        }
        let bytes = encode(&key, &tags, None);
        // Listed, the 301 references would take 3 bytes each.
        assert!(bytes.len() < HEADER_LEN + 60, "{} bytes", bytes.len());
        let (rel, f) = (&tags[0].rel_fname.clone(), &tags[0].fname.clone());
        let back = decode_tags(&bytes, rel, f).unwrap();
        // The same tags; each name's copies together, names in order of first appearance.
        let mut grouped = vec![tags[0].clone()];
        for (name, n) in [("main", 101), ("printf", 100), ("x", 100)] {
            grouped.extend((0..n).map(|_| tag(-1, name, TagKind::Ref, "identifier")));
        }
        assert_eq!(back, grouped);
        let counted = decode_counted(&bytes, (rel, f), None).unwrap();
        assert_eq!(counted, CountedTags::from_tags(tags));
        // A group of no references can only be damage (the last group's count is the
        // entry's last byte).
        let mut zero = bytes.clone();
        let last = zero.len() - 1;
        zero[last] = 0;
        assert!(decode_counted(&zero, (rel, f), None).is_none());
    }

    #[test]
    fn counted_decoding_agrees_with_the_tags() {
        let tags = vec![
            tag(1, "f", TagKind::Def, "function"),
            tag(2, "g", TagKind::Ref, "call"),
            tag(-1, "x", TagKind::Ref, "identifier"),
            tag(4, "g", TagKind::Def, "class"),
            tag(5, "g", TagKind::Ref, "call"),
            tag(6, "f", TagKind::Ref, "call"),
        ];
        let key = a_key();
        let bytes = encode(&key, &tags, None);
        let counted = decode_counted(&bytes, (&tags[0].rel_fname, &tags[0].fname), None).unwrap();
        assert_eq!(counted, CountedTags::from_tags(tags));
        assert_eq!(
            counted.refs.iter().collect::<Vec<_>>(),
            [("g", 2), ("x", 1), ("f", 1)]
        );
    }

    /// An entry whose strings a pack's name table numbers decodes as the entry with its
    /// own strings does, stripped or not, the names looked up only as needed (a number
    /// outside the table is refused where numbers are read: `pack_names::decode_ids`).
    #[test]
    fn numbered_decoding_agrees_with_the_text() {
        let tags = vec![
            tag(1, "open", TagKind::Def, "function"),
            tag(2, "close", TagKind::Ref, "call"),
            tag(-1, "fd", TagKind::Ref, "identifier"),
            tag(3, "close", TagKind::Def, "function"),
            tag(4, "open", TagKind::Ref, "call"),
        ];
        let names = (&tags[0].rel_fname, &tags[0].fname);
        let bytes = encode(&a_key(), &tags, None);
        let plain = decode_counted(&bytes, names, None).unwrap();
        let (strings, without) = stripped(&bytes).unwrap();
        // The table holds the entry's strings (names and sub-kinds) in another order, and
        // one more.
        let listed: Vec<&str> = strings.iter().rev().copied().chain(["extra"]).collect();
        let table = Arc::new(NameTable::new(listed.iter().copied()).unwrap());
        let number = |s: &&str| listed.iter().position(|n| n == s).unwrap() as u32;
        let ids: Vec<u32> = strings.iter().map(number).collect();
        for (entry, stripped) in [(&bytes[..], false), (&without[..], true)] {
            let side = |ids| {
                Some(Side {
                    table: &table,
                    ids,
                    stripped,
                })
            };
            let numbered = decode_counted(entry, names, side(&ids)).unwrap();
            assert_eq!(numbered, plain, "stripped: {stripped}");
        }
    }
}
