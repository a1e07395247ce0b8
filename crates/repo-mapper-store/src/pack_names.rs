//! The pack's name table (issue 26): every string of its entries' tables, numbered once,
//! and per entry the numbers of its strings. A warm ranking then tells names apart by
//! number instead of hashing each name of each file (`CountedTags::names`).
//!
//! ```text
//! raw_ids   = (n_stripped:varint id:varint{n})*   one per entry of a chunk, in order:
//!             n << 1 | stripped, then the numbers of its table's strings (an entry not
//!             read as one: 0, kept whole); a stripped entry is kept without its
//!             strings' bytes (`codec::stripped`), the table having them
//! raw_names = count:varint len:varint{count} utf8-bytes
//! ```
//!
//! Names are numbered by how many entries hold them, most first, so that the numbers
//! most written are the shortest varints.

use hashbrown::HashTable;
use repo_mapper_tags::fxhash::hash_str as hash;
use repo_mapper_tags::{NameTable, leb128};

use crate::codec;

/// Numbers the strings of entries as they are added to a pack.
#[derive(Debug, Default)]
pub(crate) struct NamesBuilder {
    text: String,
    ends: Vec<u32>,
    /// Per name: how many entries hold it.
    counts: Vec<u32>,
    table: HashTable<u32>,
    /// Every entry's numbers (as first seen), back to back.
    ids: Vec<u32>,
    /// Per entry: how many numbers it has, shifted left, and whether it is stripped.
    lens: Vec<u32>,
}

impl NamesBuilder {
    /// Numbers the strings of `entry`, the next entry, and gives it as the pack keeps
    /// it: stripped of its strings' bytes if it could be read, else whole.
    pub(crate) fn add_entry<'e>(&mut self, entry: &'e [u8]) -> std::borrow::Cow<'e, [u8]> {
        let Some((strings, stripped)) = codec::stripped(entry) else {
            self.lens.push(0);
            return entry.into();
        };
        for s in &strings {
            let id = self.intern(s);
            self.counts[id as usize] += 1;
            self.ids.push(id);
        }
        self.lens.push((strings.len() as u32) << 1 | 1);
        stripped.into()
    }

    fn intern(&mut self, name: &str) -> u32 {
        let hash = hash(name);
        let (text, ends) = (&self.text, &self.ends);
        if let Some(&id) = self.table.find(hash, |&id| name_at(text, ends, id) == name) {
            return id;
        }
        let id = self.ends.len() as u32;
        self.text.push_str(name);
        self.ends.push(self.text.len() as u32);
        self.counts.push(0);
        let (text, ends) = (&self.text, &self.ends);
        self.table
            .insert_unique(hash, id, |&id| self::hash(name_at(text, ends, id)));
        id
    }

    /// The names section, and per entry its numbers in it (`ranges` of `numbers`).
    pub(crate) fn finish(self) -> (Vec<u8>, Numbers) {
        let n = self.ends.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&i| (std::cmp::Reverse(self.counts[i as usize]), i));
        let mut final_id = vec![0u32; n];
        for (k, &i) in order.iter().enumerate() {
            final_id[i as usize] = k as u32;
        }
        let mut raw = Vec::with_capacity(self.text.len() + 3 * n + 8);
        leb128::push(&mut raw, n as u64);
        for &i in &order {
            leb128::push(&mut raw, name_at(&self.text, &self.ends, i).len() as u64);
        }
        for &i in &order {
            raw.extend_from_slice(name_at(&self.text, &self.ends, i).as_bytes());
        }
        let ids = self.ids.iter().map(|&i| final_id[i as usize]).collect();
        (
            raw,
            Numbers {
                ids,
                lens: self.lens,
            },
        )
    }
}

/// Every entry's numbers, back to back, and how many each has.
#[derive(Debug)]
pub(crate) struct Numbers {
    ids: Vec<u32>,
    lens: Vec<u32>,
}

