//! A file's words as a search engine sees them: every word of its text (the names it
//! defines and uses, its comments and strings), normalised as code words and counted
//! by hash ([`Terms`]). The default profile scores files against a user's message with
//! them (BM25); the message goes through the same normalisation ([`code_words`]).

/// Calls `f` with each normalised part of the words in `text`: split at every character
/// that is not a letter, and at case changes (`TableRow` → `table`, `row`), lowercased,
/// English plurals made singular, parts under three letters left out.
///
/// ```
/// let mut parts = Vec::new();
/// repo_mapper_tags::word_parts("HTTPServer parse_URL2json getValues x-y", &mut |p| {
///     parts.push(p.to_owned())
/// });
/// assert_eq!(parts, ["httpserver", "parse", "url", "json", "get", "value"]);
/// ```
pub fn word_parts(text: &str, f: &mut impl FnMut(&str)) {
    word_parts_in(text, &mut String::new(), f);
}

/// [`word_parts`] with `part` as the buffer each part is made in (one per text, not one
/// per word: every file's words are counted on a cold run); how many parts it gave.
fn word_parts_in(text: &str, part: &mut String, f: &mut impl FnMut(&str)) -> usize {
    let mut parts = 0;
    let mut flush = |part: &mut String| {
        singular(part);
        if part.chars().count() >= 3 {
            parts += 1;
            f(part);
        }
        part.clear();
    };
    part.clear();
    let mut prev: Option<char> = None;
    for c in text.chars() {
        let camel_hump = c.is_uppercase() && prev.is_some_and(char::is_lowercase);
        if !c.is_alphabetic() || camel_hump {
            flush(part);
        }
        if c.is_ascii_alphabetic() {
            part.push(c.to_ascii_lowercase());
        } else if c.is_alphabetic() {
            part.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    flush(part);
    parts
}

/// Calls `f` with each code word of `text`: the parts [`word_parts`] gives and, beside
/// them, each identifier that splits into more than one part, whole and lowercased
/// (`TableRow` → `table`, `row`, `tablerow`; `add_cell` → `add`, `cell`, `add_cell`).
///
/// ```
/// let mut words = Vec::new();
/// repo_mapper_tags::code_words("Fix TableRow.add_cell", &mut |w| words.push(w.to_owned()));
/// assert_eq!(words, ["fix", "table", "row", "tablerow", "add", "cell", "add_cell"]);
/// ```
pub fn code_words(text: &str, f: &mut impl FnMut(&str)) {
    let (mut part, mut whole) = (String::new(), String::new());
    for token in word_tokens(text) {
        let parts = if token.is_ascii() {
            ascii_word_parts_in(token.as_bytes(), &mut part, f)
        } else {
            word_parts_in(token, &mut part, f)
        };
        if parts > 1 {
            whole.clear();
            if token.is_ascii() {
                whole.push_str(token);
                whole.make_ascii_lowercase();
            } else {
                whole.extend(token.chars().flat_map(char::to_lowercase));
            }
            f(&whole);
        }
    }
}

/// The runs of letters, digits and `_` in `text`, in order: `text` split at every other
/// character. ASCII is told apart byte by byte; only other characters are decoded.
fn word_tokens(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    // The length of the character starting at `i` if it is a letter or digit beyond
    // ASCII, else 0.
    let wide_word = |i: usize| {
        let c = text[i..].chars().next().unwrap_or_default();
        if c.is_alphanumeric() { c.len_utf8() } else { 0 }
    };
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let start = at;
            while let Some(&b) = bytes.get(at) {
                match WORD_BYTES[usize::from(b)] {
                    ByteKind::Word => at += 1,
                    ByteKind::Other => break,
                    ByteKind::NotAscii => match wide_word(at) {
                        0 => break,
                        len => at += len,
                    },
                }
            }
            if at > start {
                return Some(&text[start..at]);
            }
            // `at` is on a character that is no part of a word: step over it.
            at += text[at..].chars().next().map_or(1, char::len_utf8);
        }
        None
    })
}

