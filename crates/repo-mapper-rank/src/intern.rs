//! Identifier ids for every tag name and counted reference of a request, found in
//! parallel.
//!
//! Hashing every name is the index's main cost on a large repository (the Linux tree:
//! 18 million names). Only defined names get ids (1 million there, of 2.6 million
//! distinct): a name nobody defines makes no edge, so its references are only looked up,
//! and counted as references ([`NONE`]). Names are split into shards by hash, one table per
//! shard, each filled by its own thread (definitions first, then references looked up):
//! no table is shared and none is merged. A shard's ids follow first appearance within the
//! shard, and the shards' ids follow one another. (Which id a name gets does not matter to
//! the ranking: every order it depends on — first definition, file order, names — is kept
//! apart.)

use repo_mapper_tags::fxhash::hash_str as hash;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use hashbrown::HashTable;
use rayon::prelude::*;

use crate::FileTags;
use crate::csr::NONE;
use crate::numbered::ByNumber;
use repo_mapper_tags::TagKind;

/// The identifiers of a request and, per file, the id of each tag and counted reference.
pub(crate) struct Interned<'a> {
    /// Identifier names by id.
    pub names: Vec<&'a str>,
    /// Where each name is, by id: (file, tag) of its first definition in its shard.
    pub name_at: Vec<(u32, u32)>,
    /// Finds a name's id.
    pub lookup: NameLookup,
    /// The id of each file's tags then counted references ([`NONE`] for names nobody
    /// defines).
    pub ids: Ids<'a>,
}

/// The ids of every file's names, tags first.
pub(crate) enum Ids<'a> {
    /// Back to back, with where each file's start (one more entry at the end).
    Flat { ids: Vec<u32>, starts: Vec<usize> },
    /// Found from each file's numbers when asked: no list of every name's id is made
    /// (the Linux tree's would be 9 million).
    ByNumber(ByNumber<'a>),
}

impl<'a> Interned<'a> {
    /// Interns the names of `files`; `skip[i]` files contribute none. By number where
    /// most names come numbered in one table ([`FileTags::names`]), else by hashing.
    pub(crate) fn build(files: &[FileTags<'a>], skip: &[bool]) -> Interned<'a> {
        crate::numbered::interned(files, skip).unwrap_or_else(|| {
            Interned::build_in_shards(files, skip, rayon::current_num_threads().max(1))
        })
    }

    pub(crate) fn build_in_shards(
        files: &[FileTags<'a>],
        skip: &[bool],
        count: usize,
    ) -> Interned<'a> {
        let starts = starts(files, skip);
        let total = starts.last().copied().unwrap_or(0);
        let slots: Vec<AtomicU32> = (0..total).map(|_| AtomicU32::new(0)).collect();
        // Each name hashed once, in parallel: the shards then read its hash, not its text,
        // and only the shard that owns a name looks at its bytes again.
        let hashes = name_hashes(files, skip, &starts);
        // Tables sized for every definition to be a new name: never rehashed.
        let defs: usize = files
            .iter()
            .zip(skip)
            .filter(|(_, skip)| !**skip)
            .map(|(f, _)| f.tags.iter().filter(|t| t.kind == TagKind::Def).count())
            .sum();
        let expected = defs / count + 1;
        let shards: Vec<Shard<'a>> = (0..count)
            .into_par_iter()
            .map(|s| {
                let at = Slots {
                    starts: &starts,
                    hashes: &hashes,
                    ids: &slots,
                };
                Shard::fill(files, skip, &at, (s, count), expected)
            })
            .collect();
        let mut first = Vec::with_capacity(count);
        let mut names = Vec::with_capacity(shards.iter().map(|s| s.names.len()).sum());
        let mut name_at = Vec::with_capacity(names.capacity());
        for shard in &shards {
            first.push(names.len() as u32);
            names.extend_from_slice(&shard.names);
            name_at.extend_from_slice(&shard.at);
        }
        let ids = to_global(&hashes, slots, &first);
        let shards = shards
            .into_iter()
            .zip(first)
            .map(|(s, f)| (s.table, f))
            .collect();
        Interned {
            names,
            name_at,
            lookup: NameLookup::Shards(shards),
            ids: Ids::Flat { ids, starts },
        }
    }

    /// The ids of file `fi`'s tags, then of its counted references ([`NONE`] for names
    /// nobody defines); `scratch` holds them if they must be found.
    pub(crate) fn file_ids<'s>(&'s self, fi: usize, scratch: &'s mut Vec<u32>) -> &'s [u32] {
        match &self.ids {
            Ids::Flat { ids, starts } => &ids[starts[fi]..starts[fi + 1]],
            Ids::ByNumber(by_number) => {
                by_number.file_ids(fi, scratch);
                scratch
            }
        }
    }
}

/// Finds a defined name's id by its text after the build.
pub(crate) enum NameLookup {
    /// The sharded interner's tables: per shard its table (shard-local ids, hashed by
    /// name) and its first id.
    Shards(Vec<(HashTable<u32>, u32)>),
    /// A table of every id by name, made the first time a name is looked up (interning
    /// by number hashes none).
    Lazy(OnceLock<HashTable<u32>>),
}

impl std::fmt::Debug for NameLookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NameLookup::Shards(shards) => {
                let sizes: Vec<usize> = shards.iter().map(|(t, _)| t.len()).collect();
                f.debug_struct("NameLookup")
                    .field("shards", &sizes)
                    .finish()
            }
            NameLookup::Lazy(table) => f
                .debug_struct("NameLookup")
                .field("made", &table.get().map(HashTable::len))
                .finish(),
        }
    }
}

