//! Where a repository's cache goes inside a per-user cache directory (issue 26): one
//! directory per repository, shared by its checkouts, so a second checkout starts warm.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use repo_mapper_store::{CacheLocation, StoreFallback};

/// The cache directory of the repository at `root` inside the per-user cache `base`
/// (the CLI's `$XDG_CACHE_HOME/repo-mapper`): `{name}-{16 hex digits}`.
///
/// Checkouts of one repository share it: every worktree of a git repository (one common
/// git directory), and every clone of one `origin` remote. The hex digits are the start of
/// a BLAKE3 hash of that identity: the `origin` URL where the repository has one, else
/// the common git directory's path, else (no git) the root's path. `name` is the
/// identity's last path component, for a person looking at `base`. Reads the root's `.git`
/// (a directory, or a worktree's `gitdir:` file), its `commondir` and the common `config`;
/// nothing else.
///
/// ```
/// let dir = repo_mapper::shared_cache_dir("/home/me/.cache/repo-mapper".as_ref(), "/src/app".as_ref());
/// assert!(dir.starts_with("/home/me/.cache/repo-mapper"));
/// assert!(dir.file_name().unwrap().to_str().unwrap().starts_with("app-"));
/// ```
pub fn shared_cache_dir(base: &Path, root: &Path) -> PathBuf {
    let identity = repository_identity(root);
    let hex = blake3::hash(identity.as_bytes()).to_hex();
    base.join(format!("{}-{}", readable_name(&identity), &hex[..16]))
}

/// Repositories' directories a per-user cache keeps: the most recently used.
pub const KEPT_REPOSITORIES: usize = 64;

/// Unused this long, a repository's directory in a per-user cache is removed.
pub const KEPT_UNUSED: Duration = Duration::from_secs(30 * 24 * 3600);

