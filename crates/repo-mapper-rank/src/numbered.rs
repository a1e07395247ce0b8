//! Interning by number: when most of a request's names come numbered in one shared table
//! ([`FileTags::names`], from the store's pack), each name's id is found by its number
//! through an array, and no name is hashed. Files without numbers (changed since the
//! pack was written) have theirs found by text: their few distinct names are looked up
//! as the table's names pass by once, and names the table lacks get numbers past its
//! end. Ids are then given as the sharded interner gives them meaning: only defined
//! names get one, in order of first definition.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;
use repo_mapper_tags::fxhash::FxBuildHasher;
use repo_mapper_tags::{NameTable, TagKind};

use crate::FileTags;
use crate::csr::NONE;
use crate::intern::{Ids, Interned, NameLookup, file_names, starts};

/// The share of a request's names that must come numbered in one table for numbering to
/// be used (below it, hashing them costs less than reading the table).
const MIN_NUMBERED: (usize, usize) = (3, 4);

/// Interns `files` by number if most of their names are numbered in one table; `None`
/// otherwise (then hash them).
pub(crate) fn interned<'a>(files: &[FileTags<'a>], skip: &[bool]) -> Option<Interned<'a>> {
    let table = shared_table(files, skip)?;
    let starts = starts(files, skip);
    let numbered = |fi: usize| !skip[fi] && numbered_in(&files[fi], table);
    let covered: usize = (0..files.len())
        .filter(|&fi| numbered(fi))
        .map(|fi| starts[fi + 1] - starts[fi])
        .sum();
    let total = *starts.last()?;
    if covered * MIN_NUMBERED.1 < total * MIN_NUMBERED.0 {
        return None;
    }
    let strays = Strays::number(files, skip, table, &numbered);
    // Per file numbered in the table: a number per tag then reference.
    let numbers: Vec<Numbers<'a>> = (0..files.len())
        .map(|fi| match (files[fi].names, files[fi].refs.numbers()) {
            _ if skip[fi] => Numbers::default(),
            (Some(n), refs) if numbered(fi) => Numbers {
                tags: &n.ids,
                refs: refs.map_or(&[][..], |r| r.pairs),
                ..Numbers::default()
            },
            _ => Numbers::default(),
        })
        .collect();
    let mut dense = vec![NONE; table.len() + strays.extra];
    let mut names = Vec::new();
    let mut name_at = Vec::new();
    for (fi, file) in files.iter().enumerate() {
        let file_numbers = match &strays.of_file[fi] {
            stray if !stray.is_empty() => Numbers::stray(stray, file.tags.len()),
            _ => numbers[fi],
        };
        for (tag, (k, &number)) in file.tags.iter().zip(file_numbers.tags.iter().enumerate()) {
            // A number outside the table (only a caller's own `NameIds` can hold one) is
            // a name nobody defines.
            let Some(slot) = dense.get_mut(number as usize) else {
                continue;
            };
            if tag.kind == TagKind::Def && *slot == NONE {
                *slot = names.len() as u32;
                names.push(tag.name.as_str());
                name_at.push((fi as u32, k as u32));
            }
        }
    }
    Some(Interned {
        names,
        name_at,
        lookup: NameLookup::Lazy(OnceLock::new()),
        ids: Ids::ByNumber(ByNumber {
            dense,
            numbers,
            strays: strays.of_file,
        }),
    })
}

/// Each file's ids, found through the table's numbers.
pub(crate) struct ByNumber<'a> {
    /// Per number: the id of its name ([`NONE`] for names nobody defines).
    dense: Vec<u32>,
    /// Per file numbered in the table: its numbers (empty for other files).
    numbers: Vec<Numbers<'a>>,
    /// Per file not numbered in the table: its names' numbers (empty for other files).
    strays: Vec<Vec<u32>>,
}

