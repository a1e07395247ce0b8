//! [`Relevance::body_boost`]: within the files the fused order puts first, the
//! definitions whose text holds the message's words come first.
//!
//! Tags carry the line of a definition's name, not its extent, so a definition's text
//! is taken to run from its line to the next definition's line in the same file (the
//! last one to the end of the file): a method's region is its own, a class's is its
//! header, docstring and attributes up to its first method. Each region is scored
//! against the message's terms by Okapi BM25 over the regions of the files read
//! (a term in every region, `self` or `return`, weighs little); each region's share is
//! its score over its file's best region's.
//!
//! A file's words are counted once per region into a [`BodyIndex`], which does not
//! depend on the message: a kept [`RankIndex`](crate::RankIndex) keeps it per file, so a
//! warm session splits a file's text once, not at every call.
//!
//! [`Relevance::body_boost`]: crate::Relevance::body_boost

use std::collections::HashMap;
use std::sync::Arc;

use rayon::prelude::*;
use repo_mapper_tags::fxhash::FxBuildHasher;
use repo_mapper_tags::{TagKind, code_words, term_hash};

use crate::FileTags;

/// Where the ranking reads the text of a request's file for [`Relevance::body_boost`]
/// (the facade reads it from disk). Called for a few files per ranking, from several
/// threads.
///
/// [`Relevance::body_boost`]: crate::Relevance::body_boost
pub trait Sources: Sync {
    /// The text of the request's file at `file` (its index in
    /// [`RankRequest::files`](crate::RankRequest::files)), with `\n` line ends as its
    /// tags' lines count them; `None` when it cannot be read.
    fn text(&self, file: usize) -> Option<String>;
}

impl std::fmt::Debug for dyn Sources + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sources")
    }
}

/// Okapi BM25's term-frequency saturation and length normalisation, as the file score's.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// A file's definition regions and the words of each, counted (every word
/// [`code_words`] yields, by its [`term_hash`]): what the ranking reads of a file's
/// text, whatever the message. Made by [`BodyIndex::of`].
#[derive(Debug)]
pub(crate) struct BodyIndex {
    /// The line each region starts at (a definition's), sorted.
    starts: Vec<i32>,
    /// Each region's length in words.
    lengths: Vec<f64>,
    /// Per word hash, the regions holding it and how often: `(region, count)`.
    words: HashMap<u32, Vec<(u32, u32)>, FxBuildHasher>,
}

impl BodyIndex {
    /// The regions of `file` (its definitions' lines) in `text`, its words counted.
    pub(crate) fn of(file: &FileTags<'_>, text: &str) -> BodyIndex {
        let mut starts: Vec<i32> = (file.tags.iter())
            .filter(|t| t.kind == TagKind::Def && t.line >= 1)
            .map(|t| t.line)
            .collect();
        starts.sort_unstable();
        starts.dedup();
        let mut lengths = vec![0.0; starts.len()];
        let mut words: HashMap<u32, Vec<(u32, u32)>, FxBuildHasher> = HashMap::default();
        let mut region = None;
        for (i, line) in text.split('\n').enumerate() {
            let number = i as i32 + 1;
            if starts.get(region.map_or(0, |r| r + 1)) == Some(&number) {
                region = Some(region.map_or(0, |r| r + 1));
            }
            let Some(r) = region else { continue };
            code_words(line, &mut |word| {
                lengths[r] += 1.0;
                let held = words.entry(term_hash(word)).or_default();
                match held.last_mut() {
                    Some((at, count)) if *at == r as u32 => *count += 1,
                    _ => held.push((r as u32, 1)),
                }
            });
        }
        BodyIndex {
            starts,
            lengths,
            words,
        }
    }

    /// The regions holding the word of hash `hash`, each with its count.
    fn holding(&self, hash: u32) -> &[(u32, u32)] {
        self.words.get(&hash).map_or(&[][..], Vec::as_slice)
    }

    /// Each region's Okapi BM25 score for the terms of `hashes` (with their `idf` and
    /// `weights`; `avg`: the mean region length): `(start line, score)`. Only the
    /// regions holding a term are visited.
    fn bm25(&self, hashes: &[u32], idf: &[f64], weights: &[f64], avg: f64) -> Vec<(i32, f64)> {
        let mut scores = vec![0.0f64; self.starts.len()];
        for (t, &hash) in hashes.iter().enumerate() {
            let weight = weights.get(t).copied().unwrap_or(1.0) * idf[t];
            for &(r, n) in self.holding(hash) {
                let f = f64::from(n);
                let norm = K1 * (1.0 - B + B * self.lengths[r as usize] / avg.max(1e-9));
                scores[r as usize] += weight * f * (K1 + 1.0) / (f + norm);
            }
        }
        self.starts.iter().copied().zip(scores).collect()
    }
}

