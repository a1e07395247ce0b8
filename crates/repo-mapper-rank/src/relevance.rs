//! The default profile's departures from the SPEC's ranking ([`Relevance`]): each one
//! measured alone on real history by `cargo xtask relevance` (`docs/relevance.md`).
//!
//! The message of the task is read as a bag of code words ([`query_terms`]); each file is
//! scored by how well its text and path match them, BM25 (`full_text_scores`; the older
//! `lexical_scores` reads only the path and the names it defines); the score orders the
//! files together with the graph, or multiplies their definitions' ranks. The files that
//! use what the chat files define are lifted the same
//! way (`caller_scores`); test, documentation and example files are down-weighted unless
//! the conversation names them; a file's lesser definitions make room for other files.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use rayon::prelude::*;

use repo_mapper_tags::{Terms, code_words, is_stop_word, term_hash, word_parts};

use crate::FileTags;
use crate::index::TagIndex;
use repo_mapper_tags::fxhash::{FxBuildHasher, FxHasher};

/// How far the ranking departs from the SPEC's, and where. [`Relevance::SPEC`] departs
/// nowhere (the `spec` and `aider` profiles); [`Relevance::MEASURED`] is what measured
/// best (the `default` profile).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Relevance {
    /// A file's definition ranks are multiplied by `1 + lexical_boost × score` (its
    /// lexical score relative to the best); 0: no change.
    pub lexical_boost: f64,
    /// Weight of a path word relative to a defined name's word in the lexical score.
    pub path_weight: f64,
    /// Factor on the definition ranks of test, documentation and example files that are
    /// not mentioned; 1: no change.
    pub test_factor: f64,
    /// behaviour.md §8.2: important files head the list. Off, they are listed where they rank.
    pub important_first: bool,
    /// A file's definition ranks are multiplied by `1 + caller_boost × caller score`: its
    /// use of the names the chat files define (each counted by how specific it is: the
    /// inverse of its definers, times the log-inverse frequency of its users), relative
    /// to the file that uses them most.
    pub caller_boost: f64,
    /// A file's definitions after its best are multiplied by `breadth`, `breadth²`, … in
    /// rank order, so that a budget shows more files; 1: no change. Not applied while files
    /// are ordered by fusion ([`Relevance::fusion_k`]): that order already spreads the map.
    pub breadth: f64,
    /// The lexical score reads every word of each file's text (Okapi BM25 over the
    /// file's [`Terms`] and its path), not only its path and
    /// the names it defines.
    pub full_text: bool,
    /// How the lexical score meets the graph's. 0: a file's definition ranks are
    /// multiplied by `1 + lexical_boost × score`. Above 0: files are ordered by
    /// reciprocal-rank fusion, `1 / (k + graph place) + fusion_weight / (k + lexical
    /// place)`, `k` being this value (a file's definitions keep their order within it).
    pub fusion_k: f64,
    /// The lexical order's weight in reciprocal-rank fusion ([`Relevance::fusion_k`]).
    pub fusion_weight: f64,
    /// The weight in reciprocal-rank fusion ([`Relevance::fusion_k`]) of the order by
    /// co-change: how often each file changed in the same commits as the chat files
    /// ([`RankRequest::co_change`](crate::RankRequest::co_change)); 0: not read.
    pub co_change_weight: f64,
    /// The weight in reciprocal-rank fusion ([`Relevance::fusion_k`]) of the order by
    /// what the request's [`Clues`](crate::Clues) point at (paths, modules, the definers
    /// of named symbols); 0: not read.
    pub clue_weight: f64,
    /// A query term's weight in the full-text score is its count in the message
    /// ([`RankRequest::query_counts`](crate::RankRequest::query_counts)) raised to this
    /// power; 0: each once.
    pub term_counts: f64,
    /// When files are ordered by fusion, a definition ranks at its file's fused score
    /// times (its rank / the file's best)^`fused_within`: below 1 a matching file's
    /// further definitions come before other files' best; 1: their ratios as ranked.
    pub fused_within: f64,
    /// A definition whose name holds words of the message has its rank multiplied by
    /// `1 + def_boost × words matched`, so a matching file shows the definitions the
    /// message is about; 0: no change.
    pub def_boost: f64,
    /// When files are ordered by fusion, each definition of the first `body_files` files
    /// ranks at least at its file's fused score × `body_boost` × its text's share (from
    /// its line to the next definition's, scored against the message, over the file's
    /// best-matching definition's), so a matching file shows the definitions whose code
    /// is about the message, not only its most-referenced ones. Read only with
    /// [`RankRequest::sources`](crate::RankRequest::sources); 0: no change.
    pub body_boost: f64,
    /// How many of the fused order's first files [`Relevance::body_boost`] reads.
    pub body_files: usize,
    /// When files are ordered by fusion, the weight of a further order: the first
    /// `passage_files` files of the fused order by their best definition's text score
    /// (the regions of [`Relevance::body_boost`]); 0: not read.
    pub passage_weight: f64,
    /// How many of the fused order's first files [`Relevance::passage_weight`] reads.
    pub passage_files: usize,
    /// The fewest distinct words a message needs for [`Relevance::passage_weight`] to
    /// be read: a commit subject's few words match a function's text by chance, an
    /// issue's many do not.
    pub passage_min_terms: usize,
    /// The message is read without what an issue template adds to it
    /// ([`without_templates`](crate::without_templates): HTML comments, environment and
    /// version sections).
    pub without_templates: bool,
    /// When nothing steers the ranking (no message words, chat files, mentions or
    /// anchors), a definition's rank is divided by the number of files that define its
    /// name: a name many files define (`is_empty`, `iter`, `new`) says little about the
    /// file it is in.
    pub specific_unsteered: bool,
    /// A definition is shown by its signature, not with grep-ast's header blocks (the
    /// first lines of its class's or its own body); the render crate's
    /// `Headers::Signatures`. Not a ranking setting: it is here to be measured with them.
    pub signatures: bool,
}