/// What a byte of UTF-8 says about the character it starts or is part of.
#[derive(Clone, Copy)]
enum ByteKind {
    /// An ASCII letter, digit or `_`.
    Word,
    /// Any other ASCII character.
    Other,
    /// Part of a character beyond ASCII: decode it to know.
    NotAscii,
}

/// [`ByteKind`] by byte value.
const WORD_BYTES: [ByteKind; 256] = {
    let mut kinds = [ByteKind::NotAscii; 256];
    let mut b = 0;
    while b < 128 {
        let byte = b as u8;
        kinds[b] = match byte.is_ascii_alphanumeric() || byte == b'_' {
            true => ByteKind::Word,
            false => ByteKind::Other,
        };
        b += 1;
    }
    kinds
};

/// [`word_parts_in`] for a token of ASCII letters, digits and `_` only, byte by byte: the
/// same parts (an ASCII letter has one case mapping, and a part's length in bytes is its
/// length in characters).
fn ascii_word_parts_in(token: &[u8], part: &mut String, f: &mut impl FnMut(&str)) -> usize {
    let mut parts = 0;
    let mut flush = |part: &mut String| {
        singular(part);
        if part.len() >= 3 {
            parts += 1;
            f(part);
        }
        part.clear();
    };
    part.clear();
    let mut prev_lower = false;
    for &b in token {
        let camel_hump = b.is_ascii_uppercase() && prev_lower;
        if !b.is_ascii_alphabetic() || camel_hump {
            flush(part);
        }
        if b.is_ascii_alphabetic() {
            part.push(char::from(b.to_ascii_lowercase()));
        }
        prev_lower = b.is_ascii_lowercase();
    }
    flush(part);
    parts
}

/// English plurals made singular, roughly (`classes` → `class`, `entries` → `entry`,
/// `tables` → `table`; `status`, `class` unchanged), so either form matches the other.
fn singular(word: &mut String) {
    if !word.ends_with('s') {
        // Every rule below ends in `s`.
        return;
    }
    if word.len() > 4 && word.ends_with("ies") {
        word.truncate(word.len() - 3);
        word.push('y');
    } else if ["sses", "xes", "ches", "shes", "zes"]
        .iter()
        .any(|s| word.ends_with(s))
    {
        word.truncate(word.len() - 2);
    } else if word.len() > 3
        && word.ends_with('s')
        && !["ss", "us", "is"].iter().any(|s| word.ends_with(s))
    {
        word.pop();
    }
}

/// Words that say what to do rather than what to do it to. A message's terms leave them
/// out, so a file's [`Terms`] count them in its length only.
pub const STOP_WORDS: &[&str] = &[
    "about", "add", "added", "adding", "adds", "after", "all", "allow", "also", "and", "any",
    "are", "bad", "been", "before", "being", "but", "can", "cannot", "change", "changed",
    "changes", "could", "does", "doesn", "don", "each", "fix", "fixed", "fixes", "fixing", "for",
    "from", "get", "gets", "had", "has", "have", "how", "improve", "instead", "into", "its",
    "make", "makes", "more", "new", "not", "now", "only", "other", "our", "out", "remove",
    "removed", "same", "should", "some", "such", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "too", "update", "updated", "use", "used", "uses",
    "using", "via", "was", "were", "what", "when", "where", "which", "while", "who", "why", "will",
    "with", "without", "would", "you", "your",
];

/// Whether `word` (a code word, lowercased) is one of the [`STOP_WORDS`].
///
/// ```
/// assert!(repo_mapper_tags::is_stop_word("the"));
/// assert!(!repo_mapper_tags::is_stop_word("cookie"));
/// ```
pub fn is_stop_word(word: &str) -> bool {
    is_stop_word_hashed(word, term_hash(word))
}

