//! Walks of the roots outlines were asked about, kept while they hold: where an import's
//! rule searches the repository's file list by suffix (Java and Kotlin, C#, Ruby, Swift,
//! an include not found beside its file), an `outline` call needs a walk, and a kept one
//! that is still current ([`Listing::is_current`]: a `stat` per directory) costs a
//! fraction of walking the tree again.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use repo_mapper::Listing;

/// Roots whose walks are kept: the most recently outlined.
const KEPT: usize = 4;

/// The kept walks, most recently used first.
#[derive(Debug, Default)]
pub(crate) struct Listings {
    kept: Mutex<VecDeque<(PathBuf, Arc<Listing>)>>,
}

impl Listings {
    /// A walk of `root` that holds now: the kept one if it is current, else a new one
    /// (kept in its place). The lock is held only to look up and to keep, never while
    /// walking or checking.
    pub(crate) fn of(&self, root: &Path) -> Arc<Listing> {
        let listing = self
            .kept(root)
            .filter(|l| l.is_current())
            .unwrap_or_else(|| Arc::new(Listing::walk(root, None)));
        self.keep(root, Arc::clone(&listing));
        listing
    }

    fn kept(&self, root: &Path) -> Option<Arc<Listing>> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.iter()
            .find(|(r, _)| r == root)
            .map(|(_, l)| Arc::clone(l))
    }

    fn keep(&self, root: &Path, listing: Arc<Listing>) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        kept.retain(|(r, _)| r != root);
        kept.push_front((root.to_owned(), listing));
        kept.truncate(KEPT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_walk_serves_until_the_tree_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.py"), "import b\n").unwrap();
        // Settled: a walk within the racy window of a change is never current.
        std::thread::sleep(repo_mapper::RACY_WINDOW + std::time::Duration::from_millis(50));
        let listings = Listings::default();
        let first = listings.of(&root);
        assert!(
            Arc::ptr_eq(&first, &listings.of(&root)),
            "the kept walk serves"
        );
        std::fs::create_dir(root.join("pkg")).unwrap();
        std::fs::write(root.join("pkg/b.py"), "").unwrap();
        let after = listings.of(&root);
        assert!(!Arc::ptr_eq(&first, &after));
        assert_eq!(after.files.len(), 2, "{:?}", after.files);
    }

    /// The outline of `App.java` by `server`, its imports resolved against the walk the
    /// server keeps for `root`.
    fn outline(server: &crate::RepoMapServer, root: &Path) -> serde_json::Value {
        let params = crate::OutlineParams {
            project_root: root.display().to_string(),
            paths: vec!["src/main/java/com/acme/App.java".into()],
            ..Default::default()
        };
        server.outline_json(&params).unwrap()
    }

    fn server(root: &Path) -> crate::RepoMapServer {
        let options = crate::ServerOptions {
            roots: vec![root.to_owned()],
            ..Default::default()
        };
        crate::RepoMapServer::new(options)
    }

    /// A warm server's outline equals a fresh server's after every kind of change to the
    /// files an import resolves to: added, renamed, deleted, and added with the
    /// directory's mtime put back (each change made after the kept walk had settled, so
    /// that only the check can tell).
    #[test]
    fn a_warm_outline_equals_a_fresh_one_after_every_kind_of_change() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let java = root.join("src/main/java/com/acme");
        std::fs::create_dir_all(&java).unwrap();
        let imports = "package com.acme;\nimport com.acme.Util;\nimport com.acme.Help;\n";
        std::fs::write(java.join("App.java"), format!("{imports}class App {{}}\n")).unwrap();
        let warm = server(&root);
        let util = java.join("Util.java");
        let changes: [(&str, &dyn Fn()); 4] = [
            ("add", &|| {
                std::fs::write(&util, "package com.acme;\n").unwrap()
            }),
            ("rename", &|| {
                std::fs::rename(&util, java.join("Help.java")).unwrap()
            }),
            ("delete", &|| {
                std::fs::remove_file(java.join("Help.java")).unwrap()
            }),
            ("add, mtime put back", &|| {
                let before = std::fs::metadata(&java).unwrap().modified().unwrap();
                std::fs::write(&util, "package com.acme;\n").unwrap();
                std::fs::File::open(&java)
                    .unwrap()
                    .set_modified(before)
                    .unwrap();
            }),
        ];
        for (what, change) in changes {
            std::thread::sleep(repo_mapper::RACY_WINDOW + std::time::Duration::from_millis(50));
            let before = outline(&warm, &root);
            change();
            let after = outline(&warm, &root);
            assert_ne!(after, before, "{what}: the imports resolve elsewhere");
            assert_eq!(after, outline(&server(&root), &root), "{what}");
        }
    }

    #[test]
    fn walks_of_the_most_recent_roots_are_kept() {
        let dirs: Vec<_> = (0..=KEPT).map(|_| tempfile::tempdir().unwrap()).collect();
        let listings = Listings::default();
        for dir in &dirs {
            listings.of(dir.path());
        }
        assert!(
            listings.kept(dirs[0].path()).is_none(),
            "the least recent is dropped"
        );
        assert!(dirs[1..].iter().all(|d| listings.kept(d.path()).is_some()));
    }
}
