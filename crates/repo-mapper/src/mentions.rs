//! What a user's message mentions: the identifiers and files Aider 0.86.2 derives from the
//! current message before it asks for a map (`Coder.get_repo_map`, combining
//! `get_ident_mentions`, `get_file_mentions` and `get_ident_filename_matches`).
//!
//! Every quirk is Aider's, on purpose, so the `aider` profile ranks what Aider ranks: the
//! identifier split keeps the empty words at either end, a file is mentioned by its whole
//! relative path or by a basename that is unique and looks like a file name (it has a `.`,
//! `_` or `-`), and any identifier of five characters or more mentions every file whose
//! stem it equals, ignoring case. `cargo xtask mentions` checks all three against Aider's
//! own methods on real commit messages (`fixtures/mentions/`).

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use repo_mapper_tags::pycompat::isspace;

use crate::paths::{plain_order, rel_fname, rel_name};

/// The identifiers and files a message mentions (relative paths, `/`-separated as listed).
///
/// ```
/// use repo_mapper::Mentions;
///
/// let files = ["src/billing.py".to_owned(), "src/shop.py".to_owned()];
/// let m = Mentions::from_message("Fix `billing.py`: Invoice totals", &files, &[]);
/// assert!(m.files.contains("src/billing.py"));
/// assert!(m.idents.contains("Invoice"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mentions {
    /// Files mentioned by path or unique basename, and files whose stem is a mentioned
    /// identifier.
    pub files: BTreeSet<String>,
    /// Every word of the message (Aider's `\W+` split, empty words included).
    pub idents: BTreeSet<String>,
}

impl Mentions {
    /// What `message` mentions, given the repository's files (`all_files`, relative to the
    /// root) and those of them in the chat (`chat_files`), as `Coder.get_repo_map` derives
    /// it from the current message. Like Aider, the message is read with the line break
    /// that ends each message of the exchange.
    pub fn from_message(
        message: &str,
        all_files: &[impl AsRef<str>],
        chat_files: &[String],
    ) -> Mentions {
        let text = format!("{message}\n");
        let idents = ident_mentions(&text);
        let mut files = file_mentions(&text, all_files, chat_files);
        files.extend(ident_filename_matches(&idents, all_files));
        Mentions { files, idents }
    }

    /// [`Mentions::from_message`] for absolute paths under `root`, as a
    /// [`MapRequest`](crate::MapRequest) holds them (all files: chat and other files).
    pub fn from_paths(
        message: &str,
        root: &Path,
        chat_files: &[impl AsRef<Path>],
        other_files: &[impl AsRef<Path>],
    ) -> Mentions {
        let chat: Vec<String> = (chat_files.iter())
            .map(|f| rel_fname(root, f.as_ref()))
            .collect();
        // Borrowed from the paths: no copy of every file's name.
        let mut all: Vec<Cow<'_, str>> = (other_files.iter())
            .map(|f| rel_name(root, f.as_ref()))
            .collect();
        // A file listed twice would make its basename look shared; a listing sorted as
        // paths (a walk's) has none twice, and only another is sorted to find repeats.
        if !strictly_ascending(&all) {
            all.sort_unstable();
            all.dedup();
        }
        // The chat files are never mentioned by path or basename, and a stem's match is a
        // set: one of them listed among the other files too changes nothing.
        all.extend(chat.iter().map(|c| Cow::Borrowed(c.as_str())));
        Mentions::from_message(message, &all, &chat)
    }
}

