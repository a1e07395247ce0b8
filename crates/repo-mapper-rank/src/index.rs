//! The tag index (behaviour.md §6.1): who defines and who references each identifier.
//!
//! Identifiers are interned (`&str` borrowed from the tags, see `intern.rs`) and the
//! per-identifier file lists are flat arrays (CSR), so an 80,000-file repository costs a few
//! small vectors, not a map of sets.

use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

use rayon::slice::ParallelSliceMut;

use repo_mapper_tags::{RefCounts, Tag, TagKind};

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
        let mut builder = IndexBuilder::with_idents(interned.names.len(), files.len());
        for (fi, file) in files.iter().enumerate() {
            builder.start_file();
            if !skip[fi] {
                let (tag_ids, ref_ids) = interned.file_ids(fi).split_at(file.tags.len());
                builder.add_file(fi as u32, file.tags, tag_ids);
                builder.add_counted_references(fi as u32, file.refs, ref_ids);
            }
        }
        builder.finish(interned)
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

/// The index under construction: `defines` and `references` as (identifier, file) pairs,
/// `definitions` file by file.
struct IndexBuilder {
    def_order: Vec<u32>,
    /// Per identifier: the last file that defined it, or [`NONE`].
    last_def_file: Vec<u32>,
    /// Per identifier: the slot in `ref_pairs` of its last referencer, or [`NONE`].
    last_ref: Vec<u32>,
    /// `(ident, file)`, one per defining file.
    def_pairs: Vec<(u32, u32)>,
    /// `(ident, file, count)`, one per referencing file.
    ref_pairs: Vec<(u32, u32, u32)>,
    any_reference: bool,
    file_def_start: Vec<u32>,
    file_defs: Vec<DefTag>,
}

impl IndexBuilder {
    fn with_idents(idents: usize, files: usize) -> Self {
        IndexBuilder {
            def_order: Vec::new(),
            last_def_file: vec![NONE; idents],
            last_ref: vec![NONE; idents],
            def_pairs: Vec::new(),
            ref_pairs: Vec::new(),
            any_reference: false,
            file_def_start: Vec::with_capacity(files + 1),
            file_defs: Vec::new(),
        }
    }

    /// Opens the next file's `definitions` (called for skipped files too).
    fn start_file(&mut self) {
        self.file_def_start.push(self.file_defs.len() as u32);
    }

    /// Indexes the tags of file `fi`, the file opened last; `ids` are their identifiers.
    fn add_file(&mut self, fi: u32, tags: &[Tag], ids: &[u32]) {
        let start = self.file_defs.len();
        for (ti, (tag, &ident)) in tags.iter().zip(ids).enumerate() {
            if ident == NONE {
                // A reference to a name nobody defines: no edge, but a reference.
                self.any_reference = true;
                continue;
            }
            match tag.kind {
                TagKind::Def => self.add_definition(fi, ident, tag.line, ti as u32),
                TagKind::Ref => self.add_reference(fi, ident),
            }
        }
        self.dedup_definitions(start);
    }

    /// Counted references of file `fi`, after its tags (`ids`: their identifiers): the
    /// same counts as that many reference tags.
    fn add_counted_references(&mut self, fi: u32, refs: &RefCounts, ids: &[u32]) {
        for ((_, count), &ident) in refs.iter().zip(ids) {
            if ident == NONE {
                self.any_reference |= count > 0;
                continue;
            }
            self.add_references(fi, ident, count);
        }
    }

    fn add_definition(&mut self, fi: u32, ident: u32, line: i32, tag: u32) {
        let last = &mut self.last_def_file[ident as usize];
        if *last == NONE {
            self.def_order.push(ident);
        }
        if *last != fi {
            *last = fi;
            self.def_pairs.push((ident, fi));
        }
        self.file_defs.push(DefTag { ident, line, tag });
    }

    /// Counts a reference: files come in order, so a file's references to an identifier
    /// are one run, counted in the identifier's last pair.
    fn add_reference(&mut self, fi: u32, ident: u32) {
        self.add_references(fi, ident, 1);
    }

    /// Counts `n` references (none when `n` is 0).
    fn add_references(&mut self, fi: u32, ident: u32, n: u32) {
        if n == 0 {
            return;
        }
        self.any_reference = true;
        let slot = self.last_ref[ident as usize];
        if slot != NONE && self.ref_pairs[slot as usize].1 == fi {
            let count = &mut self.ref_pairs[slot as usize].2;
            *count = count.saturating_add(n);
        } else {
            self.last_ref[ident as usize] = self.ref_pairs.len() as u32;
            self.ref_pairs.push((ident, fi, n));
        }
    }

    /// `definitions[(file, ident)]` is a set of tags: sorts the file's definitions (from
    /// `start`) by (ident, line) and keeps one per (ident, line).
    fn dedup_definitions(&mut self, start: usize) {
        let file_defs = &mut self.file_defs;
        file_defs[start..].sort_by_key(|d| (d.ident, d.line));
        let mut kept = start;
        for i in start..file_defs.len() {
            let d = file_defs[i];
            if kept > start
                && file_defs[kept - 1].ident == d.ident
                && file_defs[kept - 1].line == d.line
            {
                continue;
            }
            file_defs[kept] = d;
            kept += 1;
        }
        file_defs.truncate(kept);
    }

    fn finish(mut self, interned: Interned<'_>) -> TagIndex<'_> {
        self.start_file();
        let n = interned.names.len();
        let def_pairs = &self.def_pairs;
        let ref_pairs = &self.ref_pairs;
        let core = IndexCore {
            definers: Csr::group(n, def_pairs.iter().copied(), def_pairs.len()),
            referencers: Csr::group(
                n,
                ref_pairs.iter().map(|&(i, f, c)| (i, (f, c))),
                ref_pairs.len(),
            ),
            name_at: interned.name_at,
            lookup: interned.lookup,
            def_order: self.def_order,
            any_reference: self.any_reference,
            file_defs: Csr::from_parts(self.file_def_start, self.file_defs),
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