impl NameLookup {
    /// The id of `name` among `names` (the interner's), if some file defines it.
    pub(crate) fn find(&self, names: &[&str], name: &str) -> Option<u32> {
        let hash = hash(name);
        match self {
            NameLookup::Shards(shards) => {
                let (table, first) = shards.get(shard_of(hash, shards.len()))?;
                table
                    .find(hash, |&id| names[(first + id) as usize] == name)
                    .map(|&id| first + id)
            }
            NameLookup::Lazy(table) => {
                let table = table.get_or_init(|| by_name(names));
                table.find(hash, |&id| names[id as usize] == name).copied()
            }
        }
    }
}

/// Every id of `names` (distinct), hashed by its name.
fn by_name(names: &[&str]) -> HashTable<u32> {
    let hashes: Vec<u64> = names.par_iter().map(|n| hash(n)).collect();
    let mut table = HashTable::with_capacity(names.len());
    for (id, &h) in hashes.iter().enumerate() {
        table.insert_unique(h, id as u32, |&id| hashes[id as usize]);
    }
    table
}

/// The names of a file, tags first, each with whether it is a definition.
pub(crate) fn file_names<'a>(file: &FileTags<'a>) -> impl Iterator<Item = (&'a str, bool)> {
    let tags = file
        .tags
        .iter()
        .map(|t| (t.name.as_str(), t.kind == TagKind::Def));
    tags.chain(file.refs.iter().map(|(name, _)| (name, false)))
}

/// Per file, where its names start among all files' names.
pub(crate) fn starts(files: &[FileTags<'_>], skip: &[bool]) -> Vec<usize> {
    let mut starts = Vec::with_capacity(files.len() + 1);
    let mut at = 0;
    for (file, &skip) in files.iter().zip(skip) {
        starts.push(at);
        if !skip {
            at += file.tags.len() + file.refs.len();
        }
    }
    starts.push(at);
    starts
}

/// The shard of a hash: its high bits (the tables use the low ones).
fn shard_of(hash: u64, count: usize) -> usize {
    ((hash >> 40) % count as u64) as usize
}

/// Each name's hash, at its slot (files' names back to back, as `starts` places them).
fn name_hashes(files: &[FileTags<'_>], skip: &[bool], starts: &[usize]) -> Vec<u64> {
    let mut hashes = vec![0u64; starts.last().copied().unwrap_or(0)];
    let mut rest: &mut [u64] = &mut hashes;
    let mut per_file = Vec::with_capacity(files.len());
    for fi in 0..files.len() {
        let (head, tail) = rest.split_at_mut(starts[fi + 1] - starts[fi]);
        per_file.push((fi, head));
        rest = tail;
    }
    per_file.into_par_iter().for_each(|(fi, out)| {
        if skip[fi] {
            return;
        }
        for (h, (name, _)) in out.iter_mut().zip(file_names(&files[fi])) {
            *h = hash(name);
        }
    });
    hashes
}

/// Where each name's id goes, and its hash, by slot.
struct Slots<'s> {
    starts: &'s [usize],
    hashes: &'s [u64],
    ids: &'s [AtomicU32],
}

/// One shard's names, ids local to it.
struct Shard<'a> {
    names: Vec<&'a str>,
    /// (file, tag) of each name.
    at: Vec<(u32, u32)>,
    table: HashTable<u32>,
}