impl Relevance {
    /// The SPEC's ranking, exactly.
    pub const SPEC: Relevance = Relevance {
        lexical_boost: 0.0,
        path_weight: 0.0,
        test_factor: 1.0,
        important_first: true,
        caller_boost: 0.0,
        breadth: 1.0,
        full_text: false,
        fusion_k: 0.0,
        fusion_weight: 1.0,
        co_change_weight: 0.0,
        clue_weight: 0.0,
        term_counts: 0.0,
        fused_within: 1.0,
        def_boost: 0.0,
        body_boost: 0.0,
        body_files: 0,
        passage_weight: 0.0,
        passage_files: 0,
        passage_min_terms: 0,
        without_templates: false,
        specific_unsteered: false,
        signatures: false,
    };

    /// What measured best on `cargo xtask relevance` (`docs/relevance.md`).
    pub const MEASURED: Relevance = Relevance {
        lexical_boost: 20.0,
        path_weight: 5.0,
        test_factor: 0.25,
        important_first: false,
        caller_boost: 10.0,
        breadth: 0.3,
        full_text: true,
        fusion_k: 10.0,
        fusion_weight: 4.0,
        co_change_weight: 2.0,
        clue_weight: 0.5,
        term_counts: 1.0,
        fused_within: 0.25,
        def_boost: 30.0,
        body_boost: 0.9,
        body_files: 10,
        passage_weight: 2.0,
        passage_files: 30,
        passage_min_terms: 20,
        without_templates: true,
        specific_unsteered: true,
        signatures: true,
    };

    /// Whether the caller score is read.
    pub(crate) fn callers(&self) -> bool {
        self.caller_boost != 0.0
    }

    /// Whether a request's [`Clues`](crate::Clues) are read.
    pub fn reads_clues(&self) -> bool {
        self.clue_weight > 0.0
    }

    /// Whether the lexical score is read (whether a request's `query` matters).
    pub fn lexical(&self) -> bool {
        self.lexical_boost != 0.0
    }
}

impl Default for Relevance {
    /// [`Relevance::SPEC`].
    fn default() -> Self {
        Relevance::SPEC
    }
}

/// The terms of a message: its code words ([`code_words`]: words split at `_`, `-`, case
/// changes and digits, lowercased, plural `s` dropped, and each identifier of several
/// parts also whole), stop words and words under three letters left out; sorted, each
/// once.
///
/// ```
/// use repo_mapper_rank::query_terms;
///
/// let terms = query_terms("Fix `TableRow.add_cell` padding in tables");
/// assert_eq!(terms, ["add_cell", "cell", "padding", "row", "table", "tablerow"]);
/// ```
pub fn query_terms(message: &str) -> Vec<String> {
    query_term_counts(message)
        .into_iter()
        .map(|(t, _)| t)
        .collect()
}

