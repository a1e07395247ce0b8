//! The tag index (behaviour.md §6.1): who defines and who references each identifier.
//!
//! Identifiers are interned (`&str` borrowed from the tags, see `intern.rs`) and the
//! per-identifier file lists are flat arrays (CSR), so an 80,000-file repository costs a few
//! small vectors, not a map of sets.

use std::cmp::Ordering;
use std::collections::HashSet;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use repo_mapper_tags::fxhash::FxBuildHasher;
use repo_mapper_tags::{Tag, TagKind};

use crate::FileTags;
use crate::csr::{Csr, NONE};
use crate::intern::{Interned, NameLookup};
use crate::relevance::PartIndex;

/// A definition tag of one file: its identifier, line and index in the file's tag slice.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DefTag {
    pub ident: u32,
    pub line: i32,
    pub tag: u32,
}

/// `defines`, `references` and `definitions` over the files of a request: the owned
/// [`IndexCore`] and the identifiers' names, borrowed from the tags.
#[derive(Debug)]
pub(crate) struct TagIndex<'a> {
    /// Identifier names by id.
    pub names: Vec<&'a str>,
    core: Arc<IndexCore>,
    /// Whether the core is kept for more rankings (then orders are worth keeping too).
    kept: bool,
}

/// Positions in name order, kept with an index that ranks the same files again: the
/// ranking's tie-breaks then compare integers, not strings.
#[derive(Debug)]
pub(crate) struct NameOrders {
    /// Each file's position among the files sorted by `rel_fname`.
    pub files: Vec<u32>,
    /// Each identifier's position among the names sorted.
    pub idents: Vec<u32>,
}

/// The part of a [`TagIndex`] that borrows nothing, so that it can be kept to rank the
/// same files again ([`crate::RankIndex`]).
#[derive(Debug)]
pub(crate) struct IndexCore {
    /// Where each identifier's name is: (file, tag) of one of its definitions.
    name_at: Vec<(u32, u32)>,
    lookup: NameLookup,
    /// Defined identifiers, in the order of their first definition (Aider's `defines` keys).
    def_order: Vec<u32>,
    /// `defines[ident]`: defining files, ascending (file-processing order).
    definers: Csr<u32>,
    /// `Counter(references[ident])`: referencing files ascending, with their counts.
    referencers: Csr<(u32, u32)>,
    /// Whether any file has any reference tag (Aider's `if not references`).
    any_reference: bool,
    /// `definitions`, per file: def tags sorted by (ident, line), one per (ident, line).
    file_defs: Csr<DefTag>,
    /// Name orders, computed the first time a kept index ranks.
    orders: OnceLock<NameOrders>,
    /// Per (identifier, definer) pair, in the order of `definers`' values: the
    /// definition tags, by line. Computed the first time a kept index lists definitions.
    pair_tags: OnceLock<Csr<u32>>,
    /// Which names hold which word parts, computed the first time a message is scored.
    parts: OnceLock<PartIndex>,
}

