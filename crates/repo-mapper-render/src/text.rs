//! Line splitting and blank-line tests, in Python's terms where the Aider dialect needs them
//! (the Python semantics themselves live in [`repo_mapper_tags::pycompat`]).

use std::ops::Range;

use repo_mapper_tags::Dialect;
use repo_mapper_tags::pycompat;

/// Whether `line.strip()` is empty in Python.
pub(crate) fn is_blank(line: &str) -> bool {
    line.chars().all(pycompat::isspace)
}

/// Byte ranges of the lines of `text`, without their terminators.
///
/// [`Dialect::Aider`] splits as Python's `str.splitlines()` (which grep-ast uses): at `\n`,
/// `\r`, `\r\n`, `\v`, `\f`, `\x1c`–`\x1e`, `\x85`, `\u2028` and `\u2029`.
/// [`Dialect::Default`] splits at `\n` only, the one line break tree-sitter counts, so
/// line *i* is always tree row *i*. Both drop the empty piece after a final terminator.
pub(crate) fn split_lines(text: &str, dialect: Dialect) -> Vec<Range<usize>> {
    match dialect {
        Dialect::Aider => pycompat::splitlines_ranges(text),
        Dialect::Default => split_at_newlines(text),
    }
}

/// How many lines [`split_lines`] finds in `text`, without listing them.
pub(crate) fn line_count(text: &str, dialect: Dialect) -> usize {
    match dialect {
        Dialect::Aider => pycompat::splitlines_ranges(text).len(),
        Dialect::Default => {
            let breaks = text.bytes().filter(|&b| b == b'\n').count();
            breaks + usize::from(!text.is_empty() && !text.ends_with('\n'))
        }
    }
}

/// Byte ranges of the lines of `text` split at `\n` only, without the `\n`s and without an
/// empty piece after a final one.
fn split_at_newlines(text: &str) -> Vec<Range<usize>> {
    let mut lines = Vec::with_capacity(text.len() / 32 + 1);
    let bytes = text.as_bytes();
    let mut pos = 0;
    while let Some(off) = bytes[pos..].iter().position(|&b| b == b'\n') {
        lines.push(pos..pos + off);
        pos += off + 1;
    }
    if pos < text.len() {
        lines.push(pos..text.len());
    }
    lines
}

/// `text` cut to its first `max` characters (Python's `line[:max]`, counting code points).
pub(crate) fn truncate_chars(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, dialect: Dialect) -> Vec<&str> {
        split_lines(text, dialect)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn aider_splits_as_python() {
        // The cases themselves are pycompat's; here only that the Aider dialect uses it.
        let text = "a\x0cb\r\nc\u{2028}d\n";
        assert_eq!(
            split(text, Dialect::Aider),
            repo_mapper_tags::pycompat::splitlines(text)
        );
    }

    #[test]
    fn default_splits_at_newline_only() {
        let d = Dialect::Default;
        assert_eq!(split("", d), Vec::<&str>::new());
        assert_eq!(split("\n", d), vec![""]);
        assert_eq!(split("a\x0cb\nc", d), vec!["a\x0cb", "c"]);
        assert_eq!(split("a\n\n", d), vec!["a", ""]);
    }

    #[test]
    fn lines_are_counted_as_split() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\n\n",
            "a\x0cb\r\nc\u{2028}d",
            "\r\r\n\n x",
        ] {
            for dialect in [Dialect::Aider, Dialect::Default] {
                assert_eq!(
                    line_count(text, dialect),
                    split_lines(text, dialect).len(),
                    "{text:?} {dialect:?}"
                );
            }
        }
    }

    #[test]
    fn blank_is_python_strip_empty() {
        assert!(is_blank(""));
        assert!(is_blank(" \t\x0c\x1f\u{3000}"));
        assert!(!is_blank(" x "));
        assert!(
            !is_blank("\u{200b}"),
            "a zero-width space is not whitespace in Python"
        );
    }

    #[test]
    fn truncation_counts_code_points() {
        assert_eq!(truncate_chars("héllo", 2), "hé");
        assert_eq!(truncate_chars("ab", 5), "ab");
        assert_eq!(truncate_chars("│x", 1), "│");
    }
}