/// [`query_terms`], each with how often the message has it.
///
/// ```
/// use repo_mapper_rank::query_term_counts;
///
/// let counts = query_term_counts("table rows: a table of tables");
/// assert_eq!(counts, [("row".to_owned(), 1), ("table".to_owned(), 3)]);
/// ```
pub fn query_term_counts(message: &str) -> Vec<(String, u32)> {
    let mut terms = Vec::new();
    code_words(message, &mut |part| {
        if !is_stop_word(part) {
            terms.push(part.to_owned());
        }
    });
    terms.sort_unstable();
    let mut counts: Vec<(String, u32)> = Vec::new();
    for t in terms {
        match counts.last_mut() {
            Some((last, n)) if *last == t => *n += 1,
            _ => counts.push((t, 1)),
        }
    }
    counts
}

/// Per file, how well its path and defined names match `terms`, relative to the best
/// file (0–1; all 0 when nothing matches). BM25's saturation and inverse document
/// frequency, a path word counting `path_weight` defined names.
pub(crate) fn lexical_scores(
    files: &[FileTags<'_>],
    index: &TagIndex<'_>,
    terms: &[&str],
    path_weight: f64,
) -> Vec<f64> {
    let mut scores = vec![0.0; files.len()];
    if terms.is_empty() {
        return scores;
    }
    let term_of: HashMap<&str, usize> = terms.iter().enumerate().map(|(i, &t)| (t, i)).collect();
    // Keyed (file, term): per call, as many entries as a term's definers.
    let mut tf: HashMap<(u32, u32), f64, BuildHasherDefault<FxHasher>> = HashMap::default();
    let parts = index.part_index();
    for (t, term) in terms.iter().enumerate() {
        // By 64-bit hash: two parts sharing one (odds ~1e-8 among the Linux tree's
        // names) would make a name count for the other's term, never a failure.
        for id in parts.names_with(term) {
            for &d in index.definers(id) {
                *tf.entry((d, t as u32)).or_default() += 1.0;
            }
        }
    }
    for (fi, file) in files.iter().enumerate() {
        for t in matched_terms(file.rel_fname, &term_of) {
            *tf.entry((fi as u32, t as u32)).or_default() += path_weight;
        }
    }
    // Summed in (file, term) order: no score depends on the map's iteration order.
    let mut tf: Vec<((u32, u32), f64)> = tf.into_iter().collect();
    tf.sort_unstable_by_key(|&(key, _)| key);
    let mut df = vec![0usize; terms.len()];
    for &((_, t), _) in &tf {
        df[t as usize] += 1;
    }
    let n = files.len() as f64;
    let idf: Vec<f64> = df
        .iter()
        .map(|&d| (1.0 + (n - d as f64 + 0.5) / (d as f64 + 0.5)).ln())
        .collect();
    for &((f, t), count) in &tf {
        scores[f as usize] += idf[t as usize] * count / (count + 1.2);
    }
    let best = scores.iter().copied().fold(0.0, f64::max);
    if best > 0.0 {
        scores.iter_mut().for_each(|s| *s /= best);
    }
    scores
}

/// BM25's term-frequency saturation and length normalisation (Okapi's usual values).
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// Per file, Okapi BM25 of its text's code words ([`FileTags::terms`]) and its path's
/// (`path_words`, each file's path counted as [`Terms::of_text`] counts a text; each path
/// word counting `path_weight` words) against `terms`, relative to the best file (0–1;
/// all 0 when nothing matches).
pub(crate) fn full_text_scores(
    files: &[FileTags<'_>],
    path_words: &[Terms],
    terms: &[&str],
    counts: &[u32],
    power: f64,
    path_weight: f64,
) -> Vec<f64> {
    // A term's weight: its count in the message raised to `power` (1 when not given).
    let weights: Vec<f64> = (0..terms.len())
        .map(|t| counts.get(t).map_or(1.0, |&n| f64::from(n).powf(power)))
        .collect();
    let hashes: Vec<u32> = terms.iter().map(|t| term_hash(t)).collect();
    let q = hashes.len();
    // Per file, one row: its length, then one frequency per term.
    let mut rows = vec![0.0; files.len() * (q + 1)];
    rows.par_chunks_mut(q + 1)
        .zip(files)
        .zip(path_words)
        .with_min_len(256)
        .for_each(|((row, f), words)| {
            row[0] = f.terms.words() as f64 + path_weight * words.words() as f64;
            for (tf, &h) in row[1..].iter_mut().zip(&hashes) {
                *tf = f64::from(f.terms.count(h)) + path_weight * f64::from(words.count(h));
            }
        });
    let rows = || rows.chunks_exact(q + 1).map(|row| (row[0], &row[1..]));
    let n = files.len() as f64;
    let avg = rows().map(|(len, _)| len).sum::<f64>() / n.max(1.0);
    let idf: Vec<f64> = (0..q)
        .map(|t| {
            let df = rows().filter(|(_, tf)| tf[t] > 0.0).count() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    let mut scores: Vec<f64> = rows()
        .map(|(len, tf)| {
            let norm = BM25_K1 * (1.0 - BM25_B + BM25_B * len / avg.max(1e-9));
            tf.iter()
                .zip(&idf)
                .enumerate()
                .map(|(t, (&f, idf))| weights[t] * idf * f * (BM25_K1 + 1.0) / (f + norm))
                .sum()
        })
        .collect();
    let best = scores.iter().copied().fold(0.0, f64::max);
    if best > 0.0 {
        scores.iter_mut().for_each(|s| *s /= best);
    }
    scores
}

/// Per file, how much it uses what the chat files define, relative to the file that uses
/// it most (0–1): each identifier a chat file defines counts for every other file that
/// references it, weighted by how specific the name is (the inverse of its number of
/// definers, times the inverse document frequency of its referencers).
pub(crate) fn caller_scores(index: &TagIndex<'_>, chat: &[bool]) -> Vec<f64> {
    let mut scores = vec![0.0; chat.len()];
    let n = chat.len() as f64;
    for c in (0..chat.len()).filter(|&c| chat[c]) {
        for ident in index.defined_idents(c as u32) {
            let users = index.referencers(ident);
            let definers = index.definers(ident).len().max(1) as f64;
            let idf = (1.0 + n / (users.len() as f64 + 1.0)).ln();
            for &(f, _) in users.iter().filter(|(f, _)| !chat[*f as usize]) {
                scores[f as usize] += idf / definers;
            }
        }
    }
    let best = scores.iter().copied().fold(0.0, f64::max);
    if best > 0.0 {
        scores.iter_mut().for_each(|s| *s /= best);
    }
    scores
}

/// Per identifier whose name holds some of `terms` as word parts (compared by hash, as
/// [`PartIndex`] compares them): how many. A kept index looks the terms up in its
/// [`PartIndex`]; an index for one ranking splits each name once instead, on every
/// thread, which costs a fraction of building the part index (no list of every part,
/// no sort).
pub(crate) fn names_holding(
    index: &TagIndex<'_>,
    terms: &[&str],
) -> HashMap<u32, f64, FxBuildHasher> {
    let mut hits: HashMap<u32, f64, FxBuildHasher> = HashMap::default();
    if index.is_kept() {
        let parts = index.part_index();
        for term in terms {
            for id in parts.names_with(term) {
                *hits.entry(id).or_default() += 1.0;
            }
        }
        return hits;
    }
    let wanted: Vec<u64> = terms.iter().map(|t| part_hash(t)).collect();
    let found: Vec<(u32, f64)> = (index.names.par_iter().enumerate())
        .with_min_len(4096)
        .map_init(Vec::new, |hashes, (id, name)| {
            hashes.clear();
            word_parts(name, &mut |p| hashes.push(part_hash(p)));
            hashes.sort_unstable();
            hashes.dedup();
            let held = wanted.iter().filter(|w| hashes.binary_search(w).is_ok());
            (id as u32, held.count() as f64)
        })
        .filter(|&(_, n)| n > 0.0)
        .collect();
    hits.extend(found);
    hits
}

/// Every (word-part hash, identifier) of a request's names, sorted: the identifiers whose
/// names hold a given part, without splitting every name for every message. Kept with a
/// kept index, so a warm session builds it once.
#[derive(Debug)]
pub(crate) struct PartIndex(Vec<(u64, u32)>);

impl PartIndex {
    /// Indexes `names` (by id), in parallel.
    pub(crate) fn build(names: &[&str]) -> PartIndex {
        let mut pairs: Vec<(u64, u32)> = names
            .par_iter()
            .enumerate()
            .flat_map_iter(|(id, name)| {
                let mut hashes = Vec::new();
                word_parts(name, &mut |p| hashes.push(part_hash(p)));
                hashes.sort_unstable();
                hashes.dedup();
                hashes.into_iter().map(move |h| (h, id as u32))
            })
            .collect();
        pairs.par_sort_unstable();
        PartIndex(pairs)
    }

    /// The identifiers whose names hold `part`, or a part of the same hash, ascending.
    pub(crate) fn names_with(&self, part: &str) -> impl Iterator<Item = u32> + '_ {
        let h = part_hash(part);
        let lo = self.0.partition_point(|&(x, _)| x < h);
        let hi = self.0.partition_point(|&(x, _)| x <= h);
        self.0[lo..hi].iter().map(|&(_, id)| id)
    }
}

/// FNV-1a over the part's bytes: stable across runs and platforms.
fn part_hash(part: &str) -> u64 {
    repo_mapper_tags::fnv1a(repo_mapper_tags::FNV_OFFSET, part.bytes())
}

/// The terms `text` contains, each once.
fn matched_terms(text: &str, term_of: &HashMap<&str, usize>) -> Vec<usize> {
    let mut found = Vec::new();
    word_parts(text, &mut |part| {
        if let Some(&t) = term_of.get(part) {
            found.push(t);
        }
    });
    found.sort_unstable();
    found.dedup();
    found
}

/// Directory names whose files are tests, documentation, examples or benchmarks.
const AUXILIARY_DIRS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "__tests__",
    "spec",
    "specs",
    "testdata",
    "fixtures",
    "e2e",
    "bench",
    "benches",
    "benchmark",
    "benchmarks",
    "doc",
    "docs",
    "example",
    "examples",
    // Vendored code: another project's, copied in.
    "vendor",
    "vendored",
    "third_party",
    "third-party",
    "thirdparty",
    "extern",
    "node_modules",
    "bower_components",
];

/// Whether `path` looks like a test, documentation, example or benchmark file, or a
/// vendored one (in a `vendor`, `third_party`, `extern`, `node_modules` … directory, a
/// minified `.min.` file, a copy of jQuery).
///
/// ```
/// use repo_mapper_rank::is_auxiliary;
///
/// assert!(is_auxiliary("tests/test_shop.py") && is_auxiliary("shop/cart_test.go"));
/// assert!(!is_auxiliary("shop/cart.go"));
/// ```
pub fn is_auxiliary(path: &str) -> bool {
    let (dirs, name) = path.rsplit_once('/').unwrap_or(("", path));
    let aux_dir = |d: &str| AUXILIARY_DIRS.iter().any(|a| d.eq_ignore_ascii_case(a));
    if dirs.split('/').any(aux_dir) {
        return true;
    }
    let stem = name
        .as_bytes()
        .split(|&b| b == b'.')
        .next()
        .unwrap_or_default();
    let starts =
        |p: &str| stem.len() >= p.len() && stem[..p.len()].eq_ignore_ascii_case(p.as_bytes());
    let ends = |p: &str| {
        stem.len() >= p.len() && stem[stem.len() - p.len()..].eq_ignore_ascii_case(p.as_bytes())
    };
    let holds = |p: &str| {
        name.as_bytes()
            .windows(p.len())
            .any(|w| w.eq_ignore_ascii_case(p.as_bytes()))
    };
    starts("test_")
        || ends("_test")
        || ends("_tests")
        || ends("_spec")
        || stem.eq_ignore_ascii_case(b"conftest")
        || holds(".test.")
        || holds(".spec.")
        || holds(".min.")
        || stem.eq_ignore_ascii_case(b"jquery")
        || starts("jquery-")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_case_digits_and_separators() {
        assert_eq!(query_terms("the The fix a an"), Vec::<String>::new());
        assert_eq!(query_terms("class classes"), ["class"]);
        assert_eq!(
            query_terms("entries entry status tables"),
            ["entry", "status", "table"]
        );
    }

    #[test]
    fn auxiliary_files_by_directory_and_name_in_any_case() {
        for path in [
            "Tests/shop.py",
            "a/Docs/x.py",
            "CART_TEST.go",
            "app.Test.js",
            "conftest.py",
            "pkg/extern/configobj/validate.py",
            "web/static/app.min.js",
            "sphinx/themes/basic/static/jquery-3.5.1.js",
            "third_party/zlib/inflate.c",
        ] {
            assert!(is_auxiliary(path), "{path}");
        }
        for path in [
            "lib/testing.py",
            "src/contest.py",
            "attest.rs",
            "spectacle/x.py",
            "src/vendors.py",
            "lib/external.rs",
        ] {
            assert!(!is_auxiliary(path), "{path}");
        }
    }
}