impl<'a> TagIndex<'a> {
    /// Indexes `files` in order. `skip[i]` files (duplicates) contribute nothing.
    pub(crate) fn build(files: &[FileTags<'a>], skip: &[bool]) -> TagIndex<'a> {
        let interned = Interned::build(files, skip);
        let entries: Vec<FileEntry> = (0..files.len())
            .into_par_iter()
            .map_init(Vec::new, |scratch, fi| match skip[fi] {
                true => FileEntry::default(),
                false => FileEntry::of(&files[fi], interned.file_ids(fi, scratch)),
            })
            .collect();
        finish(interned, &entries)
    }

    /// The index `core` was built as, over `files` — the files it was built from, with the
    /// same tags (see [`crate::RankIndex::fits`]): names are looked up, nothing is hashed.
    pub(crate) fn over(core: Arc<IndexCore>, files: &[FileTags<'a>]) -> TagIndex<'a> {
        let names = core
            .name_at
            .iter()
            .map(|&(file, tag)| files[file as usize].tags[tag as usize].name.as_str())
            .collect();
        TagIndex {
            names,
            core,
            kept: true,
        }
    }

    /// The name orders, if this index is kept between rankings (computed once per index);
    /// `None` for an index built for one ranking, where sorting every name would cost more
    /// than the tie-breaks it saves.
    pub(crate) fn kept_orders(&self, files: &[FileTags<'_>]) -> Option<&NameOrders> {
        self.kept.then(|| {
            self.core.orders.get_or_init(|| NameOrders {
                files: name_order(files),
                idents: positions(self.names.len(), |a, b| self.names[a].cmp(self.names[b])),
            })
        })
    }

    /// The owned part, to keep.
    pub(crate) fn core(&self) -> Arc<IndexCore> {
        Arc::clone(&self.core)
    }

    /// The id of identifier `name`, if some file has it.
    pub(crate) fn id_of(&self, name: &str) -> Option<u32> {
        self.core.lookup.find(&self.names, name)
    }

    /// Defined identifiers, in the order of their first definition (Aider's `defines` keys).
    pub(crate) fn def_order(&self) -> &[u32] {
        &self.core.def_order
    }

    /// Whether any file has any reference tag (Aider's `if not references`).
    pub(crate) fn any_reference(&self) -> bool {
        self.core.any_reference
    }

    /// Files defining `ident`, ascending.
    pub(crate) fn definers(&self, ident: u32) -> &[u32] {
        self.core.definers.get(ident as usize)
    }

    /// How many (identifier, definer) pairs there are.
    pub(crate) fn definer_pair_count(&self) -> usize {
        self.core.definers.values().len()
    }

    /// Where `ident`'s (identifier, definer) pairs are among all pairs.
    pub(crate) fn definer_pairs(&self, ident: u32) -> std::ops::Range<usize> {
        self.core.definers.range(ident as usize)
    }

    /// The definition tags of every (identifier, definer) pair, by pair
    /// ([`TagIndex::definer_pairs`]), if this index is kept between rankings (computed
    /// once per index: the lookups [`TagIndex::definitions`] makes per ranking).
    pub(crate) fn kept_pair_tags(&self) -> Option<&Csr<u32>> {
        self.kept.then(|| {
            self.core.pair_tags.get_or_init(|| {
                let idents = self.core.definers.keys() as u32;
                let pairs = (0..idents).flat_map(|i| self.definers(i).iter().map(move |&f| (i, f)));
                let mut start = vec![0u32];
                let mut tags = Vec::new();
                for (ident, file) in pairs {
                    tags.extend(self.definitions(file, ident));
                    start.push(tags.len() as u32);
                }
                Csr::from_parts(start, tags)
            })
        })
    }

    /// Files referencing `ident`, ascending, with their reference counts.
    pub(crate) fn referencers(&self, ident: u32) -> &[(u32, u32)] {
        self.core.referencers.get(ident as usize)
    }

    /// Whether this index is kept between rankings (a warm session's): then what is
    /// computed once per index pays for itself.
    pub(crate) fn is_kept(&self) -> bool {
        self.kept
    }

    /// Which identifiers hold which word parts (built once per core).
    pub(crate) fn part_index(&self) -> &PartIndex {
        self.core
            .parts
            .get_or_init(|| PartIndex::build(&self.names))
    }

    /// The identifiers `file` defines, ascending, each once.
    pub(crate) fn defined_idents(&self, file: u32) -> impl Iterator<Item = u32> + '_ {
        let defs = self.core.file_defs.get(file as usize);
        defs.iter()
            .enumerate()
            .filter(move |&(i, d)| i == 0 || defs[i - 1].ident != d.ident)
            .map(|(_, d)| d.ident)
    }

    /// The definition tags of `ident` in `file`, by line: indices into the file's tags.
    pub(crate) fn definitions(&self, file: u32, ident: u32) -> impl Iterator<Item = u32> + '_ {
        let defs = self.core.file_defs.get(file as usize);
        let lo = defs.partition_point(|d| d.ident < ident);
        let hi = defs.partition_point(|d| d.ident <= ident);
        defs[lo..hi].iter().map(|d| d.tag)
    }
}

/// One file's part of the index, made apart from the others' (files in parallel).
#[derive(Debug, Default)]
struct FileEntry {
    /// Its definitions, sorted by (identifier, line), one per (identifier, line):
    /// `definitions` is a set.
    defs: Vec<DefTag>,
    /// The identifiers it defines, each once, in order of their first definition there.
    defined: Vec<u32>,
    /// `Counter(references)` of the file: (identifier, count), each identifier once.
    refs: Vec<(u32, u32)>,
    /// Whether it has any reference, to a defined name or not (Aider's `if not references`).
    any_reference: bool,
}

impl FileEntry {
    /// The entry of `file`, whose tags then counted references have the identifiers `ids`
    /// ([`NONE`]: a name nobody defines, which makes no edge but is a reference). A
    /// file's counted references count as that many reference tags.
    fn of(file: &FileTags<'_>, ids: &[u32]) -> FileEntry {
        let (tag_ids, ref_ids) = ids.split_at(file.tags.len());
        let mut entry = FileEntry::default();
        let mut tag_refs = false;
        for (ti, (tag, &ident)) in file.tags.iter().zip(tag_ids).enumerate() {
            if tag.kind == TagKind::Ref {
                entry.any_reference = true;
                if ident != NONE {
                    tag_refs = true;
                    entry.refs.push((ident, 1));
                }
            } else if ident != NONE {
                entry.defs.push(DefTag {
                    ident,
                    line: tag.line,
                    tag: ti as u32,
                });
            }
        }
        for ((_, count), &ident) in file.refs.iter().zip(ref_ids) {
            entry.any_reference |= count > 0;
            if ident != NONE && count > 0 {
                entry.refs.push((ident, count));
            }
        }
        // Counted references name each identifier once (`RefCounts`' contract): only
        // reference tags can repeat one.
        if tag_refs {
            merge_counts(&mut entry.refs);
        }
        debug_assert!(first_seen(entry.refs.iter().map(|r| r.0)).len() == entry.refs.len());
        entry.defined = first_seen(entry.defs.iter().map(|d| d.ident));
        dedup_definitions(&mut entry.defs);
        entry
    }
}

/// Each identifier's counts summed into one pair (reference tags and counted references
/// of one file may name the same identifier); the pairs' order does not matter.
fn merge_counts(refs: &mut Vec<(u32, u32)>) {
    refs.sort_by_key(|&(ident, _)| ident);
    let mut kept = 0;
    for i in 0..refs.len() {
        if kept > 0 && refs[kept - 1].0 == refs[i].0 {
            refs[kept - 1].1 = refs[kept - 1].1.saturating_add(refs[i].1);
        } else {
            refs[kept] = refs[i];
            kept += 1;
        }
    }
    refs.truncate(kept);
}

/// `idents` without repeats, in order of first appearance.
fn first_seen(idents: impl ExactSizeIterator<Item = u32>) -> Vec<u32> {
    let mut seen: HashSet<u32, FxBuildHasher> = HashSet::default();
    seen.reserve(idents.len());
    idents.filter(|&i| seen.insert(i)).collect()
}

/// Sorts a file's definitions by (ident, line) and keeps one per (ident, line): the first
/// in tag order (the sort is stable).
fn dedup_definitions(defs: &mut Vec<DefTag>) {
    defs.sort_by_key(|d| (d.ident, d.line));
    defs.dedup_by_key(|d| (d.ident, d.line));
}

/// The index of files whose entries are `entries`, in order: the order of first
/// definition, and the per-identifier lists (files ascending in each). The lists are
/// grouped on every thread ([`Csr::group_in_parallel`]) while one thread lays out the
/// order and the definitions.
fn finish<'a>(interned: Interned<'a>, entries: &[FileEntry]) -> TagIndex<'a> {
    let n = interned.names.len();
    let ((definers, referencers), (def_order, file_defs)) = rayon::join(
        || {
            rayon::join(
                || Csr::group_in_parallel(n, || ident_definers(entries)),
                || Csr::group_in_parallel(n, || ident_referencers(entries)),
            )
        },
        || (first_definitions(n, entries), file_definitions(entries)),
    );
    let core = IndexCore {
        definers,
        referencers,
        name_at: interned.name_at,
        lookup: interned.lookup,
        def_order,
        any_reference: entries.iter().any(|e| e.any_reference),
        file_defs,
        orders: OnceLock::new(),
        pair_tags: OnceLock::new(),
        parts: OnceLock::new(),
    };
    TagIndex {
        names: interned.names,
        core: Arc::new(core),
        kept: false,
    }
}

/// Every (identifier, defining file), files in order.
fn ident_definers(entries: &[FileEntry]) -> impl Iterator<Item = (u32, u32)> + '_ {
    (0u32..)
        .zip(entries)
        .flat_map(|(f, e)| e.defined.iter().map(move |&i| (i, f)))
}

