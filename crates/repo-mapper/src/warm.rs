//! [`WarmSession`]: what a long-lived session ([`Config::warm_session`]) keeps between
//! maps — every file's tags, the last ranking's tag index, the last admission with its
//! watch, and the last scan. Each map stats the files and goes to the tag store only for
//! those whose stat changed.
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
use std::time::{Instant, SystemTime};

use repo_mapper_rank::{RankConfig, RankIndex, RankRequest, Ranking, rank_with};
use repo_mapper_store::{Problem, ScanOutput, ScanStats, StoreFallback};
use repo_mapper_tags::{CountedTags, Dialect, FileStamp, Language};

use crate::compute::Admitted;
use crate::config::Config;
use crate::guard::RootGuard;
use crate::watch::{Changes, Watch};

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

/// What a warm session keeps between maps. A session without it computes each map from
/// the tag store alone.
#[derive(Debug, Default)]
pub(crate) struct WarmSession {
    tags: WarmTags,
    /// The last ranking's tag index (it holds the tags it was built from).
    index: Option<RankIndex>,
    admission: Option<KeptAdmission>,
    last_scan: Option<LastScan>,
    /// Full admissions so far: each one's generation.
    admissions: u64,
}

/// The last admission, and the watch that says what changed since.
#[derive(Debug)]
struct KeptAdmission {
    /// The request's files, sorted (chat and other).
    all: Vec<PathBuf>,
    admitted: Arc<Admitted>,
    watch: Watch,
}

/// The last scan, when it served every file from memory: the next scan of the same
/// admission with the same stamps serves the same (a kept tag is kept for as long as its
/// file's stamp holds, and these all had settled).
#[derive(Debug)]
struct LastScan {
    /// The admission ([`Admitted::generation`]) and stamps scanned.
    generation: u64,
    stamps: Vec<Stamp>,
    scanned: Scanned,
}

/// A warm scan's way to the tag store: read these files, pruning the store or not.
pub(crate) type ReadStore<'a> =
    dyn FnMut(&[(PathBuf, String)], Whole) -> (ScanOutput, Option<StoreFallback>) + 'a;

/// Whether a store read is of every admitted file, and may prune.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Whole {
    /// Every admitted file: the root's pack serves them.
    pub(crate) list: bool,
    /// And the list is the whole repository's (a walk): records of other files go.
    pub(crate) prune: bool,
}

impl WarmSession {
    /// The generation of the next full admission.
    pub(crate) fn next_generation(&mut self) -> u64 {
        self.admissions += 1;
        self.admissions
    }

    /// The last admission, if it was of the same files (`all`, sorted) and the watch can
    /// say which of them changed since (those are checked again), with how many were.
    pub(crate) fn admission(
        &mut self,
        all: &[&PathBuf],
        config: &Config,
    ) -> Option<(Arc<Admitted>, usize)> {
        let mut kept = self.admission.take()?;
        // Byte for byte (`Path`'s `==` walks components: slow for every file of a tree).
        let same = kept.all.len() == all.len()
            && kept
                .all
                .iter()
                .zip(all)
                .all(|(a, b)| a.as_os_str() == b.as_os_str());
        if !same {
            return None;
        }
        let sorted = &kept.all;
        let changes = kept
            .watch
            .changes(|p| sorted.binary_search_by(|f| f.as_path().cmp(p)).is_ok());
        let mut paths = match changes {
            Changes::None => Vec::new(),
            Changes::Paths(paths) => paths,
            Changes::Unknown => return None,
        };
        paths.extend(kept.admitted.links.iter().cloned());
        paths.sort_unstable();
        paths.dedup(); // a symlink the watch also named
        if !paths.is_empty() {
            recheck(config, Arc::make_mut(&mut kept.admitted), &paths)?;
        }
        let checked = paths.len();
        let admitted = Arc::clone(&kept.admitted);
        self.admission = Some(kept);
        Some((admitted, checked))
    }