/// [`is_stop_word`] for a word whose [`term_hash`] is `hash`: one search among the stop
/// words' hashes, the word compared only on a match.
fn is_stop_word_hashed(word: &str, hash: u32) -> bool {
    /// The low bits of a hash the filter below is indexed by.
    const FILTER_BITS: u32 = 12;
    /// One bit per value of a hash's low [`FILTER_BITS`] bits, set where a stop word's
    /// hash has them: most words are told apart by one load.
    static FILTER: std::sync::LazyLock<Vec<u64>> = std::sync::LazyLock::new(|| {
        let mut bits = vec![0u64; 1 << (FILTER_BITS - 6)];
        for word in STOP_WORDS {
            let low = term_hash(word) & ((1 << FILTER_BITS) - 1);
            bits[(low >> 6) as usize] |= 1 << (low & 63);
        }
        bits
    });
    let low = hash & ((1 << FILTER_BITS) - 1);
    if FILTER[(low >> 6) as usize] & (1 << (low & 63)) == 0 {
        return false;
    }
    static BY_HASH: std::sync::LazyLock<Vec<(u32, &str)>> = std::sync::LazyLock::new(|| {
        let mut by_hash: Vec<(u32, &str)> = STOP_WORDS.iter().map(|w| (term_hash(w), *w)).collect();
        by_hash.sort_unstable();
        by_hash
    });
    let at = BY_HASH.partition_point(|&(h, _)| h < hash);
    BY_HASH[at..]
        .iter()
        .take_while(|&&(h, _)| h == hash)
        .any(|&(_, w)| w == word)
}

/// What decides a [`Terms`]' content besides the text: the hash, its bits, the stop words
/// and how words are split (bumped by hand when that changes). A kept `Terms` made under
/// another fingerprint is not read.
pub fn terms_fingerprint() -> u64 {
    const SPLITTING: u64 = 1;
    let seed = FNV_OFFSET ^ SPLITTING ^ u64::from(TERM_HASH_BITS) << 8;
    STOP_WORDS
        .iter()
        .fold(seed, |h, word| fnv1a(h, word.bytes().chain([0])))
}

/// FNV-1a's starting state.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a (64 bits) of `bytes`, from the state `h` ([`FNV_OFFSET`] to start): the
/// workspace's one stable, platform-independent small hash (code words, query
/// fingerprints, pack slots, name parts).
pub fn fnv1a(h: u64, bytes: impl IntoIterator<Item = u8>) -> u64 {
    bytes
        .into_iter()
        .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The bits of a [`term_hash`]: 2²⁴ hashes, so that a file's sorted hashes are stored in
/// about two bytes each, Rice coded (the Linux tree's million-odd distinct words share few of
/// them; 20 bits measured the same on `cargo xtask relevance`, but would share many
/// there).
pub const TERM_HASH_BITS: u32 = 24;

/// The hash a code word is counted under: FNV-1a over its bytes, folded to
/// [`TERM_HASH_BITS`] bits (stable across runs and platforms; two words sharing one hash
/// count as one).
pub fn term_hash(word: &str) -> u32 {
    let h = fnv1a(FNV_OFFSET, word.bytes());
    let folded = h ^ (h >> TERM_HASH_BITS) ^ (h >> (2 * TERM_HASH_BITS));
    (folded & ((1 << TERM_HASH_BITS) - 1)) as u32
}

/// A file's code words counted by hash: `(hash, count)` pairs sorted by hash, packed in
/// one allocation, and the number of words, [`STOP_WORDS`] included (they are not listed:
/// no message looks for them). Empty for files not read as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms {
    /// `hash << 32 | count`, ascending.
    packed: Box<[u64]>,
    /// The sum of the counts and the stop words, kept: a ranking with a message reads
    /// every file's.
    words: u64,
}

impl Terms {
    /// The code words of `text`, counted.
    ///
    /// ```
    /// use repo_mapper_tags::{Terms, term_hash};
    ///
    /// let terms = Terms::of_text("# Redirects keep the session cookie\nredirect(session)\n");
    /// assert_eq!(terms.count(term_hash("redirect")), 2);
    /// assert_eq!(terms.count(term_hash("cookie")), 1);
    /// assert_eq!(terms.count(term_hash("missing")), 0);
    /// assert_eq!(terms.count(term_hash("the")), 0, "a stop word");
    /// assert_eq!(terms.words(), 7, "the stop word counted in the length");
    /// ```
    pub fn of_text(text: &str) -> Terms {
        let mut hashes = Vec::new();
        let mut unlisted = 0;
        code_words(text, &mut |w| {
            let hash = term_hash(w);
            if is_stop_word_hashed(w, hash) {
                unlisted += 1;
            } else {
                hashes.push(hash);
            }
        });
        hashes.sort_unstable();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for h in hashes {
            match pairs.last_mut() {
                Some((last, n)) if *last == h => *n = n.saturating_add(1),
                _ => pairs.push((h, 1)),
            }
        }
        Terms::from_pairs(pairs, unlisted)
    }

