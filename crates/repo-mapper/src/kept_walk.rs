//! A walk kept between processes (issue 26): a warm run stats the directories the last
//! walk went through instead of walking again (Django: 3,247 directories for 6,868 files).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use repo_mapper_store::BlobDir;
use repo_mapper_tags::{FileStamp, leb128};

use crate::walk::{Listing, Watched, stamp, walk};

/// Walks kept per cache directory: one per (root, cache location), so a repository's
/// checkouts and worktrees, which share its cache, each keep theirs.
const KEPT_WALKS: usize = 64;

/// The kept walks' directory under a repository's cache directory.
pub(crate) const WALKS_DIR: &str = "walks";

/// The first bytes of a kept walk. A change to what a walk lists (`walk.rs`'s rules)
/// must change it, or kept walks would list files as the old rules did.
const MAGIC: &[u8; 8] = b"RMWALK01";

/// [`list_files`](crate::list_files), with the walk kept under `cache_dir` (a
/// repository's cache directory) and taken from there while it still holds
/// ([`Listing::is_current`]: no directory walked and no ignore file has another stamp,
/// and none had changed within the racy window before the walk).
///
/// Beyond what a [`Listing`] watches (the tree and the ignore files above it),
/// `also_watched` are watched, there or not (the caller's global git configuration and
/// ignore file, which only it knows how to find). A kept walk that cannot be read, is damaged or no longer
/// holds is walked again and replaced; one that cannot be written costs a walk next time.
///
/// ```
/// let root = std::env::temp_dir().join(format!("repo-mapper-kept-walk-{}", std::process::id()));
/// let cache = root.join(".cache");
/// std::fs::create_dir_all(&root)?;
/// std::fs::write(root.join("a.py"), "x = 1\n")?;
/// let files = repo_mapper::list_files_kept(&root, Some(&cache), &cache, &[]);
/// assert_eq!(files, repo_mapper::list_files(&root, Some(&cache)));
/// # std::fs::remove_dir_all(&root)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn list_files_kept(
    root: &Path,
    skip_dir: Option<&Path>,
    cache_dir: &Path,
    also_watched: &[PathBuf],
) -> Vec<PathBuf> {
    let blobs = BlobDir::new(cache_dir.join(WALKS_DIR)).with_max_blobs(KEPT_WALKS);
    let key = key_of(root, skip_dir, also_watched);
    let kept = blobs.get(&key).and_then(|bytes| decode(&bytes, root));
    if let Some(kept) = kept.filter(Listing::is_current) {
        return kept.files;
    }
    let started = SystemTime::now();
    let mut listing = walk(root, skip_dir, true);
    let outside: Watched = (also_watched.iter())
        .map(|p| (p.clone(), stamp(p)))
        .collect();
    listing.racy |= (outside.iter()).any(|(_, s)| s.is_some_and(|s| s.racy_at(started)));
    listing.watched.extend(outside);
    if let Err(e) = blobs.put(&key, &encode(&listing, root)) {
        tracing::debug!(dir = %blobs.dir().display(), "walk not kept: {e}");
    }
    listing.files
}

/// What names a kept walk: the root, the directory the walk skips, and what else it
/// watches.
fn key_of(root: &Path, skip_dir: Option<&Path>, also_watched: &[PathBuf]) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    // Another version's walk may follow other rules.
    hasher.update(env!("CARGO_PKG_VERSION").as_bytes());
    let paths = std::iter::once(root)
        .chain(skip_dir)
        .chain(also_watched.iter().map(PathBuf::as_path));
    for (i, path) in paths.enumerate() {
        hasher.update(&(i as u64).to_le_bytes());
        hasher.update(path.as_os_str().as_encoded_bytes());
        hasher.update(&[0]);
    }
    hasher.update(&[u8::from(skip_dir.is_some())]);
    *hasher.finalize().as_bytes()
}

/// A walk as bytes: [`MAGIC`], whether it was racy, its watched paths with their stamps,
/// its files; numbers in LEB128 (`leb128`), a time's seconds zigzagged. Each list is
/// sorted and each path written as the length it shares with the one before it, then
/// the rest after its length; paths under `root` relative to it (a flag says which).
fn encode(listing: &Listing, root: &Path) -> Vec<u8> {
    let mut out = Vec::with_capacity(24 * (listing.files.len() + listing.watched.len()));
    out.extend_from_slice(MAGIC);
    out.push(u8::from(listing.racy));
    let mut watched: Vec<&(PathBuf, Option<FileStamp>)> = listing.watched.iter().collect();
    watched.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    leb128::push(&mut out, watched.len() as u64);
    let mut paths = PathWriter::new(root);
    for (path, stamp) in watched {
        paths.put(&mut out, path);
        match stamp {
            None => out.push(0),
            Some(s) => {
                out.push(1);
                put_stamp(&mut out, s);
            }
        }
    }
    leb128::push(&mut out, listing.files.len() as u64);
    let mut paths = PathWriter::new(root);
    for file in &listing.files {
        paths.put(&mut out, file);
    }
    out
}

