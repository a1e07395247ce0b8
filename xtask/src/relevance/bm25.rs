//! The system `bm25` (issue 24): the simplest alternative every agent already has,
//! full-text search. Okapi BM25 (k1 = 1.2, b = 0.75) between the commit message and each
//! file's text plus its path, over the same file list as the other systems, read from the
//! work tree (checked out at the parent). It ranks files and makes no map.
//!
//! Tokens are code-aware ([`tokens`]): runs of word characters (letters, digits, `_`),
//! lowercased, each kept whole beside its parts (split at `_`, camelCase and digit
//! boundaries); tokens of one character, tokens of digits only and [`STOP_WORDS`] are
//! dropped. The message is tokenized the same way; a query term counts as often as it
//! occurs in the message (as repeated clauses do in Lucene, and `rank_bm25` does).
//! IDF is Lucene's, `ln(1 + (N − n + 0.5) / (n + 0.5))`, never negative.

use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

use super::systems::Answer;

/// BM25's term-frequency saturation.
const K1: f64 = 1.2;
/// BM25's length normalisation.
const B: f64 = 0.75;
/// Files larger than this are scored on their path only.
const MAX_BYTES: u64 = 1_000_000;
/// A NUL byte in this many first bytes makes a file binary: scored on its path only.
const BINARY_PROBE: usize = 8192;

/// Words dropped from messages and files alike: English function words and the verbs
/// commit subjects start with. Short on purpose, and sorted (binary search).
pub(super) const STOP_WORDS: &[&str] = &[
    "a", "about", "add", "added", "adds", "after", "all", "also", "an", "and", "any", "are", "as",
    "at", "be", "been", "before", "but", "by", "can", "change", "changed", "changes", "do", "does",
    "fix", "fixed", "fixes", "for", "from", "has", "have", "if", "in", "into", "is", "it", "its",
    "no", "not", "of", "on", "or", "remove", "removed", "removes", "so", "than", "that", "the",
    "their", "then", "there", "these", "this", "those", "to", "too", "update", "updated",
    "updates", "was", "we", "were", "when", "which", "while", "will", "with", "would",
];

/// Whether a character belongs to a word (an identifier run).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether a lowercased token is kept: two characters or more, not digits only, not a
/// stop word.
fn keep(token: &str) -> bool {
    token.chars().nth(1).is_some()
        && !token.chars().all(|c| c.is_ascii_digit())
        && STOP_WORDS.binary_search(&token).is_err()
}

/// The parts of one identifier, lowercased: split at `_`, at a lower-to-upper step
/// (`parseURL` → `parse`, `url`), before the last capital of a capital run followed by a
/// lowercase letter (`URLJson` → `url`, `json`), and between digits and letters.
pub(super) fn parts(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            out.push(std::mem::take(&mut current));
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|p| chars.get(p)) {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let boundary = (prev.is_lowercase() && c.is_uppercase())
                || (prev.is_uppercase() && c.is_uppercase() && next_lower)
                || prev.is_numeric() != c.is_numeric();
            if boundary {
                out.push(std::mem::take(&mut current));
            }
        }
        current.extend(c.to_lowercase());
    }
    out.push(current);
    out.retain(|p| !p.is_empty());
    out
}

/// The code-aware tokens of `text`, in order: each word lowercased whole, then its
/// [`parts`] that differ from it (`parseURL2Json` → `parseurl2json`, `parse`, `url`,
/// `json`), kept tokens only.
pub(super) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()) {
        let whole = word.to_lowercase();
        let split = parts(word);
        if keep(&whole) {
            out.push(whole.clone());
        }
        if split.len() > 1 || split.first().is_some_and(|p| *p != whole) {
            out.extend(split.into_iter().filter(|p| keep(p)));
        }
    }
    out
}

/// One indexed file: its path, its length in tokens, and its term counts (by term id).
struct Doc {
    path: String,
    len: f64,
    tf: HashMap<u32, u32>,
}

/// The BM25 index of one task's files at the parent, shared by both scenarios.
pub(super) struct Index {
    vocab: HashMap<String, u32>,
    /// Documents containing each term, by term id.
    df: Vec<u32>,
    docs: Vec<Doc>,
    avg_len: f64,
}

impl Index {
    /// Indexes `files` (paths relative to `root`) as they are on disk.
    pub(super) fn build(root: &Path, files: &[String]) -> Index {
        let texts = files.iter().map(|f| (f.as_str(), indexed_text(root, f)));
        Index::from_texts(texts)
    }

