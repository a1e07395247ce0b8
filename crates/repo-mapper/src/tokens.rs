//! Token counting with tiktoken (SPEC §10.1).

use std::str::FromStr;

use tiktoken_rs::CoreBPE;

use crate::config::UnknownName;

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

    fn bpe(self) -> &'static CoreBPE {
        match self {
            Tokenizer::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            Tokenizer::O200kBase => tiktoken_rs::o200k_base_singleton(),
        }
    }

    /// The exact number of tokens of `text` (special tokens are encoded as ordinary text).
    pub fn count(self, text: &str) -> usize {
        self.bpe().encode_ordinary(text).len()
    }

    /// Aider's estimate (`RepoMap.token_count`): the exact count below 200 characters, else
    /// every `num_lines // 100 or 1`-th line (Python `splitlines(keepends=True)` lines) is
    /// counted and the count scaled by characters. A float, not rounded, as Aider compares it.
    pub fn aider_estimate(self, text: &str) -> f64 {
        let len_text = text.chars().count();
        if len_text < 200 {
            return self.count(text) as f64;
        }
        let lines = python_splitlines_keepends(text);
        let step = (lines.len() / 100).max(1);
        let sample: String = lines.iter().step_by(step).copied().collect();
        let sample_tokens = self.count(&sample) as f64;
        sample_tokens / sample.chars().count() as f64 * len_text as f64
    }
}

impl FromStr for Tokenizer {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Tokenizer, UnknownName> {
        UnknownName::find("tokenizer", s, &Tokenizer::ALL, Tokenizer::name)
    }
}

/// Python's `str.splitlines(keepends=True)`: lines end at `\n`, `\r\n`, `\r`, `\v`, `\f`,
/// `\x1c`, `\x1d`, `\x1e`, `\x85`, `\u2028` and `\u2029`, each kept with its line.
pub(crate) fn python_splitlines_keepends(text: &str) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = match c {
            '\r' => match chars.peek() {
                Some(&(j, '\n')) => {
                    chars.next();
                    j + 1
                }
                _ => i + 1,
            },
            '\n' | '\u{b}' | '\u{c}' | '\u{1c}' | '\u{1d}' | '\u{1e}' | '\u{85}' | '\u{2028}'
            | '\u{2029}' => i + c.len_utf8(),
            _ => continue,
        };
        lines.push(&text[start..end]);
        start = end;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitlines_matches_python() {
        assert_eq!(python_splitlines_keepends(""), Vec::<&str>::new());
        assert_eq!(python_splitlines_keepends("a"), ["a"]);
        assert_eq!(
            python_splitlines_keepends("a\nb\r\nc\rd"),
            ["a\n", "b\r\n", "c\r", "d"]
        );
        assert_eq!(
            python_splitlines_keepends("x\u{2028}y\u{85}\n"),
            ["x\u{2028}", "y\u{85}", "\n"]
        );
        assert_eq!(python_splitlines_keepends("\n\n"), ["\n", "\n"]);
    }

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
        let lines = python_splitlines_keepends(&text);
        let sample: String = lines.iter().step_by(2).copied().collect();
        let want = Tokenizer::Cl100kBase.count(&sample) as f64 / sample.chars().count() as f64
            * text.chars().count() as f64;
        assert_eq!(Tokenizer::Cl100kBase.aider_estimate(&text), want);
    }
}
