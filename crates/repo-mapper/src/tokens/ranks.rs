//! tiktoken's encodings, counted from compact rank tables (issue 26).
//!
//! tiktoken-rs builds an encoding's `CoreBPE` in about 45 ms for cl100k: it decodes
//! 100 K base64 lines and keeps a decoder and a sorted copy of every token, which no count
//! needs. A count needs the rank map and the pattern that splits text into pieces. The
//! map is built here from a table vendored from tiktoken-rs itself (`assets/*.ranks`,
//! written by `cargo xtask vendor-ranks`) in a few milliseconds, and each piece is merged
//! by tiktoken-rs's own [`byte_pair_split`]: one token per piece the map holds, else one
//! per part the merge leaves, which is how `CoreBPE::encode_ordinary` counts.
//!
//! tiktoken-rs merges pieces of 100 bytes or more with a heap instead of the loop
//! `byte_pair_split` runs; both merge the lowest-ranked, leftmost pair first (the tests
//! compare counts on long pieces). A piece longer than [`LONGEST_PIECE`] would make that
//! loop quadratic, so a text holding one is left to tiktoken-rs's encoder whole.

use fancy_regex::Regex;
use rustc_hash::FxHashMap;
use tiktoken_rs::{Rank, byte_pair_split};

/// The longest piece merged here (see the module documentation).
pub(crate) const LONGEST_PIECE: usize = 1024;

/// The first bytes of a table (`cargo xtask vendor-ranks` writes them).
const MAGIC: &[u8] = b"RMRANKS1";

/// `cl100k_base`'s ordinary tokens, in rank order.
pub(crate) const CL100K_TABLE: &[u8] = include_bytes!("../../assets/cl100k_base.ranks");

/// `o200k_base`'s ordinary tokens, in rank order.
pub(crate) const O200K_TABLE: &[u8] = include_bytes!("../../assets/o200k_base.ranks");

/// The pattern `cl100k_base` splits text with (tiktoken-rs's `cl100k_base`).
pub(crate) const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+|",
    r" ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
);

/// The pattern `o200k_base` splits text with.
pub(crate) const O200K_PATTERN: &str = tiktoken_rs::O200K_BASE_PAT_STR;

/// An encoding's rank map and pattern: all a count needs.
#[derive(Debug)]
pub(crate) struct Ranks {
    map: FxHashMap<Vec<u8>, Rank>,
    pattern: Regex,
}

impl Ranks {
    /// The encoding whose tokens `table` lists (the compact layout of
    /// `xtask/src/ranks.rs`) and which splits text with `pattern`; `None` if either is
    /// damaged.
    pub(crate) fn new(table: &[u8], pattern: &str) -> Option<Ranks> {
        let pattern = Regex::new(pattern).ok()?;
        let (count, mut body) = table.strip_prefix(MAGIC)?.split_first_chunk::<4>()?;
        let count = u32::from_le_bytes(*count);
        let mut map = FxHashMap::with_capacity_and_hasher(count as usize, Default::default());
        for rank in 0..count {
            let (&len, rest) = body.split_first()?;
            let (token, rest) = rest.split_at_checked(usize::from(len))?;
            map.insert(token.to_vec(), rank);
            body = rest;
        }
        let whole = body.is_empty() && (0..=u8::MAX).all(|b| map.contains_key(&[b][..]));
        whole.then_some(Ranks { map, pattern })
    }

    /// The number of tokens of `text`, or `None` when a piece is longer than
    /// [`LONGEST_PIECE`] or the pattern gives up on the text.
    pub(crate) fn count(&self, text: &str) -> Option<usize> {
        let mut tokens = 0;
        for piece in self.pattern.find_iter(text) {
            let piece = piece.ok()?.as_str().as_bytes();
            tokens += if self.map.contains_key(piece) {
                1
            } else if piece.len() > LONGEST_PIECE {
                return None;
            } else {
                byte_pair_split(piece, &self.map).len()
            };
        }
        Some(tokens)
    }

