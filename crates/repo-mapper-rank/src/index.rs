//! The tag index (SPEC §6.1): who defines and who references each identifier.
//!
//! Identifiers are interned (`&str` borrowed from the tags, ids in first-seen order) and the
//! per-identifier file lists are flat arrays (CSR), so an 80,000-file repository costs a few
//! small vectors, not a map of sets.

use repo_mapper_tags::{Tag, TagKind};

use crate::FileTags;
use crate::csr::{Csr, NONE};
use crate::fxhash::FxHashMap;

/// A definition tag of one file: its identifier, line and index in the file's tag slice.
#[derive(Debug, Clone, Copy)]
pub(crate) struct DefTag {
    pub ident: u32,
    pub line: i32,
    pub tag: u32,
}

/// `defines`, `references` and `definitions` over the files of a request.
#[derive(Debug)]
pub(crate) struct TagIndex<'a> {
    /// Identifier names by id.
    pub names: Vec<&'a str>,
    pub ids: FxHashMap<&'a str, u32>,
    /// Defined identifiers, in the order of their first definition (Aider's `defines` keys).
    pub def_order: Vec<u32>,
    /// `defines[ident]`: defining files, ascending (file-processing order).
    definers: Csr<u32>,
    /// `Counter(references[ident])`: referencing files ascending, with their counts.
    referencers: Csr<(u32, u32)>,
    /// Whether any file has any reference tag (Aider's `if not references`).
    pub any_reference: bool,
    /// `definitions`, per file: def tags sorted by (ident, line), one per (ident, line).
    file_defs: Csr<DefTag>,
}

impl<'a> TagIndex<'a> {
    /// Indexes `files` in order. `skip[i]` files (duplicates) contribute nothing.
    pub fn build(files: &[FileTags<'a>], skip: &[bool]) -> TagIndex<'a> {
        let mut names: Vec<&'a str> = Vec::new();
        let mut ids: FxHashMap<&'a str, u32> = FxHashMap::default();
        let mut def_order = Vec::new();
        // Per ident: the last file that defined it / the slot of its last referencer.
        let mut last_def_file: Vec<u32> = Vec::new();
        let mut last_ref: Vec<u32> = Vec::new();
        let mut def_pairs: Vec<(u32, u32)> = Vec::new();
        let mut ref_pairs: Vec<(u32, u32, u32)> = Vec::new();
        let mut file_def_start = Vec::with_capacity(files.len() + 1);
        let mut file_defs: Vec<DefTag> = Vec::new();
        let mut any_reference = false;

        for (fi, file) in files.iter().enumerate() {
            let fi = fi as u32;
            let start = file_defs.len();
            file_def_start.push(start as u32);
            if skip[fi as usize] {
                continue;
            }
            for (ti, tag) in file.tags.iter().enumerate() {
                let ident = intern(
                    &mut names,
                    &mut ids,
                    &tag.name,
                    &mut last_def_file,
                    &mut last_ref,
                );
                match tag.kind {
                    TagKind::Def => {
                        let last = &mut last_def_file[ident as usize];
                        if *last == NONE {
                            def_order.push(ident);
                        }
                        if *last != fi {
                            *last = fi;
                            def_pairs.push((ident, fi));
                        }
                        file_defs.push(DefTag {
                            ident,
                            line: tag.line,
                            tag: ti as u32,
                        });
                    }
                    TagKind::Ref => {
                        any_reference = true;
                        let slot = last_ref[ident as usize];
                        if slot != NONE && ref_pairs[slot as usize].1 == fi {
                            ref_pairs[slot as usize].2 += 1;
                        } else {
                            last_ref[ident as usize] = ref_pairs.len() as u32;
                            ref_pairs.push((ident, fi, 1));
                        }
                    }
                }
            }
            // `definitions[(file, ident)]` is a set of tags: one per (ident, line).
            let defs = &mut file_defs[start..];
            defs.sort_by_key(|d| (d.ident, d.line));
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
        file_def_start.push(file_defs.len() as u32);

        let n = names.len();
        let definers = Csr::group(n, def_pairs.iter().copied(), def_pairs.len());
        let referencers = Csr::group(
            n,
            ref_pairs.iter().map(|&(i, f, c)| (i, (f, c))),
            ref_pairs.len(),
        );
        TagIndex {
            names,
            ids,
            def_order,
            definers,
            referencers,
            any_reference,
            file_defs: Csr::from_parts(file_def_start, file_defs),
        }
    }

    /// Files defining `ident`, ascending.
    pub fn definers(&self, ident: u32) -> &[u32] {
        self.definers.get(ident as usize)
    }

    /// Files referencing `ident`, ascending, with their reference counts.
    pub fn referencers(&self, ident: u32) -> &[(u32, u32)] {
        self.referencers.get(ident as usize)
    }

    /// The definition tags of `ident` in `file`, by line: indices into the file's tags.
    pub fn definitions(&self, file: u32, ident: u32) -> impl Iterator<Item = u32> + '_ {
        let defs = self.file_defs.get(file as usize);
        let lo = defs.partition_point(|d| d.ident < ident);
        let hi = defs.partition_point(|d| d.ident <= ident);
        defs[lo..hi].iter().map(|d| d.tag)
    }
}

fn intern<'a>(
    names: &mut Vec<&'a str>,
    ids: &mut FxHashMap<&'a str, u32>,
    name: &'a str,
    last_def_file: &mut Vec<u32>,
    last_ref: &mut Vec<u32>,
) -> u32 {
    *ids.entry(name).or_insert_with(|| {
        names.push(name);
        last_def_file.push(NONE);
        last_ref.push(NONE);
        (names.len() - 1) as u32
    })
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
        let id = |s: &str| idx.ids[s];
        assert_eq!(
            idx.def_order
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
        assert!(idx.any_reference);
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
            .definitions(0, idx.ids["foo"])
            .map(|t| a[t as usize].line)
            .collect();
        assert_eq!(lines, vec![2, 4]);
        assert_eq!(idx.definers(idx.ids["foo"]), &[0]);
        assert!(!idx.any_reference);
    }

    #[test]
    fn skipped_files_contribute_nothing() {
        let a = vec![def("a.py", 1, "foo")];
        let files = vec![file("a.py", &a, false), file("a.py", &a, false)];
        let idx = TagIndex::build(&files, &[false, true]);
        assert_eq!(idx.definers(idx.ids["foo"]), &[0]);
        assert_eq!(idx.definitions(1, idx.ids["foo"]).count(), 0);
    }
}