/// Whether each name is below the next as a walk's listing is sorted ([`plain_order`], an
/// order of any names without NUL), so that none is there twice.
fn strictly_ascending(names: &[Cow<'_, str>]) -> bool {
    (names.windows(2)).all(|w| plain_order(Path::new(&*w[0]), Path::new(&*w[1])).is_lt())
}

/// `Coder.get_ident_mentions`: `set(re.split(r"\W+", text))`, with Python's Unicode `\w`
/// (letters, numbers, `_`).
pub fn ident_mentions(text: &str) -> BTreeSet<String> {
    static NON_WORD: OnceLock<Regex> = OnceLock::new();
    let non_word = NON_WORD.get_or_init(|| Regex::new(r"[^\p{L}\p{N}_]+").expect("valid regex"));
    non_word.split(text).map(str::to_owned).collect()
}

/// `Coder.get_file_mentions(text)`: files of `all_files` not in the chat named in `text`
/// by their whole path (either slash) or by a unique, file-like basename that is not the
/// basename of a chat file.
pub fn file_mentions(
    text: &str,
    all_files: &[impl AsRef<str>],
    chat_files: &[String],
) -> BTreeSet<String> {
    let words = Names::new(message_words(text).into_iter().map(Cow::Borrowed));
    let normalized = Names::new(words.iter().map(|w| match w.contains('\\') {
        true => Cow::Owned(w.replace('\\', "/")),
        false => Cow::Borrowed(w),
    }));
    let chat = Names::new(chat_files.iter().map(|f| Cow::Borrowed(f.as_str())));
    let existing: HashSet<&str> = chat_files.iter().map(|f| basename(f)).collect();
    let mut mentioned = BTreeSet::new();
    // Only basenames among the message's words can be mentioned by basename: the others
    // are not counted (a count of one is what matters).
    let mut by_basename: HashMap<&str, Vec<&str>> = HashMap::new();
    let addable = (all_files.iter().map(AsRef::as_ref)).filter(|f| !chat.contains(f));
    for rel in addable {
        let slashed = if rel.contains('\\') {
            Cow::Owned(rel.replace('\\', "/"))
        } else {
            Cow::Borrowed(rel)
        };
        if normalized.contains(slashed.as_ref()) {
            mentioned.insert(rel.to_owned());
        }
        let name = basename(rel);
        if words.contains(name) && name.contains(['/', '\\', '.', '_', '-']) {
            by_basename.entry(name).or_default().push(rel);
        }
    }
    for (name, rels) in by_basename {
        if !existing.contains(name) && rels.len() == 1 {
            mentioned.insert(rels[0].to_owned());
        }
    }
    mentioned
}

/// A few names (a message's words, the chat files) that every file of the repository is
/// looked up in: a name of a length none of them has is turned away unhashed.
struct Names<'n> {
    set: HashSet<Cow<'n, str>>,
    /// A bit per length the names have (lengths of 127 bytes or more share the last).
    lengths: u128,
}

impl<'n> Names<'n> {
    fn new(names: impl Iterator<Item = Cow<'n, str>>) -> Self {
        let set: HashSet<Cow<'n, str>> = names.collect();
        let lengths = set
            .iter()
            .fold(0, |bits, name| bits | length_bit(name.len()));
        Names { set, lengths }
    }

    fn contains(&self, name: &str) -> bool {
        self.has_length(name.len()) && self.set.contains(name)
    }

    /// Whether some name is `len` bytes long (or, past 126, maybe).
    fn has_length(&self, len: usize) -> bool {
        self.lengths & length_bit(len) != 0
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.set.iter().map(|n| n.as_ref())
    }
}

/// [`Names`]' bit for a name of `len` bytes (lengths of 127 bytes or more share the last).
fn length_bit(len: usize) -> u128 {
    1 << len.min(127)
}

/// The words of `get_file_mentions`: split on whitespace, sentence punctuation dropped
/// from the end, then quotes and emphasis from both ends.
fn message_words(text: &str) -> HashSet<&str> {
    text.split(isspace)
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_end_matches([',', '.', '!', ';', ':', '?']))
        .map(|w| w.trim_matches(['"', '\'', '`', '*', '_']))
        .collect()
}

/// `Coder.get_ident_filename_matches`: the files whose stem, lowercased and at least five
/// characters long, equals a mentioned identifier of five characters or more, lowercased.
pub fn ident_filename_matches(
    idents: &BTreeSet<String>,
    all_files: &[impl AsRef<str>],
) -> BTreeSet<String> {
    // The message's few long identifiers are looked up by each file's stem, lowercased in
    // one reused buffer: no table of every file's stem is built.
    let wanted = Names::new(
        (idents.iter())
            .filter(|i| i.chars().count() >= 5)
            .map(|i| Cow::Owned(i.to_lowercase())),
    );
    let mut matches = BTreeSet::new();
    if wanted.set.is_empty() {
        return matches;
    }
    let mut lowered = String::new();
    for rel in all_files.iter().map(AsRef::as_ref) {
        if rel.is_empty() || rel == "." {
            continue;
        }
        let stem = stem(rel);
        if stem.is_ascii() {
            // Lowercasing ASCII keeps the length: most stems have none of the wanted
            // lengths, and are passed over unlowered.
            if !wanted.has_length(stem.len()) {
                continue;
            }
            lowered.clear();
            lowered.push_str(stem);
            lowered.make_ascii_lowercase();
        } else {
            lowered = stem.to_lowercase();
        }
        if lowered.chars().count() >= 5 && wanted.contains(lowered.as_str()) {
            matches.insert(rel.to_owned());
        }
    }
    matches
}

