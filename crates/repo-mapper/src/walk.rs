//! Listing a repository's files (behaviour.md §17.3).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use ignore::{WalkBuilder, WalkState};
use rayon::prelude::*;
use repo_mapper_tags::FileStamp;

/// Hidden directories that are walked anyway: `.github` holds the workflow files Aider
/// lists as important (behaviour.md §8). (Changing what a walk lists means changing
/// `kept_walk`'s `MAGIC` too: kept walks follow the rules they were made by.)
const HIDDEN_DIRS_KEPT: &[&str] = &[".github"];

/// Every file under `root`, as absolute paths sorted by their path relative to `root`.
///
/// Follows `.gitignore` (also outside a git repository), `.ignore` and git's exclude files;
/// skips hidden directories except `.github`, and `skip_dir` (the tag cache) wherever it
/// is, even when it is a file; keeps hidden files (`.env.example` is an important file);
/// lists symlinks to regular files (the map reads only those whose target is inside the
/// root, see `RepoMap`), never follows symlinks to directories. Walks in parallel. Entries that cannot be
/// read are skipped with a debug message.
pub fn list_files(root: &Path, skip_dir: Option<&Path>) -> Vec<PathBuf> {
    walk(root, skip_dir, false).files
}

/// A walk's files ([`list_files`]), and the directories and ignore files whose stat
/// says whether it still holds, for a long-lived session to walk again only when the
/// tree changed.
///
/// Creating, deleting or renaming a file changes its directory's stamp; editing a
/// `.gitignore`, `.ignore` or `.git/info/exclude` changes that file's, in the tree or in
/// a directory above it (those above are watched there or not). Edits to a file's
/// content change neither (the tag scan's stat sees those). A walk of a tree that changed
/// within the racy window is never current: a second change within the same timestamp
/// tick would not show in the stamps.
///
/// ```
/// use repo_mapper::Listing;
///
/// let root = std::env::temp_dir().join(format!("repo-mapper-listing-{}", std::process::id()));
/// std::fs::create_dir_all(&root)?;
/// std::fs::write(root.join("a.py"), "x = 1\n")?;
/// let listing = Listing::walk(&root, None);
/// assert_eq!(listing.files.len(), 1);
/// assert!(!listing.is_current(), "the directory changed just now: walk again");
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Listing {
    /// The files, as [`list_files`] gives them.
    pub files: Vec<PathBuf>,
    /// Directories walked and ignore files, with their stamp then.
    pub(crate) watched: Watched,
    /// Whether a watched path changed within the racy window before the walk: then a
    /// later change within the same timestamp tick would leave its stamp as it was, and
    /// the walk is never taken as current.
    pub(crate) racy: bool,
}

impl Listing {
    /// Walks `root` as [`list_files`] does, noting what to watch.
    pub fn walk(root: &Path, skip_dir: Option<&Path>) -> Listing {
        walk(root, skip_dir, true)
    }

    /// Whether a walk now would list the same files: no watched directory or ignore file
    /// has another [`FileStamp`] or has gone, and none had changed within the racy
    /// window before the walk.
    pub fn is_current(&self) -> bool {
        !self.racy
            && self
                .watched
                .par_iter()
                .all(|(path, then)| stamp(path) == *then)
    }
}

/// Paths whose stamp tells whether a walk still holds, with that stamp.
pub(crate) type Watched = Vec<(PathBuf, Option<FileStamp>)>;

pub(crate) fn stamp(path: &Path) -> Option<FileStamp> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| FileStamp::of(&m))
}

/// Files in a directory that change what the walk ignores there.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

