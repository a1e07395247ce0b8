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

use repo_mapper_tags::Language;
use repo_mapper_tags::explore::RawImport;

use manifests::Manifests;

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
pub(crate) struct Resolver {
    root: PathBuf,
    files: Option<Vec<String>>,
    manifests: HashMap<PathBuf, Manifests>,
}

impl Resolver {
    /// A resolver for the canonical root `root`.
    pub(crate) fn new(root: &Path) -> Resolver {
        Resolver {
            root: root.to_path_buf(),
            files: None,
            manifests: HashMap::new(),
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

    /// The repository's files, relative to the root with `/`, sorted (listed on first use).
    fn files(&mut self) -> &[String] {
        let root = self.root.clone();
        self.files.get_or_insert_with(|| {
            let mut files: Vec<String> = crate::walk::list_files(&root, None)
                .iter()
                .map(|p| crate::paths::rel_fname(&root, p))
                .collect();
            files.sort_unstable();
            files
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
