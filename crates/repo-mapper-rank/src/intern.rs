//! Identifier ids for every tag name and counted reference of a request, found in
//! parallel.
//!
//! Hashing every name is the index's main cost on a large repository (the Linux tree:
//! 18 million names, 1.5 million distinct). The files are cut into one run per thread; each
//! run interns its names into a table of its own, then the tables are merged in run order.
//! Ids come out exactly as one sequential pass would give them: in order of first
//! appearance, files in request order, tags before counted references.

use rayon::prelude::*;

use crate::FileTags;
use crate::fxhash::FxHashMap;

/// The identifiers of a request and, per file, the id of each tag and counted reference.
pub(crate) struct Interned<'a> {
    /// Identifier names by id, in order of first appearance.
    pub names: Vec<&'a str>,
    pub ids: FxHashMap<&'a str, u32>,
    /// Per file: ids of its tags, then of its counted references.
    file_ids: Vec<Vec<u32>>,
}

impl<'a> Interned<'a> {
    /// Interns the names of `files`; `skip[i]` files contribute none.
    pub fn build(files: &[FileTags<'a>], skip: &[bool]) -> Interned<'a> {
        Interned::build_in_runs(files, skip, rayon::current_num_threads())
    }

    fn build_in_runs(files: &[FileTags<'a>], skip: &[bool], parts: usize) -> Interned<'a> {
        let runs = split_runs(files, parts);
        let local: Vec<Local<'a>> = runs
            .par_iter()
            .map(|range| Local::build(&files[range.clone()], &skip[range.clone()]))
            .collect();
        let mut names = Vec::new();
        let mut ids = FxHashMap::default();
        let mut file_ids = Vec::with_capacity(files.len());
        for run in local {
            let to_global: Vec<u32> = run
                .names
                .iter()
                .map(|&name| {
                    *ids.entry(name).or_insert_with(|| {
                        names.push(name);
                        (names.len() - 1) as u32
                    })
                })
                .collect();
            file_ids.extend(run.file_ids.into_iter().map(|mut local_ids| {
                for id in &mut local_ids {
                    *id = to_global[*id as usize];
                }
                local_ids
            }));
        }
        Interned {
            names,
            ids,
            file_ids,
        }
    }

    /// The ids of file `fi`'s tags, then of its counted references.
    pub fn file_ids(&self, fi: usize) -> &[u32] {
        &self.file_ids[fi]
    }
}

/// One run's table: ids local to the run.
struct Local<'a> {
    names: Vec<&'a str>,
    file_ids: Vec<Vec<u32>>,
}

impl<'a> Local<'a> {
    fn build(files: &[FileTags<'a>], skip: &[bool]) -> Local<'a> {
        let mut names = Vec::new();
        let mut ids: FxHashMap<&'a str, u32> = FxHashMap::default();
        let mut intern = |name: &'a str| {
            *ids.entry(name).or_insert_with(|| {
                names.push(name);
                (names.len() - 1) as u32
            })
        };
        let file_ids = files
            .iter()
            .zip(skip)
            .map(|(file, &skip)| {
                if skip {
                    return Vec::new();
                }
                let tags = file.tags.iter().map(|t| t.name.as_str());
                let refs = file.refs.iter().map(|(name, _)| name);
                tags.chain(refs).map(&mut intern).collect()
            })
            .collect();
        Local { names, file_ids }
    }
}

/// `files` cut into at most `parts` consecutive runs of about the same number of names.
fn split_runs(files: &[FileTags<'_>], parts: usize) -> Vec<std::ops::Range<usize>> {
    let weight = |f: &FileTags<'_>| f.tags.len() + f.refs.len() + 1;
    let total: usize = files.iter().map(weight).sum();
    let per_run = total.div_ceil(parts.max(1)).max(1);
    let mut runs = Vec::with_capacity(parts);
    let (mut start, mut acc) = (0, 0);
    for (i, f) in files.iter().enumerate() {
        acc += weight(f);
        if acc >= per_run {
            runs.push(start..i + 1);
            (start, acc) = (i + 1, 0);
        }
    }
    if start < files.len() {
        runs.push(start..files.len());
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{def, file, refr};

    #[test]
    fn ids_follow_first_appearance_across_runs() {
        let a = vec![def("a.py", 1, "x"), refr("a.py", 2, "y")];
        let b = vec![refr("b.py", 1, "z"), def("b.py", 2, "x")];
        let c = vec![def("c.py", 1, "w"), refr("c.py", 2, "y")];
        let files = vec![
            file("a.py", &a, false),
            file("b.py", &b, false),
            file("c.py", &c, false),
        ];
        let skip = [false, true, false];
        for parts in 1..=4 {
            let runs = split_runs(&files, parts);
            assert_eq!(runs.len(), parts.min(3));
            assert_eq!(runs.first().map(|r| r.start), Some(0));
            assert_eq!(runs.last().map(|r| r.end), Some(3));
            let interned = Interned::build_in_runs(&files, &skip, parts);
            assert_eq!(interned.names, ["x", "y", "w"], "{parts} runs");
            assert_eq!(interned.ids["w"], 2);
            assert_eq!(interned.file_ids(0), [0, 1]);
            assert!(interned.file_ids(1).is_empty());
            assert_eq!(interned.file_ids(2), [2, 1]);
        }
    }
}