    /// From `(hash, count)` pairs sorted by hash, each hash once (as [`Terms::pairs`]
    /// gives them back), and the number of words not listed ([`Terms::unlisted`]);
    /// `None` if the pairs are not so sorted.
    pub fn from_sorted(pairs: Vec<(u32, u32)>, unlisted: u64) -> Option<Terms> {
        pairs
            .windows(2)
            .all(|w| w[0].0 < w[1].0)
            .then(|| Terms::from_pairs(pairs, unlisted))
    }

    fn from_pairs(pairs: Vec<(u32, u32)>, unlisted: u64) -> Terms {
        let packed = pairs
            .into_iter()
            .map(|(h, n)| u64::from(h) << 32 | u64::from(n))
            .collect::<Box<[u64]>>();
        let listed: u64 = packed.iter().map(|&p| u64::from(p as u32)).sum();
        Terms {
            packed,
            words: listed.saturating_add(unlisted),
        }
    }

    /// The words counted in [`Terms::words`] but not listed: the stop words.
    pub fn unlisted(&self) -> u64 {
        let listed: u64 = self.pairs().map(|(_, n)| u64::from(n)).sum();
        self.words - listed
    }

    /// How many times words of hash `hash` occur. Hashes are spread evenly, so the search
    /// starts where `hash` would sit and widens from there: a probe or two, in one or two
    /// cache lines, instead of a binary search's dozen.
    pub fn count(&self, hash: u32) -> u32 {
        let key = u64::from(hash) << 32;
        let packed = &self.packed[..];
        let n = packed.len();
        let guess = ((u64::from(hash) * n as u64) >> TERM_HASH_BITS) as usize;
        let (mut lo, mut hi) = (guess.min(n), guess.min(n));
        let mut step = 1;
        while lo > 0 && packed[lo - 1] >= key {
            lo = lo.saturating_sub(step);
            step *= 2;
        }
        step = 1;
        while hi < n && packed[hi] < key {
            hi = (hi + step).min(n);
            step *= 2;
        }
        // Every pair below `lo` is under `key`, every one from `hi` at or above it.
        let at = lo + packed[lo..hi].partition_point(|&p| p < key);
        match self.packed.get(at) {
            Some(&p) if p >> 32 == u64::from(hash) => p as u32,
            _ => 0,
        }
    }

