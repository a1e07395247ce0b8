//! Paths as Aider names them.

use std::path::{Component, Path, PathBuf};

/// `os.path.relpath(path, root)` for absolute paths: `..` where `path` is outside `root`.
pub(crate) fn rel_fname(root: &Path, path: &Path) -> String {
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
}