impl<'a> Shard<'a> {
    /// Interns the names of shard `s` (of `count`), writing each one's local id into its
    /// slot; the table has room for `expected` names.
    fn fill(
        files: &[FileTags<'a>],
        skip: &[bool],
        at: &Slots<'_>,
        (s, count): (usize, usize),
        expected: usize,
    ) -> Shard<'a> {
        let mut shard = Shard {
            names: Vec::with_capacity(expected),
            at: Vec::with_capacity(expected),
            table: HashTable::with_capacity(expected),
        };
        for defs in [true, false] {
            for (fi, file) in files.iter().enumerate() {
                if skip[fi] {
                    continue;
                }
                let start = at.starts[fi];
                for (k, (name, is_def)) in file_names(file).enumerate() {
                    let h = at.hashes[start + k];
                    if is_def != defs || shard_of(h, count) != s {
                        continue;
                    }
                    let id = if defs {
                        shard.intern(name, h, (fi as u32, k as u32))
                    } else {
                        shard.find(name, h).unwrap_or(NONE)
                    };
                    at.ids[start + k].store(id, Ordering::Relaxed);
                }
            }
        }
        shard
    }

    fn find(&self, name: &str, hash_of_name: u64) -> Option<u32> {
        let names = &self.names;
        self.table
            .find(hash_of_name, |&id| names[id as usize] == name)
            .copied()
    }

    /// The id of `name`, new if it is new (then it is at `at`: file, tag).
    fn intern(&mut self, name: &'a str, hash_of_name: u64, at: (u32, u32)) -> u32 {
        let (names, ats) = (&mut self.names, &mut self.at);
        let entry = self.table.entry(
            hash_of_name,
            |&id| names[id as usize] == name,
            |&id| hash(names[id as usize]),
        );
        *entry
            .or_insert_with(|| {
                names.push(name);
                ats.push(at);
                (names.len() - 1) as u32
            })
            .get()
    }
}

/// The slots' shard-local ids made global (each shard's ids follow the previous shards').
fn to_global(hashes: &[u64], slots: Vec<AtomicU32>, first: &[u32]) -> Vec<u32> {
    let mut ids: Vec<u32> = slots.into_iter().map(AtomicU32::into_inner).collect();
    ids.par_iter_mut().zip(hashes).for_each(|(id, &h)| {
        if *id != NONE {
            *id += first[shard_of(h, first.len())];
        }
    });
    ids
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{def, file, refr};

    #[test]
    fn every_name_gets_one_id_in_any_number_of_shards() {
        let a = vec![
            def("a.py", 1, "x"),
            refr("a.py", 2, "y"),
            refr("a.py", 3, "q"),
        ];
        let b = vec![refr("b.py", 1, "z"), def("b.py", 2, "x")];
        let c = vec![
            def("c.py", 1, "w"),
            refr("c.py", 2, "y"),
            def("c.py", 3, "y"),
        ];
        let files = vec![
            file("a.py", &a, false),
            file("b.py", &b, false),
            file("c.py", &c, false),
        ];
        let skip = [false, true, false];
        for shards in 1..=5 {
            let interned = Interned::build_in_shards(&files, &skip, shards);
            let mut names = interned.names.clone();
            names.sort_unstable();
            assert_eq!(names, ["w", "x", "y"], "{shards} shards");
            let name = |fi: usize| -> Vec<&str> {
                let ids = interned.file_ids(fi, &mut Vec::new()).to_vec();
                let name = |&i: &u32| interned.names.get(i as usize).copied().unwrap_or("-");
                ids.iter().map(name).collect()
            };
            // `q` is defined nowhere: looked up, not interned.
            assert_eq!(name(0), ["x", "y", "-"]);
            assert!(name(1).is_empty());
            assert_eq!(name(2), ["w", "y", "y"]);
            let id_of = |n: &str| interned.lookup.find(&interned.names, n);
            for n in ["w", "x", "y"] {
                assert_eq!(interned.names[id_of(n).unwrap() as usize], n);
            }
            assert_eq!(id_of("z"), None);
            assert_eq!(id_of("q"), None);
        }
    }
}