/// `os.path.basename`: what follows the last `/`.
fn basename(rel: &str) -> &str {
    rel.rsplit('/').next().unwrap_or(rel)
}

/// `pathlib.PurePosixPath(rel).stem` (Python 3.11): the last component without its
/// suffix, where a suffix starts at the last `.` that is neither first nor last.
fn stem(rel: &str) -> &str {
    let name = rel.trim_end_matches('/').rsplit('/').next().unwrap_or(rel);
    match name.rfind('.') {
        Some(i) if i > 0 && i < name.len() - 1 => &name[..i],
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn files(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn identifiers_split_on_non_word_characters_keeping_empty_ends() {
        assert_eq!(
            ident_mentions("fix get_user() now\n"),
            set(&["fix", "get_user", "now", ""])
        );
        assert_eq!(ident_mentions("naïve café ②"), set(&["naïve", "café", "②"]));
        assert_eq!(ident_mentions(""), set(&[""]));
    }

    #[test]
    fn files_by_path_or_unique_file_like_basename() {
        let all = files(&[
            "a/util.py",
            "b/util.py",
            "src/shop_cart.rb",
            "tools/make",
            "x/run",
        ]);
        let m = file_mentions("see a/util.py, shop_cart.rb and make run\n", &all, &[]);
        assert_eq!(m, set(&["a/util.py", "src/shop_cart.rb"]));
        // `util.py` names two files: not unique, so no basename mention.
        assert!(file_mentions("util.py", &all, &[]).is_empty());
        // Backslashes in the message match forward slashes.
        assert_eq!(file_mentions("a\\util.py", &all, &[]), set(&["a/util.py"]));
    }

    #[test]
    fn names_longer_than_the_length_bits_are_still_found() {
        // Paths of 127 bytes and more share one length bit: they are looked up by hash.
        let long = format!("{}/x_{}.py", "d".repeat(130), "y".repeat(20));
        let other = format!("{}/x_{}.py", "d".repeat(131), "y".repeat(20));
        let all = files(&[&long, &other, "a/b.py"]);
        let m = file_mentions(&format!("see {long} and b.py\n"), &all, &[]);
        assert_eq!(m, set(&[&long, "a/b.py"]));
    }

    #[test]
    fn quotes_and_sentence_punctuation_are_stripped() {
        let all = files(&["src/shop_cart.rb"]);
        for text in [
            "`shop_cart.rb`.",
            "\"src/shop_cart.rb\"!",
            "**shop_cart.rb**:",
        ] {
            assert_eq!(
                file_mentions(text, &all, &[]),
                set(&["src/shop_cart.rb"]),
                "{text}"
            );
        }
        assert!(file_mentions("(shop_cart.rb)", &all, &[]).is_empty());
    }

    #[test]
    fn chat_files_and_their_basenames_are_not_mentioned() {
        let all = files(&["a/models.py", "b/models.py", "c/views.py"]);
        let chat = files(&["a/models.py"]);
        assert!(file_mentions("a/models.py", &all, &chat).is_empty());
        // b/models.py is the only addable `models.py`, but a chat file has that basename.
        assert!(file_mentions("models.py", &all, &chat).is_empty());
        assert_eq!(file_mentions("views.py", &all, &chat), set(&["c/views.py"]));
    }

    /// A file listed twice is one file, whether the listing is sorted as a walk's or not;
    /// a chat file listed among the other files too is still no mention.
    #[test]
    fn a_file_listed_twice_is_one_file() {
        let root = Path::new("/r");
        let paths = |names: &[&str]| -> Vec<std::path::PathBuf> {
            names.iter().map(|n| root.join(n)).collect()
        };
        let mentioned = |chat: &[&str], other: &[&str]| {
            Mentions::from_paths("fix x_y.py and ab.py", root, &paths(chat), &paths(other)).files
        };
        let once = set(&["a/x_y.py"]);
        assert_eq!(mentioned(&[], &["a/x_y.py", "b/c.py"]), once);
        assert_eq!(mentioned(&[], &["a/x_y.py", "a/x_y.py", "b/c.py"]), once);
        assert_eq!(
            mentioned(&[], &["b/c.py", "a/x_y.py", "b/c.py", "a/x_y.py"]),
            once
        );
        assert_eq!(mentioned(&["a/x_y.py"], &["a/x_y.py", "b/c.py"]), set(&[]));
        assert_eq!(
            mentioned(&["c/ab.py"], &["a/x_y.py", "c/ab.py", "d/ab.py"]),
            once,
            "a chat file's basename is no mention of another file"
        );
    }

    #[test]
    fn identifiers_of_five_characters_match_stems_ignoring_case() {
        let all = files(&["src/Router.ts", "lib/router/index.js", "a/main.py", ".env"]);
        // `main` is too short; `router` is no stem of `lib/router/index.js`.
        let idents = set(&["router", "Main", "main"]);
        assert_eq!(
            ident_filename_matches(&idents, &all),
            set(&["src/Router.ts"])
        );
        let short = files(&["a/main.py"]);
        assert!(ident_filename_matches(&set(&["main"]), &short).is_empty());
    }

    /// `get_ident_filename_matches` as Aider writes it: a table of every file's
    /// lowercased stem, looked up by each long identifier.
    fn ident_filename_matches_by_table(
        idents: &BTreeSet<String>,
        all_files: &[String],
    ) -> BTreeSet<String> {
        let mut by_stem: HashMap<String, Vec<&str>> = HashMap::new();
        for rel in all_files.iter().filter(|r| !r.is_empty() && *r != ".") {
            let stem = stem(rel).to_lowercase();
            if stem.chars().count() >= 5 {
                by_stem.entry(stem).or_default().push(rel);
            }
        }
        (idents.iter().filter(|i| i.chars().count() >= 5))
            .filter_map(|i| by_stem.get(&i.to_lowercase()))
            .flatten()
            .map(|r| (*r).to_owned())
            .collect()
    }

    proptest::proptest! {
        /// Case folding that changes a name's length (`İ`, `ẞ`, the Kelvin sign), stems
        /// of three to six characters, names with directories and suffixes made of the
        /// identifiers' own words: the stems looked up one by one match what the table
        /// gives.
        #[test]
        fn identifier_stem_matches_equal_the_table_of_stems(
            words in proptest::collection::vec("[a-cA-CİẞK]{3,6}", 1..5),
            ident_picks in proptest::collection::vec((0..5usize, proptest::bool::ANY), 0..5),
            name_picks in proptest::collection::vec((0..5usize, 0..3usize, 0..3usize), 0..12),
        ) {
            let word = |i: usize| &words[i % words.len()];
            let idents: BTreeSet<String> = (ident_picks.iter())
                .map(|&(i, upper)| if upper { word(i).to_uppercase() } else { word(i).clone() })
                .collect();
            let (dirs, suffixes) = (["", "a/", "b/c/"], ["", ".py", ".tar.gz"]);
            let names: Vec<String> = (name_picks.iter())
                .map(|&(i, d, e)| format!("{}{}{}", dirs[d], word(i), suffixes[e]))
                .collect();
            proptest::prop_assert_eq!(
                ident_filename_matches(&idents, &names),
                ident_filename_matches_by_table(&idents, &names)
            );
        }
    }

    #[test]
    fn stems_follow_pathlib() {
        assert_eq!(stem("a/b.tar.gz"), "b.tar");
        assert_eq!(stem(".bashrc"), ".bashrc");
        assert_eq!(stem("dir/name."), "name.");
        assert_eq!(stem("Makefile"), "Makefile");
    }

    #[test]
    fn the_message_combines_all_three() {
        let all = files(&["app/billing.py", "app/shop.py", "app/checkout_flow.py"]);
        let m = Mentions::from_message("Billing breaks in checkout_flow.py", &all, &[]);
        assert_eq!(m.files, set(&["app/billing.py", "app/checkout_flow.py"]));
        assert!(m.idents.contains("Billing") && m.idents.contains(""));
    }
}
