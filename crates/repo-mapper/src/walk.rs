//! Listing a repository's files (SPEC §17.3).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

/// Hidden directories that are walked anyway: `.github` holds the workflow files Aider
/// lists as important (SPEC §8).
const HIDDEN_DIRS_KEPT: &[&str] = &[".github"];

/// Every file under `root`, as absolute paths sorted by their path relative to `root`.
///
/// Follows `.gitignore` (also outside a git repository), `.ignore` and git's exclude files;
/// skips hidden directories except `.github`, and `skip_dir` (the tag cache) wherever it
/// is, even when it is a file; keeps hidden files (`.env.example` is an important file);
/// lists symlinks to regular files (the map reads only those whose target is inside the
/// root, see `RepoMap`), never follows symlinks to directories. Walks in parallel. Entries that cannot be
/// read are skipped with a debug message.
pub fn list_files(root: &Path, skip_dir: Option<&Path>) -> Vec<PathBuf> {
    let found = Mutex::new(Vec::new());
    let skip_dir = skip_dir.map(Path::to_path_buf);
    WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            if entry.depth() == 0 {
                return true;
            }
            // The cache location is never mapped, even when it is not a directory.
            if skip_dir.as_deref() == Some(entry.path()) {
                return false;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if !is_dir {
                return true;
            }
            let name = entry.file_name().to_string_lossy();
            !name.starts_with('.') || HIDDEN_DIRS_KEPT.contains(&name.as_ref())
        })
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |entry| {
                match entry {
                    Ok(entry) => {
                        let Some(ft) = entry.file_type() else {
                            return WalkState::Continue;
                        };
                        let keep = ft.is_file()
                            || (ft.is_symlink()
                                && std::fs::metadata(entry.path()).is_ok_and(|m| m.is_file()));
                        if keep {
                            found
                                .lock()
                                .unwrap_or_else(|e| e.into_inner())
                                .push(entry.into_path());
                        }
                    }
                    Err(err) => tracing::debug!("skipping during the walk: {err}"),
                }
                WalkState::Continue
            })
        });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
    // Every path starts with `root`, so comparing whole paths (component by component)
    // orders them as their relative paths, without stripping the prefix per comparison.
    files.sort_unstable();
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn rels(root: &Path, files: &[PathBuf]) -> Vec<String> {
        files
            .iter()
            .map(|f| f.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn walk_rules() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for f in [
            "b.py",
            "a/z.py",
            "a/b.rs",
            ".hidden/x.py",
            ".github/workflows/ci.yml",
            ".env.example",
            "ignored/x.py",
            "build.log",
            ".repo-mapper/tags",
            "cache-here/entry",
        ] {
            let p = r.join(f);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, "x").unwrap();
        }
        fs::write(r.join(".gitignore"), "ignored/\n*.log\n").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(r.join("b.py"), r.join("link.py")).unwrap();
            std::os::unix::fs::symlink(r.join("a"), r.join("linkdir")).unwrap();
        }
        fs::write(r.join("cache-file"), "not a directory").unwrap();
        let files = list_files(r, Some(&r.join("cache-here")));
        assert!(
            !rels(r, &list_files(r, Some(&r.join("cache-file"))))
                .contains(&"cache-file".to_owned())
        );
        let mut want = vec![
            ".env.example",
            ".github/workflows/ci.yml",
            ".gitignore",
            "a/b.rs",
            "a/z.py",
            "b.py",
            "cache-file",
        ];
        if cfg!(unix) {
            want.push("link.py");
        }
        assert_eq!(rels(r, &files), want);
    }
}
