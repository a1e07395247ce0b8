//! File-system notifications for warm sessions: which of the last computation's files may
//! have changed since, so that the others are not `stat`ed again (issue 15: one `stat` per
//! file was a quarter of a warm map on Django).
//!
//! Linux only (inotify, read without blocking at the start of each computation: the kernel
//! queues an event when the write happens, so nothing written before a computation starts
//! is missed). Every directory from the root down to each file's parent is watched, and
//! the watch is set up *before* the files are `stat`ed, so a change after a `stat` is
//! always queued. Whatever the watch cannot vouch for — a queue overflow, a watched
//! directory moved or deleted, a file that is a symlink (its target changes elsewhere) —
//! sends the computation back to `stat`ing every file. Elsewhere there is no watch and
//! every file is `stat`ed, as without one.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// What changed since the last look.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Changes {
    /// Nothing the watch covers.
    None,
    /// These paths (in the watched directories) were written, created, deleted or moved.
    Paths(Vec<PathBuf>),
    /// Something the watch cannot vouch for: check everything.
    Unknown,
}

/// An inotify watch on the directories of a list of files.
#[derive(Debug)]
pub(crate) struct Watch {
    #[cfg(target_os = "linux")]
    fd: rustix::fd::OwnedFd,
    /// Watch descriptor → directory.
    dirs: HashMap<i32, PathBuf>,
    /// The watched directories.
    watched: HashSet<PathBuf>,
}

impl Watch {
    /// Watches `root` and every directory between it and the parent of each of `files`;
    /// `None` when that is not possible (not Linux, out of inotify watches, an error).
    pub(crate) fn over<'p>(root: &Path, files: impl Iterator<Item = &'p Path>) -> Option<Watch> {
        let mut watched: HashSet<PathBuf> = HashSet::new();
        watched.insert(root.to_path_buf());
        for file in files {
            let mut dir = file.parent();
            while let Some(d) = dir.filter(|d| d.starts_with(root)) {
                if !watched.insert(d.to_path_buf()) {
                    break; // its ancestors are in already
                }
                dir = d.parent();
            }
        }
        Watch::on(watched)
    }

    #[cfg(target_os = "linux")]
    fn on(watched: HashSet<PathBuf>) -> Option<Watch> {
        use rustix::fs::inotify::{CreateFlags, WatchFlags, add_watch, init};
        let fd = init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
        let flags = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW;
        let mut dirs = HashMap::with_capacity(watched.len());
        for dir in &watched {
            match add_watch(&fd, dir.as_path(), flags) {
                Ok(wd) => dirs.insert(wd, dir.clone()),
                // Not there (a missing file's): its creation is an event in a watched
                // ancestor, naming a watched directory.
                Err(rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR) => None,
                Err(e) => {
                    tracing::debug!(dir = %dir.display(), "no file-system watch ({e}): stat every file");
                    return None;
                }
            };
        }
        Some(Watch { fd, dirs, watched })
    }

    #[cfg(not(target_os = "linux"))]
    fn on(_watched: HashSet<PathBuf>) -> Option<Watch> {
        None
    }

    /// The changes queued since the last call; `is_listed` says which files matter.
    #[cfg(target_os = "linux")]
    pub(crate) fn changes(&mut self, is_listed: impl Fn(&Path) -> bool) -> Changes {
        use rustix::fs::inotify::Reader;
        use std::mem::MaybeUninit;
        let mut buf = vec![MaybeUninit::<u8>::uninit(); 64 * 1024];
        let mut reader = Reader::new(&self.fd, &mut buf);
        let mut paths = Vec::new();
        loop {
            let event = match reader.next() {
                Ok(event) => event,
                Err(rustix::io::Errno::AGAIN) => break,
                Err(_) => return Changes::Unknown,
            };
            let name = event.file_name().map(|n| n.to_bytes());
            let dir = self.dirs.get(&event.wd());
            match classify(event.events(), dir, name, &self.watched, &is_listed) {
                Seen::Nothing => {}
                Seen::File(path) => paths.push(path),
                Seen::Unknown => return Changes::Unknown,
            }
        }
        if paths.is_empty() {
            Changes::None
        } else {
            paths.sort_unstable();
            paths.dedup();
            Changes::Paths(paths)
        }
    }

    #[cfg(not(target_os = "linux"))]
    pub fn changes(&mut self, _is_listed: impl Fn(&Path) -> bool) -> Changes {
        Changes::Unknown
    }
}

/// What one event says.
enum Seen {
    Nothing,
    File(PathBuf),
    Unknown,
}

/// One event: about a listed file, about something that does not matter (a file nobody
/// asked for, a directory that holds none of the files), or beyond what the watch covers.
#[cfg(target_os = "linux")]
fn classify(
    events: rustix::fs::inotify::ReadFlags,
    dir: Option<&PathBuf>,
    name: Option<&[u8]>,
    watched: &HashSet<PathBuf>,
    is_listed: &impl Fn(&Path) -> bool,
) -> Seen {
    use rustix::fs::inotify::ReadFlags;
    use std::os::unix::ffi::OsStrExt;
    let beyond = ReadFlags::QUEUE_OVERFLOW
        | ReadFlags::IGNORED
        | ReadFlags::DELETE_SELF
        | ReadFlags::MOVE_SELF
        | ReadFlags::UNMOUNT;
    let (Some(dir), Some(name)) = (dir, name) else {
        // Overflow, a watch gone, or the directory itself changed (its mode, say).
        return Seen::Unknown;
    };
    if events.intersects(beyond) {
        return Seen::Unknown;
    }
    let path = dir.join(std::ffi::OsStr::from_bytes(name));
    if events.contains(ReadFlags::ISDIR) {
        return if watched.contains(&path) {
            Seen::Unknown
        } else {
            Seen::Nothing
        };
    }
    if is_listed(&path) {
        Seen::File(path)
    } else {
        Seen::Nothing
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn listed(files: &[PathBuf]) -> impl Fn(&Path) -> bool + '_ {
        move |p: &Path| files.iter().any(|f| f == p)
    }

    #[test]
    fn writes_creations_and_moves_are_seen_and_directories_moved_are_beyond_it() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        let files = vec![root.join("a/b/x.py"), root.join("top.py")];
        for f in &files {
            std::fs::write(f, "x = 1\n").unwrap();
        }
        let mut watch = Watch::over(&root, files.iter().map(|f| f.as_path())).unwrap();
        assert_eq!(watch.changes(listed(&files)), Changes::None);
        // Files nobody listed, directories holding none: nothing.
        std::fs::write(root.join("a/b/new.py"), "").unwrap();
        std::fs::write(root.join("other/y.py"), "").unwrap();
        std::fs::create_dir(root.join("a/c")).unwrap();
        assert_eq!(watch.changes(listed(&files)), Changes::None);
        std::fs::write(&files[0], "x = 2\n").unwrap();
        std::fs::rename(root.join("a/b/new.py"), &files[1]).unwrap();
        assert_eq!(watch.changes(listed(&files)), Changes::Paths(files.clone()));
        assert_eq!(watch.changes(listed(&files)), Changes::None);
        std::fs::rename(root.join("a/b"), root.join("a/moved")).unwrap();
        assert_eq!(watch.changes(listed(&files)), Changes::Unknown);
    }
}