    /// Keeps a full admission of `all` (sorted) with the watch set up before it.
    pub(crate) fn keep_admission(
        &mut self,
        all: &[&PathBuf],
        admitted: &Arc<Admitted>,
        watch: Option<Watch>,
    ) {
        self.admission = watch.map(|watch| KeptAdmission {
            all: all.iter().map(|p| (*p).clone()).collect(),
            admitted: Arc::clone(admitted),
            watch,
        });
    }

    /// Every admitted file's tags: the last scan's when nothing changed, else kept tags
    /// where the stamp holds and the store's (`read`) for the rest.
    pub(crate) fn scan(
        &mut self,
        admitted: &Admitted,
        counting: &Counting,
        prune: bool,
        read: &mut ReadStore<'_>,
    ) -> (Scanned, Option<StoreFallback>) {
        let (files, stamps) = (&admitted.present[..], &admitted.stamps[..]);
        if let Some(s) = &self.last_scan
            && s.generation == admitted.generation
            && s.stamps == stamps
        {
            return (s.scanned.clone(), None);
        }
        let split = self.tags.split(files, stamps);
        let subset: Vec<(PathBuf, String)> =
            split.to_read.iter().map(|&i| files[i].clone()).collect();
        let (out, fallback) = match subset.len() {
            0 => (ScanOutput::default(), None),
            // Pruning needs the whole list: only a scan of every file may prune.
            n => {
                let list = n == files.len();
                let prune = prune && list;
                read(&subset, Whole { list, prune })
            }
        };
        let scanned = self.tags.merge(files, split, out, counting);
        self.last_scan = subset.is_empty().then(|| LastScan {
            generation: admitted.generation,
            stamps: stamps.to_vec(),
            scanned: scanned.clone(),
        });
        (scanned, fallback)
    }

    /// Ranks with the last ranking's index when the files and their tags (`tags`, in the
    /// request's order) are the same; else with a new one, kept. Its build counts as
    /// indexing.
    pub(crate) fn rank<'a>(
        &mut self,
        request: &RankRequest<'a>,
        tags: &[Arc<CountedTags>],
        config: &RankConfig,
    ) -> Ranking<'a> {
        let started = Instant::now();
        if !self.index.as_ref().is_some_and(|i| i.fits(&request.files)) {
            self.index = None; // freed before the new one is built
            let files: Vec<(&str, Arc<CountedTags>)> = (request.files.iter())
                .zip(tags)
                .map(|(f, t)| (f.rel_fname, Arc::clone(t)))
                .collect();
            self.index = Some(RankIndex::build(&files));
        }
        let index = self.index.as_mut().expect("just built");
        let built = started.elapsed();
        let mut ranking = rank_with(request, config, index);
        ranking.timings.index += built;
        ranking
    }
}

/// Checks `paths` again; `None` when one of them is no longer admitted as it was, or
/// has become a symlink (then every file is checked, which lists the links).
fn recheck(config: &Config, admitted: &mut Admitted, paths: &[PathBuf]) -> Option<()> {
    let mut guard = RootGuard::new(&config.root, config.follow_external_symlinks);
    guard.resolve_dirs(paths.iter().map(|p| p.as_path()));
    for path in paths {
        let at = admitted.find(path)?;
        let (meta, link) = guard.check(path).ok()?;
        if link && !admitted.links.contains(path) {
            return None; // a new symlink: listed by a full check
        }
        admitted.stamps[at] = Stamp::of(&meta);
    }
    Some(())
}

/// The session's tags, by absolute path.
#[derive(Debug, Default)]
struct WarmTags {
    /// By the path's bytes (a `Path` hashes component by component: slow for every file
    /// of a repository on every computation).
    files: HashMap<Box<[u8]>, Kept>,
    /// Computations split so far.
    generation: u64,
}

/// A computation's files split: those kept tags serve, and the rest.
struct Split {
    stamps: Vec<Stamp>,
    kept: Vec<Option<Kept>>,
    /// The indices of the files no kept tags serve: the store must read these.
    to_read: Vec<usize>,
    started: SystemTime,
}

impl WarmTags {
    /// Starts a computation: finds the files (stamped as the root guard just saw them)
    /// whose kept tags still hold, and marks them asked for.
    fn split(&mut self, files: &[(PathBuf, String)], stamps: &[Stamp]) -> Split {
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
    fn merge(
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
