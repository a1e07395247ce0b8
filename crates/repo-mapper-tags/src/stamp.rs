//! [`FileStamp`]: what `stat` says of a file, the one identity every cache of a file's
//! content checks (the tag store, a warm session's tags, the renderer's parsed files).
//!
//! Git's index rule: a file is unchanged while its size, modification time, change time
//! and inode are unchanged. The modification time alone is not enough: `cp -p`,
//! `rsync -a`, `tar x` and `touch -r` put it back after a rewrite. The change time cannot
//! be set by a user, and a rename-into-place (how editors save) gives a new inode. Where
//! the platform has no change time or inode (not Unix) they are 0 and the stamp is the
//! size and modification time.

use std::fs::Metadata;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A file stamped this close to a read may change again within the same timestamp tick
/// without its stamp changing (git's "racy clean" rule): its cached content is trusted
/// only after a check of the content itself.
pub const RACY_WINDOW: Duration = Duration::from_secs(2);

/// A point in time as `stat` gives it: seconds since the Unix epoch (negative before it)
/// and nanoseconds.
pub type StatTime = (i64, u32);

/// The identity of a file's content as far as `stat` tells it (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct FileStamp {
    /// Size in bytes.
    pub size: u64,
    /// Last modification of the content (settable by anyone who can write the file).
    pub mtime: StatTime,
    /// Last change of the content or metadata (set by the kernel only); `(0, 0)` where
    /// the platform has none.
    pub ctime: StatTime,
    /// The inode; 0 where the platform has none.
    pub inode: u64,
}

impl FileStamp {
    /// The stamp of a file whose `stat` is `meta`.
    #[cfg(unix)]
    pub fn of(meta: &Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        let nanos = |n: i64| u32::try_from(n).unwrap_or(0);
        FileStamp {
            size: meta.len(),
            mtime: (meta.mtime(), nanos(meta.mtime_nsec())),
            ctime: (meta.ctime(), nanos(meta.ctime_nsec())),
            inode: meta.ino(),
        }
    }

    /// The stamp of a file whose `stat` is `meta`.
    #[cfg(not(unix))]
    pub fn of(meta: &Metadata) -> FileStamp {
        FileStamp {
            size: meta.len(),
            mtime: meta.modified().map_or((0, 0), stat_time),
            ctime: (0, 0),
            inode: 0,
        }
    }

    /// Whether the file was modified or changed within [`RACY_WINDOW`] before `at` (or
    /// after it): content read at `at` may then differ from what this stamp will vouch for.
    pub fn racy_at(&self, at: SystemTime) -> bool {
        let at = stat_time(at);
        let latest = self.mtime.max(self.ctime);
        let window = RACY_WINDOW.as_secs() as i64;
        // Within the window: less than `window` seconds (to the nanosecond) before `at`.
        latest.0 > at.0 - window || (latest.0 == at.0 - window && latest.1 > at.1)
    }
}

/// `t` as seconds and nanoseconds since the Unix epoch, the way `stat` gives it (a time
/// before the epoch: negative seconds, nanoseconds counted forward).
pub fn stat_time(t: SystemTime) -> StatTime {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => (
            i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            d.subsec_nanos(),
        ),
        Err(e) => {
            let d = e.duration();
            let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
            match d.subsec_nanos() {
                0 => (-secs, 0),
                n => (-secs - 1, 1_000_000_000 - n),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_before_the_epoch_count_nanoseconds_forward() {
        let t = UNIX_EPOCH - Duration::from_millis(1500);
        assert_eq!(stat_time(t), (-2, 500_000_000));
        assert_eq!(stat_time(UNIX_EPOCH + Duration::new(3, 7)), (3, 7));
    }

    #[test]
    fn racy_within_the_window_and_after() {
        let now = SystemTime::now();
        let at = |t: SystemTime| FileStamp {
            mtime: stat_time(t),
            ..FileStamp::default()
        };
        assert!(at(now).racy_at(now));
        assert!(at(now - Duration::from_millis(1999)).racy_at(now));
        assert!(at(now + Duration::from_secs(5)).racy_at(now));
        assert!(!at(now - Duration::from_secs(2)).racy_at(now));
        assert!(!at(now - Duration::from_secs(3600)).racy_at(now));
    }

    #[test]
    fn a_recent_change_time_is_racy_whatever_the_modification_time() {
        let now = SystemTime::now();
        let stamp = FileStamp {
            mtime: stat_time(now - Duration::from_secs(3600)),
            ctime: stat_time(now),
            ..FileStamp::default()
        };
        assert!(stamp.racy_at(now), "`cp -p` put the mtime back an hour");
    }

    #[cfg(unix)]
    #[test]
    fn a_rewrite_with_its_mtime_put_back_changes_the_stamp() {
        let dir = std::env::temp_dir().join(format!("stamp-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.py");
        std::fs::write(&path, "x = 1\n").unwrap();
        let before = std::fs::metadata(&path).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&path, "y = 2\n").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(before.modified().unwrap()).unwrap();
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(before.modified().unwrap(), after.modified().unwrap());
        assert_eq!(before.len(), after.len());
        assert_ne!(FileStamp::of(&before), FileStamp::of(&after));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
