//! Tags kept in memory between the maps of a long-lived session ([`Config::warm_session`]):
//! each map stats the files and goes to the tag store only for those whose stat changed.
//!
//! A file's tags are reused when its [`FileStamp`] (size, mtime, ctime, inode) is the one
//! seen when they were read, and that stamp was not within the racy window before the read
//! (git's "racy clean" rule, as the store applies it): a file changed within the same
//! timestamp tick as the read is always re-checked. Unreadable files are never kept, so
//! they are retried.
//!
//! [`Config::warm_session`]: crate::Config::warm_session

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use repo_mapper_rank::{FileTags, RankIndex};
use repo_mapper_store::{Problem, ScanOutput, ScanStats};
use repo_mapper_tags::{CountedTags, Dialect, FileStamp, Language};

/// Computations a file's tags outlive when no computation asks for the file (deleted
/// files, or files only an earlier partial request listed): then they are dropped, and
/// read from the store again if asked for later.
const KEPT_COMPUTATIONS: u64 = 16;

/// What `stat` said of a file: the one file identity ([`FileStamp`]).
pub(crate) type Stamp = FileStamp;

/// How the store would count a file served from memory (decided when it is kept).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Served {
    Skipped,
    TooLarge,
    Hit,
}

/// One file's tags as last read.
#[derive(Debug, Clone)]
struct Kept {
    stamp: Stamp,
    tags: Arc<CountedTags>,
    problem: Option<Problem>,
    served: Served,
    /// The computation that last asked for the file.
    seen: u64,
}

/// The tags of a computation's files, in input order, and what the scan did.
#[derive(Debug, Default, Clone)]
pub(crate) struct Scanned {
    pub tags: Vec<Arc<CountedTags>>,
    pub stats: ScanStats,
    pub problems: Vec<(usize, Problem)>,
}

impl From<ScanOutput> for Scanned {
    fn from(out: ScanOutput) -> Scanned {
        Scanned {
            tags: out.tags.into_iter().map(Arc::new).collect(),
            stats: out.stats,
            problems: out.problems,
        }
    }
}

/// A warm session's last scan, when it served every file from memory: the next scan of
/// the same admission with the same stamps serves the same (a kept tag is kept for as
/// long as its file's stamp holds, and these all had settled).
#[derive(Debug)]
pub(crate) struct LastScan {
    /// The admission ([`crate::compute::Admitted::generation`]) and stamps scanned.
    pub generation: u64,
    pub stamps: Vec<Stamp>,
    pub scanned: Scanned,
}

/// The tag index of a warm session's last ranking, kept for the next one over the same
/// files and tags ([`RankIndex`]: on the Linux tree, indexing is a third of a warm map).
#[derive(Debug, Default)]
pub(crate) struct WarmIndex {
    index: Option<RankIndex>,
    /// The tags the index was built from, kept alive: an index fits files by the address
    /// of their tags, which must not be reused by other tags while it is kept.
    tags: Vec<Arc<CountedTags>>,
}

impl WarmIndex {
    /// The kept index if it fits `files` (tagged by `tags`), else a new one, kept.
    pub(crate) fn for_files(
        &mut self,
        files: &[FileTags<'_>],
        tags: &[Arc<CountedTags>],
    ) -> &mut RankIndex {
        if !self.index.as_ref().is_some_and(|i| i.fits(files)) {
            self.index = None; // freed before the new one is built
            self.tags = tags.to_vec();
        }
        self.index.get_or_insert_with(|| RankIndex::build(files))
    }
}

/// The session's tags, by absolute path.
#[derive(Debug, Default)]
pub(crate) struct WarmTags {
    /// By the path's bytes (a `Path` hashes component by component: slow for every file
    /// of a repository on every computation).
    files: HashMap<Box<[u8]>, Kept>,
    /// Computations split so far.
    generation: u64,
}

/// A computation's files split: those kept tags serve, and the rest.
pub(crate) struct Split {
    stamps: Vec<Stamp>,
    kept: Vec<Option<Kept>>,
    /// The indices of the files no kept tags serve: the store must read these.
    pub to_read: Vec<usize>,
    started: SystemTime,
}

impl WarmTags {
    /// Starts a computation: finds the files (stamped as the root guard just saw them)
    /// whose kept tags still hold, and marks them asked for.
    pub(crate) fn split(&mut self, files: &[(PathBuf, String)], stamps: &[Stamp]) -> Split {
        let started = SystemTime::now();
        self.generation += 1;
        let generation = self.generation;
        let kept: Vec<Option<Kept>> = files
            .iter()
            .zip(stamps)
            .map(|((f, _), stamp)| {
                let kept = self.files.get_mut(key(f)).filter(|k| k.stamp == *stamp)?;
                kept.seen = generation;
                Some(kept.clone())
            })
            .collect();
        let to_read = kept.iter().enumerate().filter(|(_, k)| k.is_none());
        let to_read = to_read.map(|(i, _)| i).collect();
        Split {
            stamps: stamps.to_vec(),
            kept,
            to_read,
            started,
        }
    }