    /// `(hash, count)` in ascending hash order.
    pub fn pairs(&self) -> impl ExactSizeIterator<Item = (u32, u32)> + '_ {
        self.packed.iter().map(|&p| ((p >> 32) as u32, p as u32))
    }

    /// The number of words counted (the document's length).
    pub fn words(&self) -> u64 {
        self.words
    }

    /// Whether no word was counted.
    pub fn is_empty(&self) -> bool {
        self.words == 0
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// [`code_words`] composed plainly from [`word_parts`], a buffer per word.
    fn plain_code_words(text: &str) -> Vec<String> {
        let is_word = |c: char| c.is_alphanumeric() || c == '_';
        let mut words = Vec::new();
        for token in text.split(|c: char| !is_word(c)).filter(|t| !t.is_empty()) {
            let mut parts = Vec::new();
            word_parts(token, &mut |p| parts.push(p.to_owned()));
            if parts.len() > 1 {
                parts.push(token.chars().flat_map(char::to_lowercase).collect());
            }
            words.extend(parts);
        }
        words
    }

    fn words_of(text: &str) -> Vec<String> {
        let mut words = Vec::new();
        code_words(text, &mut |w| words.push(w.to_owned()));
        words
    }

    proptest! {
        #[test]
        fn code_words_are_word_parts_and_their_wholes(
            text in "([A-Za-z]{0,9}[_0-9]{0,2}[ .,()\\-]{0,2}){0,30}",
            any in "\\PC{0,120}",
        ) {
            prop_assert_eq!(words_of(&text), plain_code_words(&text));
            prop_assert_eq!(words_of(&any), plain_code_words(&any));
        }

        /// ASCII tokens take a byte-wise path: plural endings, case changes, digits and
        /// `_`, beside letters that are not ASCII (in a token or next to one), split as
        /// [`word_parts`] splits them.
        #[test]
        fn ascii_tokens_split_as_any_token_does(
            text in "([A-Za-z]{0,5}(ies|sses|xes|ches|shes|zes|ss|us|is|s|S|IES)?[_0-9]{0,2}[éÉßİ]{0,1}[A-Z]{0,2}[ .\t-]{0,1}){0,20}",
        ) {
            prop_assert_eq!(words_of(&text), plain_code_words(&text));
        }

        /// The search that starts at a hash's expected place finds what a plain search
        /// finds, for hashes spread evenly or bunched at either end, present or not.
        #[test]
        fn count_finds_every_hash_a_plain_search_finds(
            spread in proptest::collection::btree_map(0u32..1 << TERM_HASH_BITS, 1u32..9, 0..300),
            bunched in proptest::collection::btree_map(0u32..64, 1u32..9, 0..40),
            probes in proptest::collection::vec(0u32..1 << TERM_HASH_BITS, 0..50),
        ) {
            let top = |h: u32| (1 << TERM_HASH_BITS) - 1 - h;
            let high = bunched.iter().map(|(&h, &n)| (top(h), n)).collect();
            for pairs in [spread, high, bunched] {
                let sorted = pairs.iter().map(|(&h, &n)| (h, n)).collect();
                let terms = Terms::from_sorted(sorted, 0).unwrap();
                let hashes = pairs.keys().chain(&probes).copied().chain([0, u32::MAX]);
                for h in hashes {
                    prop_assert_eq!(terms.count(h), pairs.get(&h).copied().unwrap_or(0));
                }
            }
        }
    }

    #[test]
    fn plurals_meet_their_singulars() {
        let mut parts = Vec::new();
        word_parts("classes class entries entry status tables", &mut |p| {
            parts.push(p.to_owned())
        });
        assert_eq!(
            parts,
            ["class", "class", "entry", "entry", "status", "table"]
        );
    }

    #[test]
    fn pairs_round_trip_and_refuse_disorder() {
        let terms = Terms::of_text("alpha beta alpha gamma_delta");
        let back = Terms::from_sorted(terms.pairs().collect(), 0).unwrap();
        assert_eq!(back, terms);
        assert_eq!(terms.words(), 6); // alpha ×2, beta, gamma, delta, gamma_delta
        assert!(Terms::from_sorted(vec![(2, 1), (1, 1)], 0).is_none());
        assert!(Terms::from_sorted(vec![(1, 1), (1, 1)], 0).is_none());
    }

    /// Issue 24: stop words are counted in a file's length but not listed, so a file's
    /// score for any message is what it was with them listed (a message never has them).
    #[test]
    fn stop_words_count_in_the_length_only() {
        let text = "the session and the cookie for this redirect";
        let terms = Terms::of_text(text);
        let mut all = Vec::new();
        code_words(text, &mut |w| all.push(w.to_owned()));
        assert_eq!(terms.words(), all.len() as u64);
        assert_eq!(terms.unlisted(), 5, "the ×2, and, for, this");
        for word in &all {
            let expected = all.iter().filter(|w| *w == word).count() as u32;
            let listed = if is_stop_word(word) { 0 } else { expected };
            assert_eq!(terms.count(term_hash(word)), listed, "{word}");
        }
        let back = Terms::from_sorted(terms.pairs().collect(), terms.unlisted()).unwrap();
        assert_eq!(back, terms);
        assert!(STOP_WORDS.iter().all(|w| is_stop_word(w)));
        assert!(!Terms::of_text("the").is_empty());
    }
}