/// The walk `encode` wrote, if `bytes` are one whole.
fn decode(bytes: &[u8], root: &Path) -> Option<Listing> {
    let mut r = Reader {
        bytes: bytes.strip_prefix(MAGIC)?,
        root,
        last: Vec::new(),
    };
    let racy = match r.byte()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let mut watched = Vec::new();
    for _ in 0..r.number()? {
        let path = r.path()?;
        let stamp = match r.byte()? {
            0 => None,
            1 => Some(r.stamp()?),
            _ => return None,
        };
        watched.push((path, stamp));
    }
    r.last.clear();
    let mut files = Vec::new();
    for _ in 0..r.number()? {
        files.push(r.path()?);
    }
    r.bytes.is_empty().then_some(Listing {
        files,
        watched,
        racy,
    })
}

/// Writes paths front-coded against the one before.
struct PathWriter<'r> {
    root: &'r Path,
    last: Vec<u8>,
}

impl<'r> PathWriter<'r> {
    fn new(root: &'r Path) -> Self {
        PathWriter {
            root,
            last: Vec::new(),
        }
    }

    fn put(&mut self, out: &mut Vec<u8>, path: &Path) {
        let (under, rel) = match path.strip_prefix(self.root) {
            Ok(rel) => (1, rel),
            Err(_) => (0, path),
        };
        let mut bytes = vec![under];
        bytes.extend_from_slice(rel.as_os_str().as_encoded_bytes());
        let shared = (self.last.iter().zip(&bytes))
            .take_while(|(a, b)| a == b)
            .count();
        leb128::push(out, shared as u64);
        leb128::push(out, (bytes.len() - shared) as u64);
        out.extend_from_slice(&bytes[shared..]);
        self.last = bytes;
    }
}

fn put_stamp(out: &mut Vec<u8>, s: &FileStamp) {
    leb128::push(out, s.size);
    for (secs, nanos) in [s.mtime, s.ctime] {
        leb128::push(out, zigzag(secs));
        leb128::push(out, u64::from(nanos));
    }
    leb128::push(out, s.inode);
}

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

/// Reads what `encode` wrote, front to back; `None` past the end.
struct Reader<'b> {
    bytes: &'b [u8],
    root: &'b Path,
    /// The last path read, as written (its flag, then its bytes).
    last: Vec<u8>,
}

impl Reader<'_> {
    fn byte(&mut self) -> Option<u8> {
        let (&b, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(b)
    }

    fn number(&mut self) -> Option<u64> {
        leb128::take(&mut self.bytes)
    }

    fn path(&mut self) -> Option<PathBuf> {
        let shared = usize::try_from(self.number()?).ok()?;
        let len = usize::try_from(self.number()?).ok()?;
        let rest = self.bytes.get(..len)?;
        self.bytes = &self.bytes[len..];
        self.last.truncate(shared);
        if self.last.len() != shared {
            return None;
        }
        self.last.extend_from_slice(rest);
        let (&under, bytes) = self.last.split_first()?;
        // The bytes `as_encoded_bytes` gave on this platform (Unix: any bytes).
        let path = match std::str::from_utf8(bytes) {
            Ok(text) => PathBuf::from(text),
            Err(_) => unix_path(bytes)?,
        };
        match under {
            0 => Some(path),
            1 if path.as_os_str().is_empty() => Some(self.root.to_path_buf()),
            1 => Some(self.root.join(path)),
            _ => None,
        }
    }

    fn stamp(&mut self) -> Option<FileStamp> {
        let size = self.number()?;
        let mut time = || {
            let secs = unzigzag(self.number()?);
            Some((secs, u32::try_from(self.number()?).ok()?))
        };
        let (mtime, ctime) = (time()?, time()?);
        Some(FileStamp {
            size,
            mtime,
            ctime,
            inode: self.number()?,
        })
    }
}

/// A path that is not UTF-8, from its bytes (Unix only; elsewhere such a walk is not
/// read back).
#[cfg(unix)]
fn unix_path(bytes: &[u8]) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(bytes)))
}