impl ByNumber<'_> {
    /// The ids of file `fi`'s tags then counted references, into `out`.
    pub(crate) fn file_ids(&self, fi: usize, out: &mut Vec<u32>) {
        out.clear();
        let numbers = self.numbers[fi]
            .iter()
            .chain(self.strays[fi].iter().copied());
        out.extend(numbers.map(|n| self.dense.get(n as usize).copied().unwrap_or(NONE)));
    }
}

/// The table most files' names are numbered in: the first numbered file's.
fn shared_table<'a>(files: &[FileTags<'a>], skip: &[bool]) -> Option<&'a Arc<NameTable>> {
    files
        .iter()
        .zip(skip)
        .filter(|(_, skip)| !**skip)
        .find_map(|(f, _)| f.names.filter(|n| numbered_in(f, &n.table)))
        .map(|n| &n.table)
}

/// Whether `file`'s names are numbered in `table`: one number per tag, and its counted
/// references numbered there too. A file without names (most files of a large tree have
/// no tags) has nothing to number: it is not one to look up by text.
fn numbered_in(file: &FileTags<'_>, table: &Arc<NameTable>) -> bool {
    let refs = match file.refs.numbers() {
        Some(refs) => Arc::ptr_eq(refs.table, table),
        None => file.refs.is_empty(),
    };
    let tags = match file.names {
        Some(n) => Arc::ptr_eq(&n.table, table) && n.ids.len() == file.tags.len(),
        None => file.tags.is_empty(),
    };
    refs && tags
}

/// One file's numbers: its tags', then its counted references' (as pairs with their
/// counts when the store numbered them, else plain).
#[derive(Debug, Default, Clone, Copy)]
struct Numbers<'n> {
    tags: &'n [u32],
    refs: &'n [(u32, u32)],
    plain_refs: &'n [u32],
}

impl<'n> Numbers<'n> {
    /// A stray file's numbers: `all` holds its tags' (the first `tags`) then its
    /// references'.
    fn stray(all: &'n [u32], tags: usize) -> Numbers<'n> {
        let (tags, plain_refs) = all.split_at(tags.min(all.len()));
        Numbers {
            tags,
            refs: &[],
            plain_refs,
        }
    }

    /// Every number, tags first.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let refs = self.refs.iter().map(|&(number, _)| number);
        self.tags.iter().chain(self.plain_refs).copied().chain(refs)
    }
}

/// Numbers for the names of files not numbered in the table.
struct Strays {
    /// Per file: a number per tag and reference if it is not numbered in the table, else
    /// none.
    of_file: Vec<Vec<u32>>,
    /// How many names the table lacks (numbered from its end).
    extra: usize,
}