/// Marks `dir` (a [`shared_cache_dir`] in `base`) used now, and removes the directories
/// of other repositories in `base` unused for [`KEPT_UNUSED`] or beyond the
/// [`KEPT_REPOSITORIES`] most recently used: the per-user cache stays bounded however
/// many checkouts pass through it. Only directories named as [`shared_cache_dir`] names
/// them and holding a cache's `.gitignore` are ever removed. Best effort: errors are
/// ignored.
pub fn prune_shared_cache(base: &Path, dir: &Path) {
    mark_cache_used(dir);
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let now = SystemTime::now();
    let mut ours: Vec<(SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p != dir && is_repository_dir(p))
        .map(|p| {
            let used = std::fs::metadata(p.join(USED)).and_then(|m| m.modified());
            (used.unwrap_or(SystemTime::UNIX_EPOCH), p)
        })
        .collect();
    ours.sort_by_key(|(used, _)| std::cmp::Reverse(*used));
    for (i, (used, path)) in ours.into_iter().enumerate() {
        let unused = now.duration_since(used).unwrap_or_default();
        if i + 1 >= KEPT_REPOSITORIES || unused > KEPT_UNUSED {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// Marks `dir` (a [`shared_cache_dir`]) used now, so that [`prune_shared_cache`] keeps it:
/// one small write, for a process that keeps using a directory it chose earlier. The mark
/// is replaced, never written through: whatever is at its path is not followed.
pub fn mark_cache_used(dir: &Path) {
    let _ = repo_mapper_store::replace_file(&dir.join(USED), b"");
}

/// `location`, or memory when its directory is one someone else could change
/// ([`repo_mapper_store::untrusted_cache`]), with the reason, which is also logged as one
/// warning. Whoever picks a cache directory calls this before using it for anything.
///
/// ```
/// use repo_mapper::{CacheLocation, trusted_cache};
///
/// let dir = tempfile::tempdir().unwrap();
/// let location = CacheLocation::Dir(dir.path().join("cache"));
/// assert_eq!(trusted_cache(location.clone()), (location, None));
/// ```
pub fn trusted_cache(location: CacheLocation) -> (CacheLocation, Option<StoreFallback>) {
    let CacheLocation::Dir(dir) = &location else {
        return (location, None);
    };
    match repo_mapper_store::untrusted_cache(dir) {
        None => (location, None),
        Some(untrusted) => {
            tracing::warn!("{untrusted}; keeping everything in memory for this run");
            (
                CacheLocation::Memory,
                Some(StoreFallback::Untrusted(untrusted)),
            )
        }
    }
}

/// The file whose modification time says when a repository's directory was last used.
const USED: &str = ".used";

/// Whether `path` is a repository's directory of a per-user cache: `{name}-{16 hex}`,
/// holding a cache's `.gitignore`.
fn is_repository_dir(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let hex = name.rsplit_once('-').map_or("", |(_, h)| h);
    hex.len() == 16
        && hex.bytes().all(|b| b.is_ascii_hexdigit())
        && path.join(".gitignore").is_file()
}

/// How many local clones of clones [`repository_identity`] follows back to the first.
const MAX_LOCAL_CLONES: usize = 8;

/// What checkouts of one repository share: `remote URL`, `git DIR` or `dir ROOT`. A
/// clone whose `origin` is a repository on this machine (`git clone /src/app`) shares the
/// identity of that repository, followed back through at most [`MAX_LOCAL_CLONES`]
/// local clones.
fn repository_identity(root: &Path) -> String {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let Some(mut common) = common_git_dir(&root) else {
        return format!("dir {}", root.display());
    };
    for _ in 0..MAX_LOCAL_CLONES {
        let Some(url) = origin_url(&common) else {
            break;
        };
        let Some(origin) = local_repository(&url) else {
            return format!("remote {url}");
        };
        if origin == common {
            break;
        }
        common = origin;
    }
    format!("git {}", common.display())
}

/// The common git directory of the repository on this machine that `url` names (a
/// path, or a `file://` URL), if it is one.
fn local_repository(url: &str) -> Option<PathBuf> {
    let path = Path::new(url.strip_prefix("file://").unwrap_or(url));
    if !path.is_absolute() {
        return None;
    }
    let root = path.canonicalize().ok()?;
    common_git_dir(&root).or_else(|| bare_git_dir(&root))
}

/// `dir` itself when it is a bare repository (it holds `HEAD` and `objects`).
fn bare_git_dir(dir: &Path) -> Option<PathBuf> {
    (dir.join("HEAD").is_file() && dir.join("objects").is_dir()).then(|| dir.to_path_buf())
}

/// The common git directory of the repository at `root`: `root/.git`, or for a worktree
/// (`.git` a `gitdir:` file) the directory its `commondir` names.
fn common_git_dir(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let git_dir = if dot_git.is_dir() {
        dot_git
    } else {
        let text = std::fs::read_to_string(&dot_git).ok()?;
        root.join(text.strip_prefix("gitdir:")?.trim())
    };
    let common = match std::fs::read_to_string(git_dir.join("commondir")) {
        Ok(rel) => git_dir.join(rel.trim()),
        Err(_) => git_dir,
    };
    Some(common.canonicalize().unwrap_or(common))
}

/// The `url` of `[remote "origin"]` in the common git directory's `config`, without a
/// trailing `.git` or `/`.
fn origin_url(common: &Path) -> Option<String> {
    let config = std::fs::read_to_string(common.join("config")).ok()?;
    let mut in_origin = false;
    for line in config.lines().map(str::trim) {
        if line.starts_with('[') {
            in_origin = line.replace(' ', "") == "[remote\"origin\"]";
        } else if in_origin
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "url"
        {
            let url = value.trim().trim_end_matches('/');
            return Some(url.strip_suffix(".git").unwrap_or(url).to_owned());
        }
    }
    None
}

/// The identity's last path component (for a git directory, the repository's own name),
/// in letters, digits, `-`, `_` and `.` only, at most 32 of them.
fn readable_name(identity: &str) -> String {
    let path = identity.split_once(' ').map_or(identity, |(_, p)| p);
    let path = path.strip_suffix("/.git").unwrap_or(path);
    let last = path
        .rsplit(['/', '\\', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or("repo");
    let name: String = last
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .take(32)
        .collect();
    if name.is_empty() { "repo".into() } else { name }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn git_repo(dir: &Path, origin: Option<&str>) {
        fs::create_dir_all(dir.join(".git")).unwrap();
        let mut config = "[core]\n\tbare = false\n".to_owned();
        if let Some(url) = origin {
            config.push_str(&format!("[remote \"origin\"]\n\turl = {url}\n"));
        }
        fs::write(dir.join(".git/config"), config).unwrap();
    }

    /// A worktree of `main` named `name`, as `git worktree add` lays it out.
    fn worktree(main: &Path, at: &Path, name: &str) {
        let admin = main.join(".git/worktrees").join(name);
        fs::create_dir_all(&admin).unwrap();
        fs::write(admin.join("commondir"), "../..\n").unwrap();
        fs::create_dir_all(at).unwrap();
        fs::write(at.join(".git"), format!("gitdir: {}\n", admin.display())).unwrap();
    }

    #[test]
    fn worktrees_and_clones_of_one_repository_share_a_directory() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("cache");
        let (main, other) = (t.path().join("app"), t.path().join("app-feature"));
        git_repo(&main, None);
        worktree(&main, &other, "feature");
        let shared = shared_cache_dir(&base, &main);
        assert_eq!(shared_cache_dir(&base, &other), shared);
        let name = shared.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("app-") && name.len() == "app-".len() + 16,
            "{name}"
        );
        // Two clones of one remote share; another remote and a plain directory do not.
        let (a, b, c) = (t.path().join("a"), t.path().join("b"), t.path().join("c"));
        git_repo(&a, Some("https://example.com/org/tool.git"));
        git_repo(&b, Some("https://example.com/org/tool/"));
        git_repo(&c, Some("https://example.com/org/other.git"));
        let clone = shared_cache_dir(&base, &a);
        assert_eq!(shared_cache_dir(&base, &b), clone);
        assert!(
            clone
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("tool-")
        );
        assert_ne!(shared_cache_dir(&base, &c), clone);
        let plain = t.path().join("plain");
        fs::create_dir_all(&plain).unwrap();
        assert_ne!(shared_cache_dir(&base, &plain), clone);
        assert_ne!(shared_cache_dir(&base, &plain), shared);
    }

    /// `git clone /src/app` (and a clone of that clone, and a `file://` one) share the
    /// directory of the repository cloned, as `git clone` of a remote shares the remote's.
    #[test]
    fn local_clones_share_the_directory_of_the_repository_they_clone() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().join("cache");
        let main = t.path().join("app");
        let git = |args: &[&str], dir: &Path| {
            let out = std::process::Command::new("git")
                .current_dir(dir)
                .args(args)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", t.path())
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        fs::create_dir_all(&main).unwrap();
        git(&["init", "-q"], &main);
        fs::write(main.join("a.py"), "x = 1\n").unwrap();
        git(&["add", "a.py"], &main);
        git(
            &[
                "-c",
                "user.name=a",
                "-c",
                "user.email=a@b",
                "commit",
                "-qm",
                "a",
            ],
            &main,
        );
        let shared = shared_cache_dir(&base, &main);
        let main_url = main.to_str().unwrap().to_owned();
        let file_url = format!("file://{main_url}");
        git(&["clone", "-q", &main_url, "clone"], t.path());
        git(&["clone", "-q", "./clone", "clone-of-clone"], t.path());
        git(&["clone", "-q", &file_url, "by-url"], t.path());
        for clone in ["clone", "clone-of-clone", "by-url"] {
            assert_eq!(
                shared_cache_dir(&base, &t.path().join(clone)),
                shared,
                "{clone}"
            );
        }
        // A clone whose origin is gone, or not a repository, is its own.
        let gone = t.path().join("gone");
        git_repo(&gone, Some("/no/such/repository"));
        assert_ne!(shared_cache_dir(&base, &gone), shared);
    }

    #[test]
    fn the_cache_keeps_the_repositories_used_most_recently_and_lately() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path();
        let make = |name: &str, days_ago: u64| {
            let dir = base.join(name);
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join(".gitignore"), "*\n").unwrap();
            fs::write(dir.join(USED), b"").unwrap();
            let at = SystemTime::now() - Duration::from_secs(days_ago * 24 * 3600);
            let used = fs::File::options()
                .write(true)
                .open(dir.join(USED))
                .unwrap();
            used.set_modified(at).unwrap();
            dir
        };
        let recent: Vec<PathBuf> = (0..KEPT_REPOSITORIES + 2)
            .map(|i| make(&format!("r{i}-{:016x}", i), i as u64 % 20))
            .collect();
        let stale = make("old-00000000000000ff", 40);
        let foreign = base.join("mine-0000000000000001");
        fs::create_dir_all(&foreign).unwrap(); // no .gitignore: not ours
        let current = shared_cache_dir(base, t.path());
        prune_shared_cache(base, &current);
        assert!(current.join(USED).is_file());
        assert!(!stale.exists(), "unused for 40 days");
        assert!(foreign.exists(), "not a cache directory");
        let kept = recent.iter().filter(|d| d.exists()).count();
        assert_eq!(
            kept,
            KEPT_REPOSITORIES - 1,
            "with the current one, 64 in all"
        );
    }

    #[test]
    fn odd_names_become_readable_ones() {
        assert_eq!(readable_name("dir /x/my app!"), "myapp");
        assert_eq!(readable_name("git /src/tool/.git"), "tool");
        assert_eq!(readable_name("remote git@host:org/repo"), "repo");
        assert_eq!(readable_name("dir /"), "repo");
    }
}