impl Numbers {
    /// The raw ids part of a chunk holding the entries `first..first + count`.
    pub(crate) fn encode(&self, starts: &[usize], first: usize, count: usize) -> Vec<u8> {
        let mut raw = Vec::new();
        for e in first..first + count {
            leb128::push(&mut raw, u64::from(self.lens[e]));
            debug_assert_eq!(starts[e + 1] - starts[e], self.lens[e] as usize >> 1);
            for &id in &self.ids[starts[e]..starts[e + 1]] {
                leb128::push(&mut raw, u64::from(id));
            }
        }
        raw
    }

    /// Where each entry's numbers start (one more at the end).
    pub(crate) fn starts(&self) -> Vec<usize> {
        let mut starts = Vec::with_capacity(self.lens.len() + 1);
        let mut at = 0;
        starts.push(at);
        for &len in &self.lens {
            at += len as usize >> 1;
            starts.push(at);
        }
        starts
    }
}

/// A chunk's numbers read back.
#[derive(Debug, Default)]
pub(crate) struct ChunkIds {
    /// Its entries' numbers, back to back.
    pub(crate) ids: Vec<u32>,
    /// Per entry, in order: the range of its numbers in `ids`, and whether it is
    /// stripped of its strings' bytes.
    pub(crate) ranges: Vec<(u32, u32, bool)>,
}

/// A chunk's ids part read back; `None` if it is malformed, or a number is not below
/// `names`.
pub(crate) fn decode_ids(mut raw: &[u8], names: usize) -> Option<ChunkIds> {
    let mut ids = Vec::with_capacity(raw.len() / 2);
    let mut ranges = Vec::new();
    while !raw.is_empty() {
        let n_stripped = usize::try_from(leb128::take(&mut raw)?).ok()?;
        let (n, stripped) = (n_stripped >> 1, n_stripped & 1 == 1);
        // Every number takes a byte at least.
        if n > raw.len() {
            return None;
        }
        let start = ids.len() as u32;
        for _ in 0..n {
            let id = u32::try_from(leb128::take(&mut raw)?).ok()?;
            if id as usize >= names {
                return None;
            }
            ids.push(id);
        }
        ranges.push((start, ids.len() as u32, stripped));
    }
    Some(ChunkIds { ids, ranges })
}

/// The names section read back; `None` if it is malformed.
pub(crate) fn decode_names(mut bytes: Vec<u8>) -> Option<NameTable> {
    let mut raw = &bytes[..];
    let count = usize::try_from(leb128::take(&mut raw)?).ok()?;
    if count > raw.len() {
        return None;
    }
    let mut ends = Vec::with_capacity(count);
    let mut end = 0u64;
    for _ in 0..count {
        end = end.checked_add(leb128::take(&mut raw)?)?;
        ends.push(u32::try_from(end).ok()?);
    }
    if end != raw.len() as u64 {
        return None;
    }
    // The names' text stays where it was unpacked: only the header goes.
    bytes.drain(..bytes.len() - raw.len());
    NameTable::from_parts(bytes, ends)
}

/// Name `id` of the names `text` holds, each ending at its `ends`.
fn name_at<'t>(text: &'t str, ends: &[u32], id: u32) -> &'t str {
    let i = id as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..ends[i] as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk's numbers are read only if each is a name of the table: a number past its
    /// end is damage, refused with the pack (entries decode by number without checking
    /// again).
    #[test]
    fn numbers_outside_the_table_are_damage() {
        // One entry of two numbers, 0 and 1, not stripped.
        let raw = [2 << 1, 0, 1];
        let ids = decode_ids(&raw, 2).unwrap();
        assert_eq!((ids.ids, ids.ranges), (vec![0, 1], vec![(0, 2, false)]));
        assert!(
            decode_ids(&raw, 1).is_none(),
            "1 is past a table of one name"
        );
        assert!(decode_ids(&[2 << 1, 0], 2).is_none(), "a number missing");
    }
}