impl Strays {
    fn number(
        files: &[FileTags<'_>],
        skip: &[bool],
        table: &NameTable,
        numbered: &dyn Fn(usize) -> bool,
    ) -> Strays {
        let strays: Vec<usize> = (0..files.len())
            .filter(|&fi| !skip[fi] && !numbered(fi))
            .collect();
        let mut of_file = vec![Vec::new(); files.len()];
        if strays.is_empty() {
            return Strays { of_file, extra: 0 };
        }
        // Each distinct stray name, by text: its index among them.
        let mut distinct: HashMap<&str, u32, FxBuildHasher> = HashMap::default();
        for &fi in &strays {
            for (name, _) in file_names(&files[fi]) {
                let next = distinct.len() as u32;
                distinct.entry(name).or_insert(next);
            }
        }
        let numbers = numbers_in_table(table, &distinct);
        let mut extra = 0;
        let numbers: Vec<u32> = numbers
            .into_iter()
            .map(|n| {
                n.unwrap_or_else(|| {
                    extra += 1;
                    (table.len() + extra - 1) as u32
                })
            })
            .collect();
        for fi in strays {
            of_file[fi] = file_names(&files[fi])
                .map(|(name, _)| numbers[distinct[name] as usize])
                .collect();
        }
        Strays { of_file, extra }
    }
}

/// Per distinct name (by its index in `distinct`): its number in `table`, if it has one.
/// One pass over the table's names, in parallel; a name is hashed and looked up among
/// the few only if one of them has its length and first byte.
fn numbers_in_table(
    table: &NameTable,
    distinct: &HashMap<&str, u32, FxBuildHasher>,
) -> Vec<Option<u32>> {
    // A name's shape: its length (up to 63), first and last bytes. Most of the table's
    // names have a shape no stray name has, and are passed over without hashing.
    let shape = |name: &[u8]| {
        let (first, last) = (name.first().copied(), name.last().copied());
        (name.len().min(63) << 16)
            | usize::from(first.unwrap_or(0)) << 8
            | usize::from(last.unwrap_or(0))
    };
    let mut shapes = vec![0u64; (64 << 16) / 64];
    for name in distinct.keys() {
        let s = shape(name.as_bytes());
        shapes[s / 64] |= 1 << (s % 64);
    }
    let found: Vec<(u32, u32)> = (0..table.len() as u32)
        .into_par_iter()
        .filter_map(|number| {
            let name = table.get(number)?;
            let s = shape(name.as_bytes());
            if shapes[s / 64] & (1 << (s % 64)) == 0 {
                return None;
            }
            Some((*distinct.get(name)?, number))
        })
        .collect();
    let mut numbers = vec![None; distinct.len()];
    for (i, number) in found {
        numbers[i as usize].get_or_insert(number);
    }
    numbers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{def, file, refr};
    use repo_mapper_tags::{NameIds, RefCounts, Tag};

    /// `tags` and `refs` numbered in `table` (by text), as the store's pack gives them.
    fn numbered(table: &Arc<NameTable>, tags: &[Tag], refs: &RefCounts) -> (NameIds, RefCounts) {
        let number = |name: &str| table.iter().position(|n| n == name).unwrap() as u32;
        let ids = NameIds {
            table: Arc::clone(table),
            ids: tags.iter().map(|t| number(&t.name)).collect(),
        };
        let pairs = refs.iter().map(|(n, c)| (number(n), c)).collect();
        (ids, RefCounts::numbered(Arc::clone(table), pairs))
    }

    fn counted(pairs: &[(&str, u32)]) -> RefCounts {
        let mut refs = RefCounts::new();
        for &(name, count) in pairs {
            refs.push(name, count);
        }
        refs
    }

    /// Per file, each slot's name as an interning names it ("-": no id).
    fn slot_names<'a>(interned: &Interned<'a>, files: usize) -> Vec<Vec<&'a str>> {
        let name = |&id: &u32| interned.names.get(id as usize).copied().unwrap_or("-");
        let mut scratch = Vec::new();
        (0..files)
            .map(|fi| {
                interned
                    .file_ids(fi, &mut scratch)
                    .iter()
                    .map(name)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn numbers_intern_as_hashing_does_with_strays_other_tables_and_skips() {
        let table = Arc::new(NameTable::new(["x", "y", "z", "q", "unused"]).unwrap());
        let other = Arc::new(NameTable::new(["w", "x"]).unwrap());
        let tags: Vec<Vec<Tag>> = vec![
            vec![def("a", 1, "x"), refr("a", 2, "y")],
            vec![def("b", 1, "y"), refr("b", 2, "z")],
            // A stray: not numbered (changed since the pack), it defines a name the
            // numbered files reference, and one the table lacks.
            vec![def("c", 1, "z"), def("c", 2, "new"), refr("c", 3, "x")],
            vec![def("d", 1, "x"), refr("d", 2, "y"), def("d", 3, "y")],
            // Skipped: its definition of `q` counts for nothing.
            vec![def("e", 1, "q")],
            // Numbered in another table: found by text.
            vec![def("f", 1, "w")],
            vec![refr("g", 1, "x"), refr("g", 2, "y"), refr("g", 3, "q")],
        ];
        let refs = [
            counted(&[("q", 2), ("z", 1), ("y", 1)]),
            counted(&[("x", 3), ("q", 1)]),
            counted(&[("new", 1), ("y", 1)]),
            counted(&[("z", 4), ("q", 1), ("x", 2)]),
            counted(&[]),
            counted(&[("x", 1)]),
            counted(&[("z", 1), ("y", 2), ("x", 5), ("unused", 1)]),
        ];
        let ids: Vec<Option<(NameIds, RefCounts)>> = (0..tags.len())
            .map(|i| match i {
                2 => None,
                5 => Some(numbered(&other, &tags[i], &refs[i])),
                _ => Some(numbered(&table, &tags[i], &refs[i])),
            })
            .collect();
        let files: Vec<FileTags<'_>> = (0..tags.len())
            .map(|i| {
                let mut f = file(["a", "b", "c", "d", "e", "f", "g"][i], &tags[i], false);
                f.refs = ids[i].as_ref().map_or(&refs[i], |(_, r)| r);
                f.names = ids[i].as_ref().map(|(n, _)| n);
                f
            })
            .collect();
        let skip = [false, false, false, false, true, false, false];
        let by_number = interned(&files, &skip).expect("most names are numbered");
        let by_hash = Interned::build_in_shards(&files, &skip, 3);
        assert_eq!(
            slot_names(&by_number, files.len()),
            slot_names(&by_hash, files.len())
        );
        let mut names = by_number.names.clone();
        names.sort_unstable();
        assert_eq!(names, ["new", "w", "x", "y", "z"]);
        for (id, &(fi, k)) in by_number.name_at.iter().enumerate() {
            assert_eq!(
                files[fi as usize].tags[k as usize].name,
                by_number.names[id]
            );
        }
        for name in ["x", "z", "new", "w", "q", "unused", "absent"] {
            let found = [&by_number, &by_hash]
                .map(|i| i.lookup.find(&i.names, name).map(|id| i.names[id as usize]));
            assert_eq!(found[0], found[1], "{name}");
        }
    }

    /// A file without tags has nothing to look up by text: it is no stray (a large tree's
    /// tagless files once made every warm run scan the whole table), and one with tags but
    /// no numbers is.
    #[test]
    fn tagless_files_are_numbered_in_any_table() {
        let table = Arc::new(NameTable::new(["x"]).unwrap());
        let (none, refs) = (Vec::new(), RefCounts::new());
        let mut tagless = file("a", &none, false);
        tagless.refs = &refs;
        assert!(numbered_in(&tagless, &table));
        let tags = vec![def("b", 1, "x")];
        let mut unnumbered = file("b", &tags, false);
        unnumbered.refs = &refs;
        assert!(!numbered_in(&unnumbered, &table));
    }

    #[test]
    fn a_number_outside_the_table_is_a_name_nobody_defines() {
        let table = Arc::new(NameTable::new(["x"]).unwrap());
        let tags = [def("a", 1, "x"), def("a", 2, "y")];
        let ids = NameIds {
            table: Arc::clone(&table),
            ids: vec![0, 7].into(),
        };
        let refs = RefCounts::numbered(Arc::clone(&table), vec![(0, 1), (99, 2)]);
        let mut f = file("a", &tags, false);
        (f.names, f.refs) = (Some(&ids), &refs);
        let interned = interned(&[f], &[false]).expect("numbered");
        assert_eq!(slot_names(&interned, 1), [["x", "-", "x", "-"]]);
    }

    #[test]
    fn few_numbered_names_are_hashed_instead() {
        let table = Arc::new(NameTable::new(["x"]).unwrap());
        let (a, b) = (
            vec![def("a", 1, "x")],
            vec![def("b", 1, "x"), refr("b", 2, "x")],
        );
        let (ids, _) = numbered(&table, &a, &RefCounts::new());
        let mut numbered_file = file("a", &a, false);
        numbered_file.names = Some(&ids);
        let files = [numbered_file, file("b", &b, false)];
        assert!(
            interned(&files, &[false, false]).is_none(),
            "1 of 3 names numbered"
        );
        assert!(interned(&files[..1], &[false]).is_some());
    }
}
