//! Token counting with tiktoken (behaviour.md §10.1).

mod ranks;

use std::str::FromStr;
use std::sync::OnceLock;

use repo_mapper_tags::pycompat::splitlines_keepends;
use tiktoken_rs::CoreBPE;

use crate::config::UnknownName;
use ranks::Ranks;

/// A tiktoken encoding, bundled in the binary (nothing is downloaded).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Tokenizer {
    /// `cl100k_base` (GPT-4, GPT-3.5): the default.
    #[default]
    Cl100kBase,
    /// `o200k_base` (GPT-4o and later).
    O200kBase,
}

impl Tokenizer {
    /// Every encoding, in the order the CLI lists them.
    pub const ALL: [Tokenizer; 2] = [Tokenizer::Cl100kBase, Tokenizer::O200kBase];

    /// The encoding's tiktoken name.
    pub fn name(self) -> &'static str {
        match self {
            Tokenizer::Cl100kBase => "cl100k_base",
            Tokenizer::O200kBase => "o200k_base",
        }
    }

    /// tiktoken-rs's whole encoder: counts texts [`Ranks`] leaves (a piece longer than
    /// [`ranks::LONGEST_PIECE`]), and the tests' reference.
    fn bpe(self) -> &'static CoreBPE {
        match self {
            Tokenizer::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton(),
        }
    }

    /// The encoding's rank map and pattern, built once per process from the vendored
    /// table (`None` only if that table were damaged: tiktoken-rs then counts everything).
    fn ranks(self) -> Option<&'static Ranks> {
        static BUILT: [OnceLock<Option<Ranks>>; 2] = [OnceLock::new(), OnceLock::new()];
        BUILT[self as usize]
            .get_or_init(|| match self {
                Tokenizer::Cl100kBase => Ranks::new(ranks::CL100K_TABLE, ranks::CL100K_PATTERN),
                Tokenizer::O200kBase => Ranks::new(ranks::O200K_TABLE, ranks::O200K_PATTERN),
            })
            .as_ref()
    }

    /// Builds the encoding's rank map on a thread of its own, once per process, so that
    /// the first [`count`](Tokenizer::count) finds it ready. It takes a few milliseconds
    /// (cl100k; o200k about twice that): started by a session before the walk or the tag
    /// scan, it overlaps them instead of adding to every CLI run (a session that may take
    /// every count from counts kept by earlier runs starts it only when it finds it will
    /// count).
    pub fn warm_up(self) {
        static STARTED: [std::sync::Once; 2] = [std::sync::Once::new(), std::sync::Once::new()];
        STARTED[self as usize].call_once(|| {
            let spawned = std::thread::Builder::new()
                .name("tokenizer-ranks".to_owned())
                .spawn(move || {
                    self.ranks();
                });
            // Without a thread the first count builds the map.
            drop(spawned);
        });
    }

    /// The exact number of tokens of `text` (special tokens are encoded as ordinary text):
    /// tiktoken-rs's count, from its own merge over a rank map built from vendored tables.
    pub fn count(self, text: &str) -> usize {
        self.ranks()
            .and_then(|ranks| ranks.count(text))
            .unwrap_or_else(|| self.bpe().encode_ordinary(text).len())
    }

    /// Aider's estimate (`RepoMap.token_count`): the exact count below 200 characters, else
    /// every `num_lines // 100 or 1`-th line (Python `splitlines(keepends=True)` lines) is
    /// counted and the count scaled by characters. A float, not rounded, as Aider compares it.
    pub fn aider_estimate(self, text: &str) -> f64 {
        aider_estimate_with(text, |t| self.count(t))
    }
}

/// [`Tokenizer::aider_estimate`] with the one exact count it makes done by `count`.
pub(crate) fn aider_estimate_with(text: &str, mut count: impl FnMut(&str) -> usize) -> f64 {
    let len_text = text.chars().count();
    if len_text < 200 {
        return count(text) as f64;
    }
    let lines = splitlines_keepends(text);
    let step = (lines.len() / 100).max(1);
    let sample: String = lines.iter().step_by(step).copied().collect();
    let sample_tokens = count(&sample) as f64;
    sample_tokens / sample.chars().count() as f64 * len_text as f64
}

impl FromStr for Tokenizer {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Tokenizer, UnknownName> {
        UnknownName::find("tokenizer", s, &Tokenizer::ALL, Tokenizer::name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts() {
        // Values from Python tiktoken 0.12 (cl100k_base / o200k_base).
        assert_eq!(Tokenizer::Cl100kBase.count("hello world"), 2);
        assert_eq!(Tokenizer::Cl100kBase.count(""), 0);
        assert_eq!(Tokenizer::O200kBase.count("hello world"), 2);
        assert_eq!(Tokenizer::Cl100kBase.count("<|endoftext|>"), 7);
    }

    #[test]
    fn short_text_estimate_is_exact() {
        let t = "def f():\n    return 1\n";
        assert_eq!(
            Tokenizer::Cl100kBase.aider_estimate(t),
            Tokenizer::Cl100kBase.count(t) as f64
        );
    }

    #[test]
    fn long_text_estimate_samples_lines() {
        let text: String = (0..250)
            .map(|i| format!("line number {i} of the map\n"))
            .collect();
        let lines = splitlines_keepends(&text);
        let sample: String = lines.iter().step_by(2).copied().collect();
        let want = Tokenizer::Cl100kBase.count(&sample) as f64 / sample.chars().count() as f64
            * text.chars().count() as f64;
        assert_eq!(Tokenizer::Cl100kBase.aider_estimate(&text), want);
    }
}
