//! Each import of an outlined file sorted into the standard library, a third-party
//! dependency or the repository's own code (with the file it resolves to): issue 27, seed
//! 001's gate B. The syntax gives the module as written
//! ([`repo_mapper_tags::explore::imports`]); this module knows the repository: its files,
//! and the manifests between the importing file and the root.

mod manifests;
mod resolve;
mod stdlib;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use repo_mapper_tags::Language;
use repo_mapper_tags::explore::RawImport;

use manifests::Manifests;

use crate::walk::Listing;

/// Where an import comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ImportCategory {
    /// The language's standard library (or its platform's, for C headers and Swift SDKs).
    Stdlib,
    /// A dependency: neither the standard library nor a file of the repository.
    ThirdParty,
    /// The repository's own code.
    Local,
}

impl ImportCategory {
    /// `stdlib`, `third_party` or `local`.
    pub fn as_str(self) -> &'static str {
        match self {
            ImportCategory::Stdlib => "stdlib",
            ImportCategory::ThirdParty => "third_party",
            ImportCategory::Local => "local",
        }
    }
}

/// One import of an outlined file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Import {
    /// The module as written (`os.path`, `./util`, `github.com/a/b`, `stdio.h`).
    pub module: String,
    /// Its line, counted from 1.
    pub line: usize,
    /// Where it comes from.
    pub category: ImportCategory,
    /// For a local import, the repository file (or directory) it resolves to, when found.
    pub path: Option<String>,
    /// For a third-party import, the manifest that declares it (relative to the root),
    /// when one does.
    pub declared_in: Option<String>,
}

/// Sorts imports of files under one root; keeps what it read (the repository's file list,
/// manifests) for the next file.
pub(crate) struct Resolver<'l> {
    root: PathBuf,
    /// Where a walk of the root comes from, if the caller keeps one: indexed instead of
    /// walking again.
    listed: Option<&'l dyn Fn() -> Arc<Listing>>,
    files: Option<FileIndex>,
    manifests: HashMap<PathBuf, Manifests>,
}

/// The repository's files and directories by last name, for suffix lookups that cost a
/// few candidates, not the whole list.
struct FileIndex {
    /// Files (relative, `/`-separated), sorted, by their last name.
    files: HashMap<String, Vec<String>>,
    /// Directories holding files, by their last name, in the files' order.
    dirs: HashMap<String, Vec<String>>,
}

impl FileIndex {
    fn new(mut paths: Vec<String>) -> FileIndex {
        paths.sort_unstable();
        let mut files: HashMap<String, Vec<String>> = HashMap::new();
        let mut dirs: HashMap<String, Vec<String>> = HashMap::new();
        let mut seen_dirs = std::collections::HashSet::new();
        for path in paths {
            let mut dir = path.as_str();
            while let Some((parent, _)) = dir.rsplit_once('/') {
                if !seen_dirs.insert(parent.to_owned()) {
                    break;
                }
                let name = parent.rsplit('/').next().unwrap_or(parent);
                dirs.entry(name.to_owned())
                    .or_default()
                    .push(parent.to_owned());
                dir = parent;
            }
            let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
            files.entry(name).or_default().push(path);
        }
        FileIndex { files, dirs }
    }

    /// The first file whose path is `tail` or ends with `/tail`.
    fn file_ending(&self, tail: &str) -> Option<&str> {
        first_ending(&self.files, tail)
    }

    /// The first directory whose path is `tail` or ends with `/tail`.
    fn dir_ending(&self, tail: &str) -> Option<&str> {
        first_ending(&self.dirs, tail)
    }
}

/// The first of the paths filed under `tail`'s last name that is `tail` or ends with
/// `/tail`.
fn first_ending<'a>(by_name: &'a HashMap<String, Vec<String>>, tail: &str) -> Option<&'a str> {
    let name = tail.rsplit('/').next()?;
    let candidates = by_name.get(name)?;
    candidates
        .iter()
        .map(String::as_str)
        .find(|p| ends_with_path(p, tail))
}

/// Whether `path` is `tail` or ends with `/tail`.
fn ends_with_path(path: &str, tail: &str) -> bool {
    path == tail
        || path
            .strip_suffix(tail)
            .is_some_and(|head| head.ends_with('/'))
}

impl<'l> Resolver<'l> {
    /// A resolver for the canonical root `root`.
    pub(crate) fn new(root: &Path) -> Resolver<'l> {
        Resolver {
            root: root.to_path_buf(),
            listed: None,
            files: None,
            manifests: HashMap::new(),
        }
    }

    /// A resolver for `root` whose file index, if a rule needs one, is made from the walk
    /// of `root` that `listed` gives ([`Listing::walk`]).
    pub(crate) fn listed(root: &Path, listed: &'l dyn Fn() -> Arc<Listing>) -> Resolver<'l> {
        Resolver {
            listed: Some(listed),
            ..Resolver::new(root)
        }
    }

    /// The category of `import`, made in `file` (relative to the root) of language `lang`.
    pub(crate) fn classify(&mut self, file: &str, lang: Language, import: &RawImport) -> Import {
        let (category, path, declared_in) = resolve::classify(self, file, lang, import);
        Import {
            module: import.module.clone(),
            line: import.line,
            category,
            path,
            declared_in,
        }
    }

    /// The repository's files and directories, indexed (listed on first use, unless the
    /// resolver was given a listing).
    fn index(&mut self) -> &FileIndex {
        let (root, listed) = (&self.root, &self.listed);
        let relative = |files: &[PathBuf]| {
            let files = files.iter().map(|p| crate::paths::rel_fname(root, p));
            FileIndex::new(files.collect())
        };
        self.files.get_or_insert_with(|| match listed {
            Some(listed) => relative(&listed().files),
            None => relative(&crate::walk::list_files(root, None)),
        })
    }

    /// Whether the repository has a file at `rel`.
    fn exists(&self, rel: &str) -> bool {
        self.inside(rel).is_some_and(|p| p.is_file())
    }

    /// Whether the repository has a directory at `rel`.
    fn is_dir(&self, rel: &str) -> bool {
        self.inside(rel).is_some_and(|p| p.is_dir())
    }

    fn inside(&self, rel: &str) -> Option<PathBuf> {
        let path = Path::new(rel);
        (!rel.is_empty()).then(|| crate::guard::inside_root(&self.root, &self.root, path))?
    }

    /// The manifests of `dir` (relative to the root) and of each directory above it.
    fn manifests_above(&mut self, dir: &str) -> Vec<&Manifests> {
        let dirs: Vec<PathBuf> = Path::new(dir).ancestors().map(Path::to_path_buf).collect();
        for d in &dirs {
            if !self.manifests.contains_key(d) {
                let read = Manifests::read(&self.root, d);
                self.manifests.insert(d.clone(), read);
            }
        }
        dirs.iter().filter_map(|d| self.manifests.get(d)).collect()
    }
}

#[cfg(test)]
mod tests;
