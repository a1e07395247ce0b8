//! Nothing outside the repository root is read (issue 12).
//!
//! Every file a computation reads passes [`RootGuard::check`] first, whoever listed it: the
//! walk, `--files-from`, a chat file, a library caller. A file is inside the root when its
//! path, with `..` resolved and every symlink followed, lies under the root's canonical
//! path. Directories are resolved once each, in parallel, before the files
//! ([`RootGuard::resolve_dirs`]), so a walk of many files costs one `lstat` per file and
//! one `realpath` per directory, and the files can be checked from many threads.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

/// Why a file is not read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Missing, or not a regular file (SPEC §13.5).
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
    dirs: HashMap<PathBuf, bool>,
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

    /// Resolves the directories of `files` (in parallel), so that [`check`] finds them.
    ///
    /// [`check`]: RootGuard::check
    pub(crate) fn resolve_dirs<'p>(&mut self, files: impl Iterator<Item = &'p Path>) {
        let unseen: HashSet<&Path> = files
            .filter_map(Path::parent)
            .filter(|d| !self.dirs.contains_key(*d))
            .collect();
        let resolved: Vec<(PathBuf, bool)> = unseen
            .into_par_iter()
            .map(|d| (d.to_path_buf(), self.resolve_dir(d)))
            .collect();
        self.dirs.extend(resolved);
    }

    /// Whether `path` may be read: a regular file (through a symlink, if it is one) inside
    /// the root. One `lstat` per file; a `stat` and a `realpath` only for symlinks (and a
    /// `realpath` for a directory [`resolve_dirs`] was not given).
    ///
    /// [`resolve_dirs`]: RootGuard::resolve_dirs
    pub(crate) fn check(&self, path: &Path) -> Result<(), Refusal> {
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
                Ok(())
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
            Ok(meta) if meta.is_file() => Ok(()),
            _ => Err(Refusal::NotAFile),
        }
    }

    /// Whether `dir` resolves to a directory under the canonical root.
    fn dir_inside(&self, dir: &Path) -> bool {
        match self.dirs.get(dir) {
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

/// Whether `path`, with `.` and `..` resolved textually, starts with `root`.
fn lexically_under(path: &Path, root: &Path) -> bool {
    use std::path::Component;
    if !path.is_absolute() {
        return false;
    }
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
    resolved.starts_with(root) && resolved != root
}

#[cfg(test)]
mod tests {
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
