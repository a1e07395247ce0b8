//! Nothing outside the repository root is read (issue 12).
//!
//! Every file a computation reads passes [`RootGuard::check`] first, whoever listed it: the
//! walk, `--files-from`, a chat file, a library caller. A file is inside the root when its
//! path, with `..` resolved and every symlink followed, lies under the root's canonical
//! path. Directories are resolved once each, from the root down, before the files
//! ([`RootGuard::resolve_dirs`]), so a walk of many files costs one `lstat` per file and
//! per directory (a `realpath` only for symlinks), and the files can be checked from many
//! threads.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::fs::Metadata;
use std::path::{Path, PathBuf};

/// Why a file is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Missing, or not a regular file (behaviour.md §13.5).
    NotAFile,
    /// Its path leads outside the root (`../x.py`, `/etc/passwd`, a directory symlink).
    Outside,
    /// It is a symlink whose target lies outside the root.
    ExternalSymlink(PathBuf),
    /// Its name is not valid UTF-8: it could only be shown under a name that does not exist.
    NotUtf8Name,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NotAFile => f.write_str("it is not a file"),
            Refusal::Outside => f.write_str("it is outside the repository root"),
            Refusal::ExternalSymlink(target) => write!(
                f,
                "it is a symlink to {} outside the repository root",
                target.display()
            ),
            Refusal::NotUtf8Name => f.write_str("its name is not valid UTF-8"),
        }
    }
}

/// Decides, file by file, whether a computation may read it.
pub(crate) struct RootGuard {
    root: PathBuf,
    canonical_root: Option<PathBuf>,
    follow_external_symlinks: bool,
    /// Resolved directories, keyed by their path's bytes (hashing a `Path` walks its
    /// components: slow when every file of a repository is looked up).
    dirs: HashMap<Box<[u8]>, bool>,
}

impl RootGuard {
    /// A guard for `root`; with `follow_external_symlinks`, symlinks may lead anywhere
    /// (but `..` paths and directory symlinks still may not).
    pub(crate) fn new(root: &Path, follow_external_symlinks: bool) -> RootGuard {
        RootGuard {
            root: root.to_path_buf(),
            canonical_root: root.canonicalize().ok(),
            follow_external_symlinks,
            dirs: HashMap::new(),
        }
    }

    /// Resolves the directories of `files` and their ancestors up to the root, so that
    /// [`check`] finds them: a level at a time from the root down. A directory is inside
    /// when its parent is and it is a real directory (one `lstat`); a symlink, a `..` or
    /// anything unusual is resolved in full (`realpath`). On the calling thread: the
    /// Linux tree's 5,000 directories take ~10 ms, and the thread pool is busy then
    /// unpacking the store's pack, read ahead (a level in parallel waited ~100 ms for it).
    ///
    /// [`check`]: RootGuard::check
    pub(crate) fn resolve_dirs<'p>(&mut self, files: impl Iterator<Item = &'p Path>) {
        // Levels by the number of separators: a parent has fewer than its children, so
        // it is resolved first (counting bytes, not parsing components: one call sees
        // every directory of a repository).
        let mut levels: BTreeMap<usize, Vec<PathBuf>> = BTreeMap::new();
        let mut unseen: HashSet<&[u8]> = HashSet::new();
        for file in files {
            let mut dir = file.parent();
            while let Some(d) = dir {
                if self.dirs.contains_key(bytes(d)) || !unseen.insert(bytes(d)) {
                    break;
                }
                // `/` has a separator and no component: depth 0, before `/a`'s 1.
                let depth = match bytes(d) {
                    b"/" => 0,
                    d => d.iter().filter(|&&b| b == b'/').count(),
                };
                levels.entry(depth).or_default().push(d.to_path_buf());
                if d == self.root || !d.starts_with(&self.root) {
                    break;
                }
                dir = d.parent();
            }
        }
        for level in levels.into_values() {
            let resolved: Vec<(Box<[u8]>, bool)> = level
                .into_iter()
                .map(|d| {
                    let inside = self.resolve_below_parent(&d);
                    (Box::from(bytes(&d)), inside)
                })
                .collect();
            self.dirs.extend(resolved);
        }
    }

    /// Whether `dir` is inside, its parent already resolved when it is under the root.
    fn resolve_below_parent(&self, dir: &Path) -> bool {
        use std::path::Component;
        if dir == self.root {
            return self.canonical_root.is_some();
        }
        let plain = matches!(dir.components().next_back(), Some(Component::Normal(_)));
        let parent_inside = dir.parent().and_then(|p| self.dirs.get(bytes(p))) == Some(&true);
        if !plain || !parent_inside || !dir.starts_with(&self.root) {
            return self.resolve_dir(dir);
        }
        match std::fs::symlink_metadata(dir) {
            Ok(meta) if meta.file_type().is_symlink() => self.resolve_dir(dir),
            Ok(meta) => meta.is_dir(),
            Err(_) => false,
        }
    }

    /// Whether `path` may be read: a regular file (through a symlink, if it is one) inside
    /// the root; if so, its `stat` (what the tag scan's freshness check needs, so a warm
    /// session stats each file once) and whether it is a symlink. One `lstat` per file; a
    /// `stat` and a `realpath` only for symlinks (and a `realpath` for a directory
    /// [`resolve_dirs`] was not given).
    ///
    /// [`resolve_dirs`]: RootGuard::resolve_dirs
    pub(crate) fn check(&self, path: &Path) -> Result<(Metadata, bool), Refusal> {
        if path.to_str().is_none() {
            return Err(Refusal::NotUtf8Name);
        }
        if !lexically_under(path, &self.root) {
            return Err(Refusal::Outside);
        }
        let parent = path.parent().ok_or(Refusal::Outside)?;
        if !self.dir_inside(parent) {
            return Err(Refusal::Outside);
        }
        let link = std::fs::symlink_metadata(path).map_err(|_| Refusal::NotAFile)?;
        if !link.file_type().is_symlink() {
            return if link.is_file() {
                Ok((link, false))
            } else {
                Err(Refusal::NotAFile)
            };
        }
        if !self.follow_external_symlinks {
            let target = path.canonicalize().map_err(|_| Refusal::NotAFile)?;
            if !self
                .canonical_root
                .as_ref()
                .is_some_and(|r| target.starts_with(r))
            {
                return Err(Refusal::ExternalSymlink(target));
            }
        }
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => Ok((meta, true)),
            _ => Err(Refusal::NotAFile),
        }
    }

    /// Whether `dir` resolves to a directory under the canonical root.
    fn dir_inside(&self, dir: &Path) -> bool {
        match self.dirs.get(bytes(dir)) {
            Some(&inside) => inside,
            None => self.resolve_dir(dir),
        }
    }

    fn resolve_dir(&self, dir: &Path) -> bool {
        let Some(root) = &self.canonical_root else {
            return false;
        };
        dir.canonicalize().is_ok_and(|c| c.starts_with(root))
    }
}

