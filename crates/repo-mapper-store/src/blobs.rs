//! A directory of small immutable blobs named by content keys: safe for any number of
//! processes at once without a lock, and bounded in size.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use crate::trust::no_follow;

/// The largest blob [`BlobDir::get`] reads; a bigger file there is not ours.
const MAX_BLOB: u64 = 16 << 20;
/// Bytes of BLAKE3 checksum after each blob's payload.
const CHECKSUM: usize = 8;
/// Shards: the directories named by the first hex digit of a key.
const SHARDS: usize = 16;
/// A temporary file this old was left by a writer that died; pruning removes it.
const STALE_TEMP: Duration = Duration::from_secs(600);
/// A hit renews a blob's modification time only when it is older than this, so warm runs
/// that read the same blobs again write nothing.
const RENEW_AFTER: Duration = Duration::from_secs(600);

/// Blobs on disk, each in a file named by its 32-byte key (a content hash the caller
/// computes) under one of 16 shard directories.
///
/// * **Concurrent:** a blob is written to a temporary file and renamed into place, so a
///   reader sees a whole blob or none, and processes sharing the directory need no lock.
/// * **Checked:** each file ends with a checksum of its payload; a file that fails it is
///   removed and reads as a miss.
/// * **Bounded:** a shard keeps at most `max_blobs / 16` blobs (rounded up); writing
///   one more removes the least recently used (a hit renews a blob's modification time).
///
/// Nothing is created until the first [`put`](BlobDir::put); failures are returned by
/// `put` and are misses for [`get`](BlobDir::get).
#[derive(Debug, Clone)]
pub struct BlobDir {
    dir: PathBuf,
    per_shard: usize,
}

impl BlobDir {
    /// The default bound on blobs: [`BlobDir::new`] keeps at most this many.
    pub const DEFAULT_MAX_BLOBS: usize = 4096;

    /// Blobs under `dir`, at most [`BlobDir::DEFAULT_MAX_BLOBS`] of them.
    pub fn new(dir: impl Into<PathBuf>) -> BlobDir {
        BlobDir {
            dir: dir.into(),
            per_shard: Self::DEFAULT_MAX_BLOBS.div_ceil(SHARDS),
        }
    }

    /// Keeps at most `max_blobs` blobs (at least one per shard).
    pub fn with_max_blobs(mut self, max_blobs: usize) -> BlobDir {
        self.per_shard = max_blobs.div_ceil(SHARDS).max(1);
        self
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The blob stored under `key`, if it is there and whole.
    pub fn get(&self, key: &[u8; 32]) -> Option<Vec<u8>> {
        let path = self.path_of(key);
        let mut file = no_follow(File::options().read(true)).open(&path).ok()?;
        let meta = file.metadata().ok()?;
        let len = meta.len();
        if !(CHECKSUM as u64..=MAX_BLOB).contains(&len) {
            return None;
        }
        let mut bytes = Vec::with_capacity(len as usize);
        file.read_to_end(&mut bytes).ok()?;
        let Some(payload) = checked_payload(&bytes) else {
            tracing::debug!(file = %path.display(), "damaged blob removed");
            let _ = fs::remove_file(&path);
            return None;
        };
        // Renewed for the least-recently-used bound, through a handle that may write
        // times; a read-only directory still serves.
        let now = SystemTime::now();
        let stale = meta.modified().map_or(true, |t| {
            now.duration_since(t).is_ok_and(|age| age > RENEW_AFTER)
        });
        if stale && let Ok(writable) = no_follow(File::options().write(true)).open(&path) {
            let _ = writable.set_modified(now);
        }
        let payload = payload.len();
        bytes.truncate(payload);
        Some(bytes)
    }

    /// Stores `bytes` under `key`, replacing any blob there, then removes the least
    /// recently used blobs of its shard beyond the bound. Bytes [`get`](BlobDir::get)
    /// would not read back (over 16 MiB with the checksum) are refused, unwritten.
    pub fn put(&self, key: &[u8; 32], bytes: &[u8]) -> io::Result<()> {
        if (bytes.len() + CHECKSUM) as u64 > MAX_BLOB {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "a blob of {} bytes is over the {MAX_BLOB}-byte bound",
                    bytes.len()
                ),
            ));
        }
        let path = self.path_of(key);
        let shard = path.parent().unwrap_or(&self.dir);
        fs::create_dir_all(shard)?;
        replace_with(&path, |temp| write_blob(temp, bytes))?;
        self.prune(shard);
        Ok(())
    }

    /// The file of `key`: `{dir}/{first hex digit}/{all 64 hex digits}`.
    fn path_of(&self, key: &[u8; 32]) -> PathBuf {
        let hex = blake3::Hash::from_bytes(*key).to_hex();
        self.dir.join(&hex[..1]).join(hex.as_str())
    }

    /// Removes `shard`'s least recently used blobs beyond the bound, and temporary files
    /// left by writers that died.
    /// Names are counted first: only temporary files, and the blobs of a shard over its
    /// bound, are `stat`ed.
    fn prune(&self, shard: &Path) {
        let Ok(entries) = fs::read_dir(shard) else {
            return;
        };
        let (temps, blobs): (Vec<PathBuf>, Vec<PathBuf>) =
            entries.flatten().map(|entry| entry.path()).partition(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            });
        let modified = |p: &Path| fs::metadata(p).and_then(|m| m.modified()).ok();
        let now = SystemTime::now();
        for temp in temps {
            if is_stale_temp(&temp, now) {
                let _ = fs::remove_file(temp);
            }
        }
        if blobs.len() <= self.per_shard {
            return;
        }
        let mut aged: Vec<(Option<SystemTime>, PathBuf)> =
            blobs.into_iter().map(|p| (modified(&p), p)).collect();
        aged.sort();
        let excess = aged.len() - self.per_shard;
        for (_, path) in aged.into_iter().take(excess) {
            let _ = fs::remove_file(path);
        }
    }
}