    /// The number of tokens the table lists.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.map.len()
    }

    /// Every token the table lists, with its rank.
    #[cfg(test)]
    pub(crate) fn tokens(&self) -> impl Iterator<Item = (&[u8], Rank)> {
        self.map
            .iter()
            .map(|(bytes, rank)| (bytes.as_slice(), *rank))
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use proptest::prelude::*;

    use super::*;
    use crate::tokens::Tokenizer;

    fn ranks(tokenizer: Tokenizer) -> &'static Ranks {
        tokenizer.ranks().expect("the vendored table reads")
    }

    /// The count tiktoken-rs's own encoder gives.
    fn reference(tokenizer: Tokenizer, text: &str) -> usize {
        tokenizer.bpe().encode_ordinary(text).len()
    }

    fn assert_counts_equal(text: &str) {
        for tokenizer in Tokenizer::ALL {
            let want = reference(tokenizer, text);
            assert_eq!(
                tokenizer.count(text),
                want,
                "{} on {text:?}",
                tokenizer.name()
            );
        }
    }

    #[test]
    fn the_vendored_tables_are_tiktoken_rs_own_rank_by_rank() {
        for tokenizer in Tokenizer::ALL {
            let (ranks, bpe) = (ranks(tokenizer), tokenizer.bpe());
            for (bytes, rank) in ranks.tokens() {
                assert_eq!(bpe.decode_bytes(&[rank]).unwrap(), bytes, "rank {rank}");
            }
            // Ranks are 0..len: the first rank past the table is no ordinary token.
            let len = Rank::try_from(ranks.len()).unwrap();
            assert!(bpe.decode_bytes(&[len - 1]).is_ok());
            assert!(bpe.decode_bytes(&[len]).is_err(), "{}", tokenizer.name());
        }
    }

    /// The characters of each fixture counted (an unoptimised test build counts about
    /// 1 MB a second).
    const FIXTURE_HEAD: usize = 16 * 1024;

    #[test]
    fn counts_equal_tiktoken_rs_on_every_fixture() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
        let mut texts = 0;
        for path in crate::list_files(&fixtures, None) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                // The head of the fuzz and soak fixtures of hundreds of kilobytes.
                let head = text
                    .char_indices()
                    .nth(FIXTURE_HEAD)
                    .map_or(text.len(), |(i, _)| i);
                assert_counts_equal(&text[..head]);
                texts += 1;
            }
        }
        assert!(texts > 200, "{texts} fixture texts");
    }

    /// Every file of `REPO_MAPPER_COUNT_CHECK` (a directory), whole:
    /// `REPO_MAPPER_COUNT_CHECK=DIR cargo test --release -p repo-mapper --lib -- --ignored counts_equal`.
    #[test]
    #[ignore]
    fn counts_equal_tiktoken_rs_on_a_directory() {
        let dir = std::env::var_os("REPO_MAPPER_COUNT_CHECK").expect("REPO_MAPPER_COUNT_CHECK");
        let mut texts = 0;
        for path in crate::list_files(Path::new(&dir), None) {
            if let Ok(text) = std::fs::read_to_string(&path) {
                assert_counts_equal(&text);
                texts += 1;
            }
        }
        assert!(texts > 0, "no text file under {}", dir.to_string_lossy());
    }

    #[test]
    fn long_pieces_count_as_tiktoken_rs_heap_merge_does() {
        // tiktoken-rs merges pieces of 100 bytes and more another way: runs of each
        // character class, across that threshold and up to the longest piece merged here.
        let units = [
            "a", "Zq", "7", "=-", " ", "\t\n", "é", "日本", "🙂", "xyz123", "_",
        ];
        for unit in units {
            for len in [50, 99, 100, 101, 257, 600, LONGEST_PIECE / unit.len() + 1] {
                let run = unit.repeat(len);
                assert_counts_equal(&run);
                assert_counts_equal(&format!("fn {run}(x) -> {run}\n"));
            }
        }
    }

    #[test]
    fn a_piece_too_long_to_merge_here_is_counted_by_tiktoken_rs() {
        let long = "q".repeat(LONGEST_PIECE + 1);
        for tokenizer in Tokenizer::ALL {
            assert_eq!(ranks(tokenizer).count(&long), None);
            assert_eq!(tokenizer.count(&long), reference(tokenizer, &long));
        }
    }

    #[test]
    fn a_damaged_table_is_refused() {
        let table = CL100K_TABLE;
        assert!(Ranks::new(&table[..table.len() - 1], CL100K_PATTERN).is_none());
        assert!(Ranks::new(&table[1..], CL100K_PATTERN).is_none());
        assert!(Ranks::new(table, "(").is_none());
        let mut longer = table.to_vec();
        longer.push(0);
        assert!(Ranks::new(&longer, CL100K_PATTERN).is_none());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn counts_equal_tiktoken_rs_on_any_text(text in "\\PC{0,200}") {
            assert_counts_equal(&text);
        }

        #[test]
        fn counts_equal_tiktoken_rs_on_code_like_text(
            text in "([ \\t]{0,8}[a-zA-Z_][a-zA-Z0-9_]{0,12}[ (){}\\[\\].,:;=+\\-*/'\"#<>]{0,4}[0-9]{0,5}\\r?\\n?){0,40}"
        ) {
            assert_counts_equal(&text);
        }
    }
}
