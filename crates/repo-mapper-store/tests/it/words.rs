//! Issue 24: the code words are kept apart from the tags, by content, in one file that is
//! replaced whole; a lost or damaged word file costs reading the files again, never a
//! parse and never a wrong word.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use repo_mapper_store::{
    CacheLocation, OpenOptions, ScanOptions, open_store, scan, store_dir_name,
};
use repo_mapper_tags::{Dialect, Terms, term_hash};

use crate::common::set_mtime;

struct Repo {
    dir: tempfile::TempDir,
    files: Vec<(PathBuf, String)>,
}

impl Repo {
    /// A repository of two Python files, their mtimes past the racy window.
    fn new() -> Repo {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for (rel, text) in [
            (
                "a.py",
                "# keeps the session cookie\ndef redirect():\n    pass\n",
            ),
            ("b.py", "def other():\n    redirect()  # follows it\n"),
        ] {
            let p = dir.path().join(rel);
            fs::write(&p, text).unwrap();
            set_mtime(&p, SystemTime::now() - Duration::from_secs(60));
            files.push((p, rel.to_owned()));
        }
        Repo { dir, files }
    }

    fn cache(&self) -> CacheLocation {
        CacheLocation::Dir(self.dir.path().join(".repo-mapper"))
    }

    fn word_file(&self) -> PathBuf {
        let store = self.dir.path().join(".repo-mapper").join(store_dir_name());
        store.join("words")
    }

    /// Scans with an on-disk store: (files parsed, every file's words).
    fn scan(&self, dialect: Dialect) -> (usize, Vec<Terms>) {
        let opened = open_store(
            &self.cache(),
            &OpenOptions::waiting(Duration::from_millis(100), Duration::from_secs(5)),
        );
        assert!(opened.fallback.is_none());
        let opts = ScanOptions {
            dialect,
            ..ScanOptions::default()
        };
        let out = scan(&*opened.store, &self.files, &opts, &|_| {});
        let terms = out.tags.into_iter().map(|t| t.terms).collect();
        (out.stats.misses, terms)
    }
}

fn modified(p: &Path) -> SystemTime {
    fs::metadata(p).unwrap().modified().unwrap()
}

#[test]
fn words_come_back_from_their_own_file() {
    let repo = Repo::new();
    let (parsed, cold) = repo.scan(Dialect::Default);
    assert_eq!(parsed, 2);
    assert_eq!(cold[0].count(term_hash("cookie")), 1);
    assert_eq!(cold[1].count(term_hash("redirect")), 1);
    assert!(repo.word_file().is_file());
    let written = modified(&repo.word_file());
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(repo.scan(Dialect::Default), (0, cold));
    assert_eq!(
        modified(&repo.word_file()),
        written,
        "no new words: the file is not rewritten"
    );
}

#[test]
fn a_lost_or_damaged_word_file_is_read_again_without_parsing() {
    let repo = Repo::new();
    let (_, cold) = repo.scan(Dialect::Default);
    let good = fs::read(repo.word_file()).unwrap();
    let mut damaged = good.clone();
    damaged[20] ^= 1;
    for (what, bytes) in [("damaged", Some(damaged)), ("lost", None)] {
        match &bytes {
            Some(bytes) => fs::write(repo.word_file(), bytes).unwrap(),
            None => fs::remove_file(repo.word_file()).unwrap(),
        }
        assert_eq!(repo.scan(Dialect::Default), (0, cold.clone()), "{what}");
        assert_eq!(
            fs::read(repo.word_file()).unwrap(),
            good,
            "{what}: rewritten"
        );
    }
}

#[test]
fn aider_dialect_keeps_no_words() {
    let repo = Repo::new();
    let (parsed, terms) = repo.scan(Dialect::Aider);
    assert_eq!(parsed, 2);
    assert!(terms.iter().all(|t| *t == Terms::default()));
    assert!(!repo.word_file().exists());
    let (parsed, terms) = repo.scan(Dialect::Aider);
    assert_eq!(parsed, 0);
    assert!(terms.iter().all(|t| *t == Terms::default()));
}