    /// Indexes `(path, text)` pairs: the document is the text, then the path.
    pub(super) fn from_texts<'a>(texts: impl Iterator<Item = (&'a str, String)>) -> Index {
        let mut index = Index {
            vocab: HashMap::new(),
            df: Vec::new(),
            docs: Vec::new(),
            avg_len: 0.0,
        };
        for (path, text) in texts {
            let mut tf: HashMap<u32, u32> = HashMap::new();
            let mut len = 0usize;
            for token in tokens(&text).into_iter().chain(tokens(path)) {
                let next = index.vocab.len() as u32;
                let id = *index.vocab.entry(token).or_insert(next);
                *tf.entry(id).or_default() += 1;
                len += 1;
            }
            index.df.resize(index.vocab.len(), 0);
            for &id in tf.keys() {
                index.df[id as usize] += 1;
            }
            index.docs.push(Doc {
                path: path.to_owned(),
                len: len as f64,
                tf,
            });
        }
        let total: f64 = index.docs.iter().map(|d| d.len).sum();
        index.avg_len = total / index.docs.len().max(1) as f64;
        index
    }

    /// Each file's BM25 score for `message`, in index order.
    pub(super) fn scores(&self, message: &str) -> Vec<f64> {
        let n = self.docs.len() as f64;
        let query: Vec<(u32, f64)> = tokens(message)
            .iter()
            .filter_map(|t| self.vocab.get(t))
            .map(|&id| {
                let df = f64::from(self.df[id as usize]);
                (id, (1.0 + (n - df + 0.5) / (df + 0.5)).ln())
            })
            .collect();
        self.docs
            .iter()
            .map(|doc| {
                let norm = K1 * (1.0 - B + B * doc.len / self.avg_len.max(f64::MIN_POSITIVE));
                query
                    .iter()
                    .filter_map(|(id, idf)| {
                        let tf = f64::from(*doc.tf.get(id)?);
                        Some(idf * tf * (K1 + 1.0) / (tf + norm))
                    })
                    .sum()
            })
            .collect()
    }

    /// The files ranked for `message`, best first (ties by path), `chat` left out.
    pub(super) fn rank(&self, message: &str, chat: &[String]) -> Vec<String> {
        let scores = self.scores(message);
        let mut ranked: Vec<(f64, &str)> = self
            .docs
            .iter()
            .zip(scores)
            .filter(|(d, _)| !chat.contains(&d.path))
            .map(|(d, s)| (s, d.path.as_str()))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        ranked.into_iter().map(|(_, p)| p.to_owned()).collect()
    }

    /// bm25's answer for one scenario: the ranked files, no map. The time is the query's
    /// on the built index (the index is built once per task, as ours keeps a warm session).
    pub(super) fn answer(&self, message: &str, chat: &[String]) -> Answer {
        let start = Instant::now();
        let order = self.rank(message, chat);
        Answer {
            map_files: Vec::new(),
            order,
            seconds: start.elapsed().as_secs_f64(),
            map_text: None,
        }
    }
}

/// What is indexed of a file besides its path: its text (lossy when not UTF-8), or
/// nothing when it is binary (a NUL byte early), larger than 1 MB or unreadable.
fn indexed_text(root: &Path, file: &str) -> String {
    let path = root.join(file);
    if std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_BYTES) {
        return String::new();
    }
    let Ok(bytes) = std::fs::read(&path) else {
        return String::new();
    };
    if bytes[..bytes.len().min(BINARY_PROBE)].contains(&0) {
        return String::new();
    }
    match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_the_identifier_beside_its_parts() {
        assert_eq!(
            tokens("parseURL2Json"),
            ["parseurl2json", "parse", "url", "json"]
        );
        assert_eq!(
            tokens("Fix the snake_case name in src/fooBar.py (#1234)"),
            [
                "snake_case",
                "snake",
                "case",
                "name",
                "src",
                "foobar",
                "foo",
                "bar",
                "py"
            ]
        );
        assert_eq!(
            tokens("HTTPServer x a1"),
            ["httpserver", "http", "server", "a1"]
        );
        assert_eq!(tokens("__init__"), ["__init__", "init"]);
    }

    #[test]
    fn the_stop_words_are_sorted_and_lowercase() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(
            STOP_WORDS
                .iter()
                .all(|w| w.chars().all(|c| c.is_lowercase()))
        );
    }

    #[test]
    fn the_file_with_the_rare_term_ranks_first() {
        let docs = [
            (
                "src/a.py",
                "def render(): return table.render(width)".to_owned(),
            ),
            (
                "src/b.py",
                "def render(): wrap(table, width) # ellipsis".to_owned(),
            ),
            (
                "src/c.py",
                "def render(): return width.render(table)".to_owned(),
            ),
        ];
        let index = Index::from_texts(docs.iter().map(|(p, t)| (*p, t.clone())));
        let order = index.rank("Fix the ellipsis when a table is rendered", &[]);
        assert_eq!(order[0], "src/b.py");
        assert_eq!(&order[1..], ["src/a.py", "src/c.py"], "ties by path");
        let without = index.rank("ellipsis", &["src/b.py".to_owned()]);
        assert_eq!(
            without,
            ["src/a.py", "src/c.py"],
            "the chat file is left out"
        );
        let scores = index.scores("nothing matches");
        assert!(scores.iter().all(|&s| s == 0.0));
    }

    #[test]
    fn a_binary_file_is_scored_on_its_path_only() {
        let dir = std::env::temp_dir().join(format!("relevance-bm25-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("logo.png"), b"\x89PNG\0\0 ellipsis ellipsis").unwrap();
        std::fs::write(dir.join("ellipsis.bin"), b"\0 nothing").unwrap();
        std::fs::write(dir.join("text.py"), b"# \xff latin ellipsis\n").unwrap();
        let files = ["ellipsis.bin", "logo.png", "text.py"].map(String::from);
        let index = Index::build(&dir, &files);
        std::fs::remove_dir_all(&dir).unwrap();
        let scores = index.scores("ellipsis");
        assert!(scores[0] > 0.0, "the path matches");
        assert_eq!(scores[1], 0.0, "the binary's text is not read");
        assert!(scores[2] > 0.0, "not UTF-8: read lossily");
    }
}
