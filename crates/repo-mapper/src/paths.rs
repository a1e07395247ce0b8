//! Paths as Aider names them.

use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// `os.path.relpath(path, root)` for absolute paths: `..` where `path` is outside `root`.
pub(crate) fn rel_fname(root: &Path, path: &Path) -> String {
    plain_rest(root, path).unwrap_or_else(|| rel_fname_by_components(root, path))
}

/// The rest of `path` after `root` and a `/`, compared as bytes, when that rest is plain
/// (no empty, `.` or `..` component): then it is what the component-wise way gives, without
/// walking components (a warm map names every file of the repository).
fn plain_rest(root: &Path, path: &Path) -> Option<String> {
    let (root, path) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
    if root.len() < 2 || root.ends_with(b"/") {
        return None;
    }
    let rest = path.strip_prefix(root)?.strip_prefix(b"/")?;
    let plain = rest
        .split(|&b| b == b'/')
        .all(|c| !matches!(c, b"" | b"." | b".."));
    plain.then(|| String::from_utf8_lossy(rest).into_owned())
}

fn rel_fname_by_components(root: &Path, path: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel.to_string_lossy().into_owned();
    }
    let p: Vec<Component<'_>> = path.components().collect();
    let r: Vec<Component<'_>> = root.components().collect();
    let common = p.iter().zip(&r).take_while(|(a, b)| a == b).count();
    if common == 0 {
        return path.to_string_lossy().into_owned();
    }
    let mut out = PathBuf::new();
    for _ in common..r.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c.as_os_str());
    }
    out.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relpath_like_python() {
        let root = Path::new("/r/repo");
        assert_eq!(rel_fname(root, Path::new("/r/repo/a/b.py")), "a/b.py");
        assert_eq!(rel_fname(root, Path::new("/r/other/c.py")), "../other/c.py");
        assert_eq!(rel_fname(root, Path::new("/x.py")), "../../x.py");
    }

    #[test]
    fn the_plain_shortcut_agrees_with_components() {
        for root in ["/r/repo", "/r/repo/", "/r/./repo", "/", "/r"] {
            for path in [
                "/r/repo/a/b.py",
                "/r/repo/a//b.py",
                "/r/repo/./a.py",
                "/r/repo/a/../b.py",
                "/r/repo/a/",
                "/r/repo",
                "/r/repository/a.py",
                "/r/repo/.hidden/x",
                "/r/other/c.py",
            ] {
                let (root, path) = (Path::new(root), Path::new(path));
                if let Some(fast) = plain_rest(root, path) {
                    assert_eq!(
                        fast,
                        rel_fname_by_components(root, path),
                        "{root:?} {path:?}"
                    );
                }
            }
        }
        assert!(plain_rest(Path::new("/r/repo"), Path::new("/r/repo/a/b.py")).is_some());
    }
}