/// The payload of a blob file's bytes, if its checksum holds.
fn checked_payload(bytes: &[u8]) -> Option<&[u8]> {
    let (payload, sum) = bytes.split_at_checked(bytes.len().checked_sub(CHECKSUM)?)?;
    (blake3::hash(payload).as_bytes()[..CHECKSUM] == *sum).then_some(payload)
}

fn write_blob(path: &Path, payload: &[u8]) -> io::Result<()> {
    let mut file = File::create_new(path)?;
    file.write_all(payload)?;
    file.write_all(&blake3::hash(payload).as_bytes()[..CHECKSUM])
}

/// Replaces the file at `path` with `bytes`, whole (a temporary file beside it, renamed
/// over it), its directory made first if need be: the one way the cache replaces a file it rewrites (packs, word
/// files, the facade's kept token counts).
pub fn replace_file(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    replace_with(path, |temp| fs::write(temp, bytes))
}

/// Replaces the file at `path` with what `write` writes to a temporary file beside it
/// (named `.tmp-{pid}-{n}`), renamed over it: a reader sees the old file or the new one,
/// whole. The temporary file is removed if either step fails.
pub(crate) fn replace_with(
    path: &Path,
    write: impl FnOnce(&Path) -> io::Result<()>,
) -> io::Result<()> {
    let temp = path.parent().unwrap_or(Path::new(".")).join(temp_name());
    let written = write(&temp).and_then(|()| fs::rename(&temp, path));
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// How the names of [`replace_with`]'s temporary files start.
const TEMP_PREFIX: &str = ".tmp-";

/// A temporary file name no other writer (process or thread) uses at the same time.
fn temp_name() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!("{TEMP_PREFIX}{}-{n}", std::process::id())
}

/// Whether `path` is a temporary file of [`replace_with`] last written more than
/// [`STALE_TEMP`] before `now`: its writer died before renaming it.
pub(crate) fn is_stale_temp(path: &Path, now: SystemTime) -> bool {
    let temp = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(TEMP_PREFIX));
    temp && fs::symlink_metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| now.duration_since(t).ok())
        .is_some_and(|age| age > STALE_TEMP)
}