/// Every (identifier, (referencing file, count)), files in order.
fn ident_referencers(entries: &[FileEntry]) -> impl Iterator<Item = (u32, (u32, u32))> + '_ {
    (0u32..)
        .zip(entries)
        .flat_map(|(f, e)| e.refs.iter().map(move |&(i, c)| (i, (f, c))))
}

/// The `n` identifiers' order of first definition (Aider's `defines` keys).
fn first_definitions(n: usize, entries: &[FileEntry]) -> Vec<u32> {
    let mut seen = vec![false; n];
    let mut def_order = Vec::new();
    for &ident in entries.iter().flat_map(|e| &e.defined) {
        if !std::mem::replace(&mut seen[ident as usize], true) {
            def_order.push(ident);
        }
    }
    def_order
}

/// Each file's definitions, back to back.
fn file_definitions(entries: &[FileEntry]) -> Csr<DefTag> {
    let mut start = Vec::with_capacity(entries.len() + 1);
    let mut defs = Vec::with_capacity(entries.iter().map(|e| e.defs.len()).sum());
    for e in entries {
        start.push(defs.len() as u32);
        defs.extend_from_slice(&e.defs);
    }
    start.push(defs.len() as u32);
    Csr::from_parts(start, defs)
}

/// Each file's position in name order, for tie-breaks without string comparisons.
pub(crate) fn name_order(files: &[FileTags<'_>]) -> Vec<u32> {
    positions(files.len(), |a, b| {
        files[a].rel_fname.cmp(files[b].rel_fname)
    })
}

/// Each of `n` items' position in the order `cmp` sorts them.
fn positions(n: usize, cmp: impl Fn(usize, usize) -> Ordering + Sync) -> Vec<u32> {
    let mut sorted: Vec<u32> = (0..n as u32).collect();
    sorted.par_sort_unstable_by(|&a, &b| cmp(a as usize, b as usize));
    let mut pos = vec![0u32; n];
    for (at, &item) in sorted.iter().enumerate() {
        pos[item as usize] = at as u32;
    }
    pos
}

/// Tags by reference: `&files[file].tags[tag]`.
pub(crate) fn tag_at<'a>(files: &[FileTags<'a>], file: u32, tag: u32) -> &'a Tag {
    &files[file as usize].tags[tag as usize]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{def, file, refr};

    #[test]
    fn defines_references_definitions() {
        let a = vec![
            def("a.py", 1, "foo"),
            def("a.py", 5, "foo"),
            refr("a.py", 2, "bar"),
            refr("a.py", 3, "bar"),
        ];
        let b = vec![
            def("b.py", 1, "bar"),
            refr("b.py", 2, "foo"),
            def("b.py", 3, "baz"),
        ];
        let files = vec![file("a.py", &a, false), file("b.py", &b, false)];
        let idx = TagIndex::build(&files, &[false, false]);
        let id = |s: &str| idx.id_of(s).unwrap();
        assert_eq!(
            idx.def_order()
                .iter()
                .map(|&i| idx.names[i as usize])
                .collect::<Vec<_>>(),
            ["foo", "bar", "baz"]
        );
        assert_eq!(idx.definers(id("foo")), &[0]);
        assert_eq!(idx.definers(id("bar")), &[1]);
        assert_eq!(idx.referencers(id("bar")), &[(0, 2)]);
        assert_eq!(idx.referencers(id("foo")), &[(1, 1)]);
        assert_eq!(
            idx.definitions(0, id("foo")).collect::<Vec<_>>(),
            vec![0, 1]
        );
        assert_eq!(idx.definitions(1, id("foo")).count(), 0);
        assert!(idx.any_reference());
    }

    #[test]
    fn duplicate_definition_tags_form_a_set() {
        // Aider's dialect repeats a capture's last node (docs/parity.md T1); `definitions`
        // is a set of tags, so the copy disappears, whatever its sub-kind.
        let mut dup = def("a.py", 4, "foo");
        dup.sub_kind = "method";
        let a = vec![def("a.py", 4, "foo"), def("a.py", 2, "foo"), dup];
        let files = vec![file("a.py", &a, false)];
        let idx = TagIndex::build(&files, &[false]);
        let lines: Vec<i32> = idx
            .definitions(0, idx.id_of("foo").unwrap())
            .map(|t| a[t as usize].line)
            .collect();
        assert_eq!(lines, vec![2, 4]);
        assert_eq!(idx.definers(idx.id_of("foo").unwrap()), &[0]);
        assert!(!idx.any_reference());
    }

    #[test]
    fn skipped_files_contribute_nothing() {
        let a = vec![def("a.py", 1, "foo")];
        let files = vec![file("a.py", &a, false), file("a.py", &a, false)];
        let idx = TagIndex::build(&files, &[false, true]);
        assert_eq!(idx.definers(idx.id_of("foo").unwrap()), &[0]);
        assert_eq!(idx.definitions(1, idx.id_of("foo").unwrap()).count(), 0);
    }
}