    /// Every file's tags: kept ones and those just `read` (for `split.to_read`, in that
    /// order), remembering what can be trusted next time; forgets the files no
    /// computation asked for in [`KEPT_COMPUTATIONS`].
    pub(crate) fn merge(
        &mut self,
        files: &[(PathBuf, String)],
        split: Split,
        read: ScanOutput,
        count: &Counting,
    ) -> Scanned {
        let mut fresh: HashMap<usize, Problem> = HashMap::new();
        for (j, problem) in read.problems {
            fresh.insert(split.to_read[j], problem);
        }
        let mut out = Scanned {
            stats: read.stats,
            ..Scanned::default()
        };
        let mut read_tags = read.tags.into_iter();
        for (i, kept) in split.kept.into_iter().enumerate() {
            let (tags, problem) = match kept {
                Some(k) => {
                    count_served(k.served, &mut out.stats);
                    (k.tags, k.problem)
                }
                None => {
                    let tags = Arc::new(read_tags.next().unwrap_or_default());
                    let problem = fresh.remove(&i);
                    let read = (split.stamps[i], split.started);
                    self.keep(&files[i].0, read, &tags, &problem, count);
                    (tags, problem)
                }
            };
            if let Some(p) = problem {
                out.problems.push((i, p));
            }
            out.tags.push(tags);
        }
        out.stats.files = files.len();
        let now = self.generation;
        self.files.retain(|_, k| k.seen + KEPT_COMPUTATIONS > now);
        out
    }

    /// Keeps the tags just read for `path` (stamped `stamp` before a read at `at`), unless
    /// they cannot be trusted next time: a racy stamp, or an unreadable file.
    fn keep(
        &mut self,
        path: &Path,
        (stamp, at): (Stamp, SystemTime),
        tags: &Arc<CountedTags>,
        problem: &Option<Problem>,
        count: &Counting,
    ) {
        let unreadable = matches!(problem, Some(Problem::Unreadable(_)));
        if stamp.racy_at(at) || unreadable {
            self.files.remove(key(path));
            return;
        }
        let kept = Kept {
            stamp,
            tags: tags.clone(),
            problem: problem.clone(),
            served: count.served_as(path, stamp.size),
            seen: self.generation,
        };
        self.files.insert(Box::from(key(path)), kept);
    }
}

/// The key of `path` in [`WarmTags`].
fn key(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// How files served from memory are counted in [`ScanStats`]: as the store would count
/// an unchanged file (skipped, too large, or a hit).
pub(crate) struct Counting {
    pub dialect: Dialect,
    pub max_file_size: Option<u64>,
}

impl Counting {
    /// How a file of `size` bytes at `path` is counted when served from memory.
    fn served_as(&self, path: &Path, size: u64) -> Served {
        if Language::for_path(path, self.dialect).is_none() {
            Served::Skipped
        } else if self.max_file_size.is_some_and(|max| size > max) {
            Served::TooLarge
        } else {
            Served::Hit
        }
    }
}

fn count_served(served: Served, stats: &mut ScanStats) {
    match served {
        Served::Skipped => stats.skipped += 1,
        Served::TooLarge => stats.too_large += 1,
        Served::Hit => stats.hits += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp_of(path: &Path) -> Stamp {
        Stamp::of(&std::fs::metadata(path).unwrap())
    }

    #[test]
    fn tags_no_computation_asks_for_are_dropped_after_a_while() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.py");
        std::fs::write(&path, "x = 1\n").unwrap();
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let files = vec![(path.clone(), "a.py".to_owned())];
        let count = Counting {
            dialect: Dialect::Default,
            max_file_size: None,
        };
        let mut warm = WarmTags::default();
        let read = ScanOutput {
            tags: vec![CountedTags::default()],
            ..ScanOutput::default()
        };
        let mut split = warm.split(&files, &[stamp_of(&path)]);
        // Read when the file's change time (just now, by `set_modified`) has settled.
        split.started += std::time::Duration::from_secs(3);
        warm.merge(&files, split, read, &count);
        assert_eq!(warm.files.len(), 1, "kept");
        let split = warm.split(&files, &[stamp_of(&path)]);
        assert!(split.to_read.is_empty(), "served from memory");
        warm.merge(&files, split, ScanOutput::default(), &count);
        for _ in 0..KEPT_COMPUTATIONS {
            let none = warm.split(&[], &[]);
            warm.merge(&[], none, ScanOutput::default(), &count);
        }
        assert!(
            warm.files.is_empty(),
            "dropped once no computation asked for it"
        );
    }
}