pub(crate) fn walk(root: &Path, skip_dir: Option<&Path>, watch: bool) -> Listing {
    let started = SystemTime::now();
    let found = Mutex::new(Vec::new());
    let watched = Mutex::new(Vec::new());
    let skip_dir = skip_dir.map(Path::to_path_buf);
    WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            // The cache location is never mapped, even when it is not a directory.
            if skip_dir.as_deref() == Some(entry.path()) {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if !is_dir {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            !name.starts_with('.') || HIDDEN_DIRS_KEPT.contains(&name.as_ref())
        })
        .build_parallel()
        .run(|| {
            let (found, watched) = (&found, &watched);
            Box::new(move |entry| {
                match entry {
                    Ok(entry) => visit(entry, found, watch.then_some(watched)),
                    Err(err) => tracing::debug!("skipping during the walk: {err}"),
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    // Every path starts with `root`, so comparing whole paths (component by component)
    // orders them as their relative paths, without stripping the prefix per comparison.
    crate::paths::sort_paths(&mut files);
    let mut watched = watched.into_inner().unwrap_or_else(|e| e.into_inner());
    if watch {
        let exclude = root.join(".git/info/exclude");
        watched.push((exclude.clone(), stamp(&exclude)));
        watched.retain(|(p, t)| t.is_some() || p == &exclude);
        watched.extend(watched_above(root));
    }
    let racy = watched
        .iter()
        .flat_map(|(_, t)| t)
        .any(|t| t.racy_at(started));
    Listing {
        files,
        watched,
        racy,
    }
}

/// The files above `root` whose rules the walk follows (git's and the `ignore` crate's
/// readers go up the tree): each directory's ignore files and `.git/info/exclude`, with
/// their stamps now, `None` where there is none (one created later counts as a change).
fn watched_above(root: &Path) -> Watched {
    let dirs = root.ancestors().skip(1);
    let names = IGNORE_FILES.iter().copied().chain([".git/info/exclude"]);
    let paths = dirs.flat_map(|dir| names.clone().map(move |name| dir.join(name)));
    paths.map(|p| (p.clone(), stamp(&p))).collect()
}

/// One entry of the walk: a file kept, a directory or ignore file watched.
fn visit(entry: ignore::DirEntry, found: &Mutex<Vec<PathBuf>>, watched: Option<&Mutex<Watched>>) {
    let Some(ft) = entry.file_type() else {
        return;
    };
    if let (Some(watched), true) = (watched, ft.is_dir()) {
        watch_dir(entry.path(), watched);
    }
    let keep = ft.is_file()
        || (ft.is_symlink() && std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()));
    if keep {
        let mut f = found.lock().unwrap_or_else(|e| e.into_inner());
        f.push(entry.into_path());
    }
}

/// Watches a directory walked and the ignore files in it. They are looked up by name,
/// not met in the walk: an ignore file may ignore itself (`/.gitignore` in it) and still
/// rule the walk. One created or deleted later changes the directory's stamp.
fn watch_dir(dir: &Path, watched: &Mutex<Watched>) {
    let mut found = vec![(dir.to_path_buf(), stamp(dir))];
    for name in IGNORE_FILES {
        let path = dir.join(name);
        if let Some(then) = stamp(&path) {
            found.push((path, Some(then)));
        }
    }
    let mut w = watched.lock().unwrap_or_else(|e| e.into_inner());
    w.extend(found);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// Issue 23 (found by the soak): a file added or deleted with its directory's mtime
    /// as it was, or within the timestamp tick of the last walk, must not leave the walk
    /// current.
    #[test]
    fn a_walk_holds_only_while_every_stamp_holds_and_had_settled() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::write(r.join("a.py"), "x = 1\n").unwrap();
        assert!(!Listing::walk(r, None).is_current(), "racy: just written");
        std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
        let listing = Listing::walk(r, None);
        assert!(listing.is_current(), "settled and unchanged");
        let old = fs::metadata(r).unwrap().modified().unwrap();
        fs::write(r.join("b.py"), "y = 2\n").unwrap();
        fs::File::open(r).unwrap().set_modified(old).unwrap();
        assert_eq!(fs::metadata(r).unwrap().modified().unwrap(), old);
        assert!(!listing.is_current(), "a new file, the mtime put back");
    }

    /// The ignore files above the root rule the walk too (the MCP server keeps its walks
    /// in memory, the CLI on disk): one created, or an exclude file written, after the
    /// walk leaves it no longer current, whether or not it was there before.
    #[test]
    fn a_walk_no_longer_holds_when_an_ignore_file_above_the_root_changes() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join("a.py"), "x = 1\n").unwrap();
        let above = [
            d.path().join(".gitignore"),
            d.path().join(".git/info/exclude"),
        ];
        fs::create_dir_all(d.path().join(".git/info")).unwrap();
        for (i, ignore) in above.iter().enumerate() {
            std::thread::sleep(
                repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50),
            );
            let listing = Listing::walk(&root, None);
            assert!(listing.is_current(), "settled and unchanged ({i})");
            fs::write(ignore, "a.py\n").unwrap();
            assert!(!listing.is_current(), "{} written", ignore.display());
            assert!(
                Listing::walk(&root, None).files.is_empty(),
                "{} rules",
                ignore.display()
            );
            fs::remove_file(ignore).unwrap();
        }
    }

    /// Issue 23 (soak seed 7, calls 967, 1009 and 1010): a `.gitignore` that ignores
    /// itself is never visited by the walk, yet its rules apply; editing it must still
    /// leave the walk not current.
    #[test]
    fn an_ignore_file_that_ignores_itself_is_watched() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        fs::create_dir(r.join("sub")).unwrap();
        fs::write(r.join("a.py"), "x = 1\n").unwrap();
        fs::write(r.join("sub/b.py"), "y = 2\n").unwrap();
        fs::write(r.join(".gitignore"), "/.gitignore\n").unwrap();
        fs::write(r.join("sub/.ignore"), ".ignore\n").unwrap();
        std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
        let listing = Listing::walk(r, None);
        assert_eq!(rels(r, &listing.files), ["a.py", "sub/b.py"]);
        assert!(listing.is_current(), "settled and unchanged");
        fs::write(r.join(".gitignore"), "/.gitignore\n/a.py\n").unwrap();
        assert!(!listing.is_current(), "the root's .gitignore changed");
        let listing = Listing::walk(r, None);
        assert_eq!(rels(r, &listing.files), ["sub/b.py"]);
        std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
        let listing = Listing::walk(r, None);
        fs::write(r.join("sub/.ignore"), ".ignore\nb.py\n").unwrap();
        assert!(!listing.is_current(), "sub/.ignore changed");
    }

    fn rels(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn walk_rules() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for f in [
            "b.py",
            "a/z.py",
            "a/b.rs",
            ".hidden/x.py",
            ".github/workflows/ci.yml",
            ".env.example",
            "ignored/x.py",
            "build.log",
            ".repo-mapper/tags",
            "cache-here/entry",
        ] {
            let p = r.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
        fs::write(r.join(".gitignore"), "ignored/\n*.log\n").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(r.join("b.py"), r.join("link.py")).unwrap();
            std::os::unix::fs::symlink(r.join("a"), r.join("linkdir")).unwrap();
        }
        fs::write(r.join("cache-file"), "not a directory").unwrap();
        let files = list_files(r, Some(&r.join("cache-here")));
        assert!(
            !rels(r, &list_files(r, Some(&r.join("cache-file"))))
                .contains(&"cache-file".to_owned())
        );
        let mut want = vec![
            ".env.example",
            ".github/workflows/ci.yml",
            ".gitignore",
            "a/b.rs",
            "a/z.py",
            "b.py",
            "cache-file",
        ];
        if cfg!(unix) {
            want.push("link.py");
        }
        assert_eq!(rels(r, &files), want);
    }
}
