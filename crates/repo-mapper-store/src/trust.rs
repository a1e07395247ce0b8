//! Whether a cache directory may be used: only one nobody else can write, the way git
//! refuses a repository another user owns and ssh a key others can write. A cache
//! another user can change could make us write through its symlinks into their choice
//! of files, or serve them tags and scopes of their making.

use std::path::{Path, PathBuf};

/// How many levels of directories [`untrusted_cache`] lists: the cache directory and the
/// directories in it (`scopes`, `walks`, the store's). The directories one level further
/// down (`scopes/{shard}`) are checked but not listed: they hold only blob files, by the
/// thousand, which are opened without following symlinks ([`no_follow`]).
const LISTED_LEVELS: usize = 2;

/// Why the cache directory `dir` must not be used, or `None` when it may be: `dir` (if it
/// exists), the directories in it to two levels and what the first level holds, as
/// [`std::fs::symlink_metadata`] sees them, and the directories above it, as they resolve.
///
/// On Unix, `dir` and those directories must be directories (not symlinks) owned by the
/// effective user and writable by nobody else; nothing in `dir` or in the directories it
/// holds may be a symlink (the blob files one level further down are opened without
/// following one); each directory above `dir` must be owned by the user or by root and
/// writable by nobody else, unless it has the sticky bit (as `/tmp`), where others cannot
/// move or remove what is ours. Elsewhere every directory is trusted. Reads metadata only,
/// a few dozen entries for any cache this crate makes.
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// assert_eq!(repo_mapper_store::untrusted_cache(&dir.path().join("cache")), None);
/// ```
pub fn untrusted_cache(dir: &Path) -> Option<Untrusted> {
    imp::untrusted_cache(dir)
}

/// `options` set not to follow a symlink that the path opened names (`O_NOFOLLOW`; the
/// open fails instead): for the cache's files, which only this crate makes, never as
/// links. Elsewhere `options` as they are.
pub(crate) fn no_follow(options: &mut std::fs::OpenOptions) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
    }
    #[cfg(not(unix))]
    options
}

/// A cache directory that is not used, and why: `Display` is the one-line warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untrusted {
    /// The cache directory.
    pub dir: PathBuf,
    /// The path that failed the check (the directory, something in it, or above it).
    pub path: PathBuf,
    /// What is wrong with it.
    pub why: String,
}

impl std::fmt::Display for Untrusted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = format!(
            "the cache directory {} is not used: {} {}",
            self.dir.display(),
            self.path.display(),
            self.why
        );
        f.write_str(&crate::store::one_line(&text))
    }
}

#[cfg(unix)]
mod imp {
    use std::fs::Metadata;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;

    use super::{LISTED_LEVELS, Untrusted};

    /// Group- and other-writable.
    const WRITABLE_BY_OTHERS: u32 = 0o022;
    /// The sticky bit.
    const STICKY: u32 = 0o1000;

    pub(super) fn untrusted_cache(dir: &Path) -> Option<Untrusted> {
        let me = rustix::process::geteuid().as_raw();
        let fail = |path: &Path, why: String| {
            Some(Untrusted {
                dir: dir.to_path_buf(),
                path: path.to_path_buf(),
                why,
            })
        };
        match std::fs::symlink_metadata(dir) {
            Ok(meta) => {
                if let Some(why) = owned_dir(&meta, me) {
                    return fail(dir, why);
                }
                if let Some((path, why)) = inside(dir, me) {
                    return fail(&path, why);
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            // Whatever cannot be read is the store's to report when it opens it.
            Err(_) => return None,
        }
        let (path, why) = above(dir, me)?;
        fail(&path, why)
    }

    /// What is wrong with a directory of the cache itself, if anything.
    fn owned_dir(meta: &Metadata, me: u32) -> Option<String> {
        let mode = meta.permissions().mode();
        if meta.file_type().is_symlink() {
            Some("is a symlink".into())
        } else if !meta.is_dir() {
            // Not a directory: the store says so and leaves it alone.
            None
        } else if meta.uid() != me {
            Some(format!("is owned by another user (uid {})", meta.uid()))
        } else if mode & WRITABLE_BY_OTHERS != 0 {
            Some(format!(
                "can be written by other users (mode {:o}; `chmod go-w` it)",
                mode & 0o7777
            ))
        } else {
            None
        }
    }

    /// The first entry of the cache directory `dir` that is a symlink or a directory
    /// failing [`owned_dir`]; a walk with a stack, listing [`LISTED_LEVELS`] levels.
    fn inside(dir: &Path, me: u32) -> Option<(std::path::PathBuf, String)> {
        let mut stack = vec![(dir.to_path_buf(), 0)];
        while let Some((at, depth)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&at) else {
                continue;
            };
            for entry in entries.flatten() {
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if kind.is_symlink() {
                    return Some((path, "is a symlink".into()));
                }
                if !kind.is_dir() {
                    continue;
                }
                let meta = entry.metadata().ok()?;
                if let Some(why) = owned_dir(&meta, me) {
                    return Some((path, why));
                }
                if depth + 1 < LISTED_LEVELS {
                    stack.push((path, depth + 1));
                }
            }
        }
        None
    }

    /// The first directory above `dir` that someone else could change.
    fn above(dir: &Path, me: u32) -> Option<(std::path::PathBuf, String)> {
        let start = dir
            .ancestors()
            .skip(1)
            .find_map(|a| a.canonicalize().ok())?;
        for at in start.ancestors() {
            let Ok(meta) = std::fs::metadata(at) else {
                continue;
            };
            let mode = meta.permissions().mode();
            if meta.uid() != me && meta.uid() != 0 {
                let why = format!("is owned by another user (uid {})", meta.uid());
                return Some((at.to_path_buf(), why));
            }
            if mode & WRITABLE_BY_OTHERS != 0 && mode & STICKY == 0 {
                let why = format!("can be written by other users (mode {:o})", mode & 0o7777);
                return Some((at.to_path_buf(), why));
            }
        }
        None
    }
}

#[cfg(not(unix))]
mod imp {
    use std::path::Path;

    use super::Untrusted;

    pub(super) fn untrusted_cache(_dir: &Path) -> Option<Untrusted> {
        None
    }
}