#[cfg(not(unix))]
fn unix_path(_: &[u8]) -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    use crate::list_files;

    fn settle() {
        std::thread::sleep(repo_mapper_tags::RACY_WINDOW + std::time::Duration::from_millis(50));
    }

    /// A tree `top/repo` with a cache `top/cache` (outside it) and a global file
    /// `top/global`, settled.
    struct Tree {
        _dir: tempfile::TempDir,
        root: PathBuf,
        cache: PathBuf,
        global: PathBuf,
    }

    impl Tree {
        fn new() -> Tree {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("repo");
            fs::create_dir_all(root.join("src/deep")).unwrap();
            fs::write(root.join("a.py"), "x = 1\n").unwrap();
            fs::write(root.join("src/b.py"), "y = 2\n").unwrap();
            fs::write(root.join("src/deep/c.py"), "z = 3\n").unwrap();
            let (cache, global) = (dir.path().join("cache"), dir.path().join("global"));
            Tree {
                _dir: dir,
                root,
                cache,
                global,
            }
        }

        fn kept(&self) -> Vec<PathBuf> {
            list_files_kept(
                &self.root,
                None,
                &self.cache,
                std::slice::from_ref(&self.global),
            )
        }

        /// Keeps a walk, then plants a file in the kept copy that is not in the tree:
        /// a later `kept()` that lists it took the kept walk.
        fn keep_with_marker(&self) -> PathBuf {
            assert_eq!(self.kept(), list_files(&self.root, None));
            let blobs = BlobDir::new(self.cache.join(WALKS_DIR)).with_max_blobs(KEPT_WALKS);
            let key = key_of(&self.root, None, std::slice::from_ref(&self.global));
            let mut listing = decode(&blobs.get(&key).unwrap(), &self.root).unwrap();
            let marker = self.root.join("only-in-the-kept-walk.py");
            listing.files.push(marker.clone());
            blobs.put(&key, &encode(&listing, &self.root)).unwrap();
            assert!(self.kept().contains(&marker), "the kept walk is taken");
            marker
        }

        /// After `change`, the walk is a fresh one.
        fn walks_again_after(&self, change: impl FnOnce(&Path)) {
            settle();
            let marker = self.keep_with_marker();
            change(&self.root);
            let files = self.kept();
            assert!(!files.contains(&marker), "the kept walk no longer holds");
            assert_eq!(files, list_files(&self.root, None));
        }
    }

    #[test]
    fn a_walk_is_kept_while_it_holds_and_walked_again_after_a_change_in_the_tree() {
        let tree = Tree::new();
        assert_eq!(tree.kept(), list_files(&tree.root, None));
        tree.walks_again_after(|r| fs::write(r.join("src/deep/new.py"), "").unwrap());
        tree.walks_again_after(|r| fs::remove_file(r.join("src/b.py")).unwrap());
        tree.walks_again_after(|r| fs::rename(r.join("a.py"), r.join("src/a.py")).unwrap());
        tree.walks_again_after(|r| fs::write(r.join("src/.gitignore"), "deep/\n").unwrap());
        tree.walks_again_after(|r| fs::write(r.join("src/.gitignore"), "*.py\n").unwrap());
        let in_src = |f: &PathBuf| f.starts_with(tree.root.join("src"));
        let listed: Vec<PathBuf> = tree.kept().into_iter().filter(in_src).collect();
        assert_eq!(listed, [tree.root.join("src/.gitignore")]);
    }

    #[test]
    fn a_walk_is_walked_again_when_a_file_outside_the_tree_that_rules_it_changes() {
        let tree = Tree::new();
        // An ignore file above the root, created after the walk.
        let above = tree.root.parent().unwrap().join(".gitignore");
        tree.walks_again_after(|_| fs::write(&above, "a.py\n").unwrap());
        assert!(!tree.kept().contains(&tree.root.join("a.py")));
        // A global file the caller watches.
        tree.walks_again_after(|_| fs::write(&tree.global, "[core]\n").unwrap());
    }

    #[test]
    fn a_walk_of_a_tree_that_just_changed_is_never_taken() {
        let tree = Tree::new();
        // Written within the racy window: a second change in the same tick could hide.
        assert_eq!(tree.kept(), list_files(&tree.root, None));
        let blobs = BlobDir::new(tree.cache.join(WALKS_DIR));
        let key = key_of(&tree.root, None, std::slice::from_ref(&tree.global));
        assert!(decode(&blobs.get(&key).unwrap(), &tree.root).unwrap().racy);
    }

    #[test]
    fn a_damaged_or_foreign_kept_walk_is_walked_again() {
        let tree = Tree::new();
        settle();
        tree.keep_with_marker();
        let blobs = BlobDir::new(tree.cache.join(WALKS_DIR));
        let key = key_of(&tree.root, None, std::slice::from_ref(&tree.global));
        let bytes = blobs.get(&key).unwrap();
        for cut in [0, 8, 9, bytes.len() / 2, bytes.len() - 1] {
            blobs.put(&key, &bytes[..cut]).unwrap();
            assert_eq!(tree.kept(), list_files(&tree.root, None), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, &tree.root).is_none());
    }

    #[test]
    fn a_walk_reads_back_as_written() {
        let root = Path::new("/r");
        let stamp = FileStamp {
            size: 7,
            mtime: (-3, 999_999_999),
            ctime: (1_700_000_000, 5),
            inode: u64::MAX,
        };
        let mut files = vec![root.join("a.py"), root.join("d/é.rs")];
        let mut watched = vec![
            (root.to_path_buf(), Some(stamp)),
            (root.join(".ignore"), None),
        ];
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let odd = std::ffi::OsStr::from_bytes(b"d/\xff.c");
            files.push(root.join(odd));
            watched.push((root.join(odd), Some(FileStamp::default())));
        }
        for racy in [false, true] {
            let listing = Listing {
                files: files.clone(),
                watched: watched.clone(),
                racy,
            };
            let back = decode(&encode(&listing, root), root).unwrap();
            assert_eq!(
                (back.files, back.watched, back.racy),
                (files.clone(), watched.clone(), racy)
            );
        }
    }
}
