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
    let mut part = String::new();
    let mut flush = |part: &mut String| {
        singular(part);
        if part.chars().count() >= 3 {
            f(part);
        }
        part.clear();
    };
    let mut prev: Option<char> = None;
    for c in text.chars() {
        let camel_hump = c.is_uppercase() && prev.is_some_and(char::is_lowercase);
        if !c.is_alphabetic() || camel_hump {
            flush(&mut part);
        }
        if c.is_alphabetic() {
            part.extend(c.to_lowercase());
        }
        prev = Some(c);
    }
    flush(&mut part);
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
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut whole = String::new();
    for token in text.split(|c: char| !is_word(c)).filter(|t| !t.is_empty()) {
        let mut parts = 0;
        word_parts(token, &mut |p| {
            parts += 1;
            f(p);
        });
        if parts > 1 {
            whole.clear();
            whole.extend(token.chars().flat_map(char::to_lowercase));
            f(&whole);
        }
    }
}

/// English plurals made singular, roughly (`classes` → `class`, `entries` → `entry`,
/// `tables` → `table`; `status`, `class` unchanged), so either form matches the other.
fn singular(word: &mut String) {
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

/// The bits of a [`term_hash`]: 2²⁴ hashes, so that a file's sorted hashes are stored in
/// about two bytes each, Rice coded (the Linux tree's million-odd distinct words share few of
/// them; 20 bits measured the same on `cargo xtask relevance`, but would share many
/// there).
pub const TERM_HASH_BITS: u32 = 24;

/// The hash a code word is counted under: FNV-1a over its bytes, folded to
/// [`TERM_HASH_BITS`] bits (stable across runs and platforms; two words sharing one hash
/// count as one).
pub fn term_hash(word: &str) -> u32 {
    let h = word.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let folded = h ^ (h >> TERM_HASH_BITS) ^ (h >> (2 * TERM_HASH_BITS));
    (folded & ((1 << TERM_HASH_BITS) - 1)) as u32
}

/// A file's code words counted by hash: `(hash, count)` pairs sorted by hash, packed in
/// one allocation. Empty for files not read as text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Terms {
    /// `hash << 32 | count`, ascending.
    packed: Box<[u64]>,
    /// The sum of the counts, kept: a ranking with a message reads every file's.
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
    /// ```
    pub fn of_text(text: &str) -> Terms {
        let mut hashes = Vec::new();
        code_words(text, &mut |w| hashes.push(term_hash(w)));
        hashes.sort_unstable();
        let mut pairs: Vec<(u32, u32)> = Vec::new();
        for h in hashes {
            match pairs.last_mut() {
                Some((last, n)) if *last == h => *n = n.saturating_add(1),
                _ => pairs.push((h, 1)),
            }
        }
        Terms::from_pairs(pairs)
    }

    /// From `(hash, count)` pairs sorted by hash, each hash once (as [`Terms::pairs`]
    /// gives them back); `None` if they are not.
    pub fn from_sorted(pairs: Vec<(u32, u32)>) -> Option<Terms> {
        pairs
            .windows(2)
            .all(|w| w[0].0 < w[1].0)
            .then(|| Terms::from_pairs(pairs))
    }

    fn from_pairs(pairs: Vec<(u32, u32)>) -> Terms {
        let packed = pairs
            .into_iter()
            .map(|(h, n)| u64::from(h) << 32 | u64::from(n))
            .collect::<Box<[u64]>>();
        let words = packed.iter().map(|&p| u64::from(p as u32)).sum();
        Terms { packed, words }
    }

    /// How many times words of hash `hash` occur.
    pub fn count(&self, hash: u32) -> u32 {
        let key = u64::from(hash) << 32;
        let at = self.packed.partition_point(|&p| p < key);
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
        self.packed.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let back = Terms::from_sorted(terms.pairs().collect()).unwrap();
        assert_eq!(back, terms);
        assert_eq!(terms.words(), 6); // alpha ×2, beta, gamma, delta, gamma_delta
        assert!(Terms::from_sorted(vec![(2, 1), (1, 1)]).is_none());
        assert!(Terms::from_sorted(vec![(1, 1), (1, 1)]).is_none());
    }
}