/// A path's bytes, as the directory table keys it.
fn bytes(path: &Path) -> &[u8] {
    path.as_os_str().as_encoded_bytes()
}

/// Whether `path`, with `.` and `..` resolved textually, starts with `root`.
fn lexically_under(path: &Path, root: &Path) -> bool {
    if !path.is_absolute() {
        return false;
    }
    plainly_under(path, root).unwrap_or_else(|| lexically_under_by_components(path, root))
}

fn lexically_under_by_components(path: &Path, root: &Path) -> bool {
    use std::path::Component;
    let plain = |c: Component<'_>| matches!(c, Component::Normal(_) | Component::RootDir);
    if path.components().all(plain) {
        return path.starts_with(root) && path != root;
    }
    let resolved = resolve_dots(path);
    resolved.starts_with(root) && resolved != root
}

/// [`lexically_under`] by bytes, when `path` and `root` are plain (no empty, `.` or `..`
/// component, no trailing `/`): then `path` is under `root` when its bytes go on past
/// `root`'s with a `/`. `None` when either is not plain.
fn plainly_under(path: &Path, root: &Path) -> Option<bool> {
    let plain = |p: &[u8]| {
        p.strip_prefix(b"/").is_some_and(|rest| {
            rest.split(|&b| b == b'/')
                .all(|c| !matches!(c, b"" | b"." | b".."))
        })
    };
    let (path, root) = (bytes(path), bytes(root));
    if !plain(path) || !(root == b"/" || plain(root)) {
        return None;
    }
    let Some(rest) = path.strip_prefix(root) else {
        return Some(false);
    };
    Some(root == b"/" && !rest.is_empty() || rest.first() == Some(&b'/'))
}

/// `path` with `.` and `..` resolved textually.
fn resolve_dots(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut resolved = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                resolved.pop();
            }
            Component::CurDir => {}
            other => resolved.push(other.as_os_str()),
        }
    }
    resolved
}