/// Per file of `chosen` (indices into `files`), its regions' BM25 scores: `(start line,
/// score)` sorted by line; files whose [`BodyIndex`] `body` cannot give, or that match
/// nowhere, are left out.
pub(crate) fn region_scores(
    chosen: &[usize],
    body: &(dyn Fn(usize) -> Option<Arc<BodyIndex>> + Sync),
    terms: &[&str],
    weights: &[f64],
) -> HashMap<u32, Vec<(i32, f64)>, FxBuildHasher> {
    let hashes: Vec<u32> = terms.iter().map(|t| term_hash(t)).collect();
    let read: Vec<(usize, Arc<BodyIndex>)> = chosen
        .par_iter()
        .filter_map(|&fi| Some((fi, body(fi)?)))
        .collect();
    let regions: usize = read.iter().map(|(_, b)| b.starts.len()).sum();
    let idf = region_idf(&read, &hashes, regions);
    let total: f64 = read.iter().flat_map(|(_, b)| &b.lengths).sum();
    let avg = total / (regions.max(1) as f64);
    let mut scored = HashMap::default();
    for (fi, b) in &read {
        let scores = b.bm25(&hashes, &idf, weights, avg);
        if best_of(&scores) > 0.0 {
            scored.insert(*fi as u32, scores);
        }
    }
    scored
}

/// The best score of a file's regions (0 for none).
pub(crate) fn best_of(regions: &[(i32, f64)]) -> f64 {
    regions.iter().map(|&(_, s)| s).fold(0.0f64, f64::max)
}

/// A file's [`region_scores`] as shares of its best region's.
pub(crate) fn as_shares(regions: &[(i32, f64)]) -> Vec<(i32, f64)> {
    let best = best_of(regions);
    regions
        .iter()
        .map(|&(start, s)| (start, s / best))
        .collect()
}

/// The share of the region holding `line` (the greatest start at or before it), 0
/// before the first.
pub(crate) fn share_at(regions: &[(i32, f64)], line: i32) -> f64 {
    let after = regions.partition_point(|&(start, _)| start <= line);
    after.checked_sub(1).map_or(0.0, |i| regions[i].1)
}

/// Each term's inverse document frequency over the `regions` regions read: the regions
/// holding it are its document frequency.
fn region_idf(read: &[(usize, Arc<BodyIndex>)], hashes: &[u32], regions: usize) -> Vec<f64> {
    let n = regions as f64;
    (hashes.iter())
        .map(|&hash| {
            let df = read
                .iter()
                .map(|(_, b)| b.holding(hash).len())
                .sum::<usize>() as f64;
            (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::def;

    /// [`region_scores`] of `texts` (by file), as shares of each file's best region's.
    fn region_shares(
        files: &[FileTags<'_>],
        chosen: &[usize],
        texts: &[&str],
        terms: &[&str],
        weights: &[f64],
    ) -> HashMap<u32, Vec<(i32, f64)>, FxBuildHasher> {
        let body = |f: usize| {
            let text = texts.get(f)?;
            Some(Arc::new(BodyIndex::of(&files[f], text)))
        };
        let scores = region_scores(chosen, &body, terms, weights);
        scores
            .into_iter()
            .map(|(f, r)| (f, as_shares(&r)))
            .collect()
    }

    #[test]
    fn the_region_holding_the_words_gets_the_lift() {
        let tags = vec![def("a.py", 1, "load"), def("a.py", 4, "save")];
        let files = [FileTags::new("a.py", &tags)];
        let text = "def load():\n    read()\n\ndef save(path):\n    write_json(path)\n";
        let shares = region_shares(&files, &[0], &[text], &["json", "write"], &[1.0, 1.0]);
        let regions = &shares[&0];
        assert_eq!(share_at(regions, 1), 0.0);
        assert_eq!(share_at(regions, 4), 1.0);
        assert_eq!(share_at(regions, 5), 1.0, "a line inside the region");
    }

    #[test]
    fn a_file_matching_nowhere_or_unreadable_gets_none() {
        let tags = vec![def("a.py", 1, "load")];
        let files = [FileTags::new("a.py", &tags), FileTags::new("b.py", &tags)];
        let texts = ["def load():\n    pass\n"];
        let shares = region_shares(&files, &[0, 1], &texts, &["json"], &[1.0]);
        assert!(shares.is_empty());
    }

    #[test]
    fn lines_above_the_first_definition_are_in_no_region() {
        assert_eq!(share_at(&[(3, 0.5)], 2), 0.0);
        assert_eq!(share_at(&[], 2), 0.0);
    }
}
