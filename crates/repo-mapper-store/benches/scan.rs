//! Store benchmark: the figures of the store's performance targets, measured in one run.
//!
//! ```text
//! cargo xtask bench                      # fetches the Django sdist from PyPI, runs this
//! REPO_MAPPER_BENCH_CORPUS=/path/to/tree cargo bench -p repo-mapper-store --bench scan
//! ```
//!
//! Without a corpus it builds a synthetic 3,000-file tree from `fixtures/languages/`.
//! Prints, as medians over several runs:
//! * cold extraction alone (no store) vs a cold scan writing a fresh sled store: the store's
//!   overhead;
//! * a warm scan with every file cached: stat + lookup + decode, no parsing;
//! * the store's size on disk against the source bytes it covers.

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use repo_mapper_store::{CacheLocation, OpenOptions, ScanOptions, open_store, scan};
use repo_mapper_tags::{Dialect, Language, extract_files};

fn main() {
    // `cargo bench` passes `--bench`; a plain `cargo test --benches` passes nothing and
    // must stay quick.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let (root, _guard) = corpus();
    let files = list(&root);
    let source_bytes: u64 = files
        .iter()
        .map(|(f, _)| f.metadata().map_or(0, |m| m.len()))
        .sum();
    let threads = rayon::current_num_threads();
    println!(
        "corpus: {} ({} files with a supported language, {:.1} MiB), {threads} threads",
        root.display(),
        files.len(),
        mib(source_bytes)
    );

    let runs = 5;
    let extract_only = median(runs, || {
        let t = Instant::now();
        std::hint::black_box(extract_files(&files, Dialect::Default));
        t.elapsed()
    });

    let cache_parent = tempfile::tempdir().expect("temp dir");
    let mut size_on_disk = 0;
    let cold_scan = median(runs, || {
        let dir = cache_parent.path().join("cache");
        let _ = std::fs::remove_dir_all(&dir);
        let t = Instant::now();
        let opened = open_store(&CacheLocation::Dir(dir.clone()), &OpenOptions::default());
        assert!(opened.fallback.is_none());
        let out = scan(&*opened.store, &files, &ScanOptions::default(), &|_| {});
        drop(opened);
        let e = t.elapsed();
        assert_eq!(out.stats.misses, files.len() - out.stats.errors);
        size_on_disk = dir_size(&dir);
        e
    });

    let dir = cache_parent.path().join("cache");
    let (warm_open, entry_bytes, warm_scan) = measure_warm(&dir, &files, runs);

    println!(
        "encoded entries:              {:>9.1} MiB  ({:.1}% of the source bytes, keys included)",
        mib(entry_bytes as u64),
        entry_bytes as f64 / source_bytes as f64 * 100.0
    );
    println!("cold, extraction only:        {:>9.1} ms", ms(extract_only));
    println!(
        "cold, scan into a new store:  {:>9.1} ms  ({:+.1}% over extraction)",
        ms(cold_scan),
        (ms(cold_scan) / ms(extract_only) - 1.0) * 100.0
    );
    println!("warm, open the store:         {:>9.1} ms", ms(warm_open));
    println!(
        "warm, scan (all cached):      {:>9.1} ms  ({:.0}x faster than cold extraction)",
        ms(warm_scan),
        ms(extract_only) / ms(warm_scan)
    );
    println!(
        "store on disk:                {:>9.1} MiB  ({:.1}% of the source bytes)",
        mib(size_on_disk),
        size_on_disk as f64 / source_bytes as f64 * 100.0,
    );
}

/// The corpus root, and a guard keeping a synthetic corpus alive.
fn corpus() -> (PathBuf, Option<tempfile::TempDir>) {
    if let Some(dir) = std::env::var_os("REPO_MAPPER_BENCH_CORPUS") {
        return (PathBuf::from(dir), None);
    }
    let tmp = tempfile::tempdir().expect("temp dir");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/languages");
    let samples: Vec<PathBuf> = std::fs::read_dir(&fixtures)
        .expect("fixtures")
        .flat_map(|d| std::fs::read_dir(d.unwrap().path()).unwrap())
        .map(|f| f.unwrap().path())
        .collect();
    for i in 0..3000 {
        let src = &samples[i % samples.len()];
        let dst = tmp.path().join(format!("d{}", i / 100)).join(format!(
            "f{i}.{}",
            src.extension().unwrap_or_default().to_string_lossy()
        ));
        std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
        std::fs::copy(src, &dst).unwrap();
    }
    (tmp.path().to_path_buf(), Some(tmp))
}

/// Every file under `root` with a supported language, sorted, as `(absolute, relative)`.
fn list(root: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() && Language::for_path(&path, Dialect::Default).is_some() {
                let rel = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                out.push((path, rel));
            }
        }
    }
    out.sort();
    out
}

/// The warm figures over the store in `dir`: opening it, its encoded entries' bytes (keys
/// included), and a scan that finds every file cached.
fn measure_warm(
    dir: &Path,
    files: &[(PathBuf, String)],
    runs: usize,
) -> (Duration, usize, Duration) {
    let location = CacheLocation::Dir(dir.to_path_buf());
    let warm_open = median(runs, || {
        let t = Instant::now();
        drop(open_store(&location, &OpenOptions::default()));
        t.elapsed()
    });
    let opened = open_store(&location, &OpenOptions::default());
    let keys = opened.store.keys();
    let entry_bytes: usize = keys
        .iter()
        .map(|k| k.len() + opened.store.get(k).map_or(0, |v| v.len()))
        .sum();
    let warm_scan = median(runs * 2, || {
        let t = Instant::now();
        let out = scan(&*opened.store, files, &ScanOptions::default(), &|_| {});
        let e = t.elapsed();
        assert_eq!(out.stats.hits, files.len() - out.stats.errors);
        e
    });
    (warm_open, entry_bytes, warm_scan)
}

fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(e.path()),
                Ok(_) => total += e.metadata().map_or(0, |m| m.len()),
                Err(_) => {}
            }
        }
    }
    total
}

fn median(runs: usize, mut f: impl FnMut() -> Duration) -> Duration {
    let mut v: Vec<Duration> = (0..runs).map(|_| f()).collect();
    v.sort();
    v[runs / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(b: u64) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}
