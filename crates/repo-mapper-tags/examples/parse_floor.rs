//! The floor under a cold run: how long tree-sitter takes only to *parse* a repository's
//! files, against parsing and extracting their tags, on every core.
//!
//! `find REPO -type f | cargo run --release -p repo-mapper-tags --example parse_floor -- [MAX_BYTES [REPEAT]]`
//!
//! Reads paths from standard input, keeps those in a supported language and no larger than
//! `MAX_BYTES` (default 1 MiB, the default profile's `--max-filesize`), reads them all into
//! memory, then times three passes over them with rayon: parse only; parse and one
//! cursor walk that visits every node and does nothing else (what finding the nodes any
//! tag pattern starts at costs, however it is done); then full extraction (parse, tag
//! query or walk, identifier fallback). No pass touches the disk, so the first is what no
//! cold run can beat without parsing less, and the second what none can beat that finds
//! its tags in the trees. With `REPEAT`, each pass runs
//! that many times and the median is printed (`cargo xtask bench scale` times one edited
//! file so).

#![allow(clippy::print_stdout, clippy::print_stderr)] // prints what it measured

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;
use repo_mapper_tags::{Dialect, Language, Limits, extract_source_within, parse_within};

fn main() {
    let arg = |n: usize| std::env::args().nth(n).and_then(|s| s.parse::<u64>().ok());
    let max = arg(1).unwrap_or(1 << 20);
    let repeat = arg(2).unwrap_or(1).max(1);
    let files = load(max);
    let bytes: usize = files.iter().map(|(_, _, s)| s.len()).sum();
    let mb = bytes as f64 / 1e6;
    println!(
        "{} files, {mb:.1} MB, {} threads",
        files.len(),
        rayon::current_num_threads()
    );

    let (parse, trees) = median_of(repeat, || {
        files
            .par_iter()
            .filter(|(lang, _, src)| parse_within(*lang, src, &Limits::default()).is_some())
            .count()
    });
    println!(
        "parse only:      {parse:8.3} s wall ({trees} trees, {:.1} MB/s)",
        mb / parse
    );

    let (walked, nodes) = median_of(repeat, || {
        files
            .par_iter()
            .filter_map(|(lang, _, src)| parse_within(*lang, src, &Limits::default()))
            .map(|tree| visit_every_node(&tree))
            .sum::<u64>()
    });
    println!(
        "parse + one walk: {walked:7.3} s wall ({nodes} nodes, {:.1} MB/s)",
        mb / walked
    );

    let (all, tags) = median_of(repeat, || {
        files
            .par_iter()
            .map(|(lang, path, src)| {
                let rel: Arc<str> = Arc::from(path.to_string_lossy().as_ref());
                let fname: Arc<Path> = Arc::from(path.as_path());
                let limits = Limits::default();
                extract_source_within(*lang, src, rel, fname, Dialect::Default, &limits)
                    .tags
                    .len()
            })
            .sum::<usize>()
    });
    println!(
        "parse + extract: {all:8.3} s wall ({tags} tags, {:.1} MB/s)",
        mb / all
    );
    println!(
        "extraction beyond the parse: {:.0}%",
        100.0 * (all - parse) / all
    );
}

/// Visits every node of `tree` once with a cursor, as any tag extraction must to find
/// the nodes its patterns start at; how many there were.
fn visit_every_node(tree: &tree_sitter::Tree) -> u64 {
    let mut cursor = tree.walk();
    let mut nodes = 1;
    loop {
        if cursor.goto_first_child() {
            nodes += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                nodes += 1;
                break;
            }
            if !cursor.goto_parent() {
                return nodes;
            }
        }
    }
}

/// The median wall time, in seconds, of `repeat` calls of `pass`, and what it returned.
fn median_of<T>(repeat: u64, mut pass: impl FnMut() -> T) -> (f64, T) {
    let mut times = Vec::new();
    let mut out = pass_timed(&mut pass, &mut times);
    for _ in 1..repeat {
        out = pass_timed(&mut pass, &mut times);
    }
    times.sort_by(f64::total_cmp);
    (times[times.len() / 2], out)
}

fn pass_timed<T>(pass: &mut impl FnMut() -> T, times: &mut Vec<f64>) -> T {
    let t = Instant::now();
    let out = pass();
    times.push(t.elapsed().as_secs_f64());
    out
}

/// The supported files named on standard input, no larger than `max` bytes, read.
fn load(max: u64) -> Vec<(Language, PathBuf, String)> {
    let paths: Vec<PathBuf> = std::io::stdin()
        .lock()
        .lines()
        .map_while(Result::ok)
        .map(PathBuf::from)
        .collect();
    paths
        .into_par_iter()
        .filter_map(|path| {
            let lang = Language::for_path(&path, Dialect::Default)?;
            let meta = std::fs::metadata(&path).ok()?;
            if !meta.is_file() || meta.len() > max {
                return None;
            }
            let src = std::fs::read_to_string(&path).ok()?;
            Some((lang, path, src))
        })
        .collect()
}