/// Removes from `dir` (not below it) the temporary files writers that died left there
/// ([`is_stale_temp`]): the cache root's, beside the facade's token counts.
pub(crate) fn remove_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        if is_stale_temp(&entry.path(), now) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(n: u8) -> [u8; 32] {
        let mut k = [n; 32];
        k[0] = 0x70; // one shard
        k
    }

    #[test]
    fn a_blob_comes_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = BlobDir::new(dir.path().join("b"));
        assert_eq!(blobs.get(&key(1)), None);
        blobs.put(&key(1), b"scopes").unwrap();
        assert_eq!(blobs.get(&key(1)).as_deref(), Some(&b"scopes"[..]));
        blobs.put(&key(1), b"other").unwrap();
        assert_eq!(blobs.get(&key(1)).as_deref(), Some(&b"other"[..]));
        blobs.put(&key(2), b"").unwrap();
        assert_eq!(blobs.get(&key(2)).as_deref(), Some(&b""[..]));
    }

    #[test]
    fn a_damaged_blob_is_a_miss_and_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = BlobDir::new(dir.path());
        blobs.put(&key(1), b"scopes of a file").unwrap();
        let path = blobs.path_of(&key(1));
        let mut bytes = fs::read(&path).unwrap();
        bytes[3] ^= 1;
        fs::write(&path, &bytes).unwrap();
        assert_eq!(blobs.get(&key(1)), None);
        assert!(!path.exists());
        fs::write(&path, b"short").unwrap();
        assert_eq!(blobs.get(&key(1)), None);
    }

    #[test]
    fn a_shard_keeps_its_most_recently_used_blobs() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = BlobDir::new(dir.path()).with_max_blobs(3 * SHARDS);
        let old = SystemTime::now() - Duration::from_secs(3600);
        for n in 1..=3 {
            blobs.put(&key(n), &[n]).unwrap();
            let file = File::options()
                .write(true)
                .open(blobs.path_of(&key(n)))
                .unwrap();
            file.set_modified(old + Duration::from_secs(u64::from(n)))
                .unwrap();
        }
        // A hit renews blob 1; writing a fourth removes the least recently used, blob 2.
        assert!(blobs.get(&key(1)).is_some());
        blobs.put(&key(4), &[4]).unwrap();
        let kept: Vec<bool> = (1..=4).map(|n| blobs.get(&key(n)).is_some()).collect();
        assert_eq!(kept, [true, false, true, true]);
    }

    #[test]
    fn a_blob_too_large_to_read_back_is_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = BlobDir::new(dir.path());
        let largest = vec![7u8; MAX_BLOB as usize - CHECKSUM];
        blobs.put(&key(1), &largest).unwrap();
        assert_eq!(blobs.get(&key(1)).as_deref(), Some(&largest[..]));
        let over = vec![7u8; MAX_BLOB as usize - CHECKSUM + 1];
        assert!(blobs.put(&key(2), &over).is_err());
        assert!(!blobs.path_of(&key(2)).exists());
    }

    #[test]
    fn writers_that_died_leave_nothing_for_long() {
        let dir = tempfile::tempdir().unwrap();
        let blobs = BlobDir::new(dir.path());
        blobs.put(&key(1), b"x").unwrap();
        let shard = blobs.path_of(&key(1)).parent().unwrap().to_path_buf();
        let stale = shard.join(".tmp-1-1");
        let fresh = shard.join(".tmp-1-2");
        fs::write(&stale, b"half").unwrap();
        fs::write(&fresh, b"half").unwrap();
        let file = File::options().write(true).open(&stale).unwrap();
        file.set_modified(SystemTime::now() - 2 * STALE_TEMP)
            .unwrap();
        blobs.put(&key(2), b"y").unwrap();
        assert!(!stale.exists());
        assert!(fresh.exists(), "a write in progress is left alone");
    }

    #[test]
    fn stale_temporary_files_are_removed_from_a_directory_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".tmp-1-1");
        let kept = [".tmp-1-2", "counts-cl100k_base", "tmp-1-3"].map(|n| dir.path().join(n));
        for path in kept.iter().chain([&stale]) {
            fs::write(path, b"x").unwrap();
            let file = File::options().write(true).open(path).unwrap();
            let written = SystemTime::now() - 2 * STALE_TEMP;
            file.set_modified(if *path == kept[0] {
                SystemTime::now()
            } else {
                written
            })
            .unwrap();
        }
        let below = dir.path().join("tags-v1");
        fs::create_dir(&below).unwrap();
        fs::write(below.join(".tmp-1-4"), b"x").unwrap();
        remove_stale_temps(dir.path());
        assert!(!stale.exists());
        assert!(
            kept.iter().all(|p| p.exists()),
            "a fresh temp and other files stay"
        );
        assert!(below.join(".tmp-1-4").exists(), "only the directory itself");
    }

    #[test]
    fn an_unwritable_directory_is_an_error_and_a_miss() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-dir");
        fs::write(&file, b"").unwrap();
        let blobs = BlobDir::new(&file);
        assert!(blobs.put(&key(1), b"x").is_err());
        assert_eq!(blobs.get(&key(1)), None);
    }
}