/// A path a user named (a chat file, an anchor, a mentioned file), made absolute against
/// `base` (the current directory, or the root), if it lies under `root` (canonical):
/// symlinks followed where the path exists, `..` resolved textually where it does not.
/// The one check of user-given paths, which the CLI and the MCP server share; every
/// file read still passes the root guard (`RootGuard::check`).
///
/// ```
/// use std::path::Path;
/// let root = std::env::temp_dir().canonicalize()?.join("repo-mapper-inside-doc");
/// std::fs::create_dir_all(&root)?;
/// let inside = repo_mapper::inside_root(&root, &root, Path::new("src/../app.py"));
/// assert_eq!(inside, Some(root.join("app.py")));
/// assert_eq!(repo_mapper::inside_root(&root, &root, Path::new("../etc/passwd")), None);
/// assert_eq!(repo_mapper::inside_root(&root, &root, Path::new("/etc/passwd")), None);
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn inside_root(root: &Path, base: &Path, given: &Path) -> Option<PathBuf> {
    let joined = base.join(given);
    let path = joined
        .canonicalize()
        .unwrap_or_else(|_| resolve_dots(&joined));
    path.starts_with(root).then_some(path)
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// The byte shortcut says what the components say, wherever it speaks.
        #[test]
        fn plainly_under_agrees_with_components(
            path in "/([ab.]{0,2}/){0,3}[ab.]{0,2}",
            root in "/([ab.]{0,2}/){0,2}[ab.]{0,2}",
        ) {
            let (path, root) = (std::path::Path::new(&path), std::path::Path::new(&root));
            if let Some(fast) = super::plainly_under(path, root) {
                proptest::prop_assert_eq!(fast, super::lexically_under_by_components(path, root));
            }
        }
    }

    use super::*;
    use std::fs;

    #[test]
    fn dot_dot_and_absolute_paths_elsewhere_are_outside() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        fs::create_dir_all(root.join("a")).unwrap();
        fs::write(root.join("a/x.py"), "x = 1\n").unwrap();
        fs::write(d.path().join("secret.py"), "k = 1\n").unwrap();
        let guard = RootGuard::new(&root, false);
        assert!(guard.check(&root.join("a/x.py")).is_ok());
        assert!(guard.check(&root.join("a/../a/x.py")).is_ok());
        assert_eq!(
            guard.check(&root.join("../secret.py")).unwrap_err(),
            Refusal::Outside
        );
        assert_eq!(
            guard.check(&d.path().join("secret.py")).unwrap_err(),
            Refusal::Outside
        );
        assert_eq!(
            guard.check(&root.join("missing.py")).unwrap_err(),
            Refusal::NotAFile
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_out_of_the_root_are_refused_unless_followed() {
        use std::os::unix::fs::symlink;
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(d.path().join("out")).unwrap();
        fs::write(d.path().join("out/secret.py"), "k = 1\n").unwrap();
        fs::write(root.join("in.py"), "x = 1\n").unwrap();
        symlink(d.path().join("out/secret.py"), root.join("link.py")).unwrap();
        symlink(root.join("in.py"), root.join("inner.py")).unwrap();
        symlink(d.path().join("out"), root.join("outdir")).unwrap();
        let guard = RootGuard::new(&root, false);
        assert!(matches!(
            guard.check(&root.join("link.py")),
            Err(Refusal::ExternalSymlink(_))
        ));
        assert!(guard.check(&root.join("inner.py")).is_ok());
        assert_eq!(
            guard.check(&root.join("outdir/secret.py")).unwrap_err(),
            Refusal::Outside
        );
        let following = RootGuard::new(&root, true);
        assert!(following.check(&root.join("link.py")).is_ok());
        assert_eq!(
            following.check(&root.join("outdir/secret.py")).unwrap_err(),
            Refusal::Outside
        );
    }

    #[cfg(unix)]
    #[test]
    fn directories_resolved_from_the_root_down_catch_every_symlink() {
        use std::os::unix::fs::symlink;
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("repo");
        fs::create_dir_all(root.join("a/b")).unwrap();
        fs::create_dir_all(d.path().join("out/deep")).unwrap();
        fs::write(root.join("a/b/x.py"), "x = 1\n").unwrap();
        fs::write(d.path().join("out/deep/secret.py"), "k = 1\n").unwrap();
        symlink(d.path().join("out"), root.join("a/outdir")).unwrap();
        symlink(root.join("a"), root.join("indir")).unwrap();
        let files = [
            root.join("a/b/x.py"),
            root.join("a/outdir/deep/secret.py"),
            root.join("indir/b/x.py"),
            root.join("a/b/../b/x.py"),
            root.join("a/b/../../../out/deep/secret.py"),
        ];
        let mut guard = RootGuard::new(&root, false);
        guard.resolve_dirs(files.iter().map(PathBuf::as_path));
        let verdicts: Vec<bool> = files.iter().map(|f| guard.check(f).is_ok()).collect();
        assert_eq!(verdicts, [true, false, true, true, false]);
        // The same verdicts as resolving every directory in full.
        let unresolved = RootGuard::new(&root, false);
        let full: Vec<bool> = files.iter().map(|f| unresolved.check(f).is_ok()).collect();
        assert_eq!(verdicts, full);
    }

    #[cfg(unix)]
    #[test]
    fn names_that_are_not_utf8_are_refused() {
        use std::os::unix::ffi::OsStrExt;
        let d = tempfile::tempdir().unwrap();
        let name = std::ffi::OsStr::from_bytes(b"bad\xff.py");
        fs::write(d.path().join(name), "x = 1\n").unwrap();
        let guard = RootGuard::new(d.path(), false);
        assert_eq!(
            guard.check(&d.path().join(name)).unwrap_err(),
            Refusal::NotUtf8Name
        );
    }
}
