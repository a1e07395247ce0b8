//! Line splitting and blank-line tests, in Python's terms where the Aider dialect needs them.

use std::ops::Range;

use repo_mapper_tags::Dialect;

/// Whether `c` ends a line for Python's `str.splitlines` (`\r\n` counts once; the caller
/// handles the pair).
fn is_python_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Python's `str.isspace` for one character: Rust's `char::is_whitespace` plus the four
/// information separators `\x1c`–`\x1f` (bidirectional class B or S in Unicode).
pub(crate) fn is_python_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Whether `line.strip()` is empty in Python.
pub(crate) fn is_blank(line: &str) -> bool {
    line.chars().all(is_python_space)
}

/// Byte ranges of the lines of `text`, without their terminators.
///
/// [`Dialect::Aider`] splits as Python's `str.splitlines()` (which grep-ast uses): at `\n`,
/// `\r`, `\r\n`, `\v`, `\f`, `\x1c`–`\x1e`, `\x85`, `\u2028` and `\u2029`.
/// [`Dialect::Default`] splits at `\n` only, the one line break tree-sitter counts, so
/// line *i* is always tree row *i*. Both drop the empty piece after a final terminator.
pub(crate) fn split_lines(text: &str, dialect: Dialect) -> Vec<Range<usize>> {
    let mut lines = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    match dialect {
        Dialect::Default => {
            let bytes = text.as_bytes();
            let mut pos = 0;
            while let Some(off) = bytes[pos..].iter().position(|&b| b == b'\n') {
                lines.push(pos..pos + off);
                pos += off + 1;
            }
            start = pos;
        }
        Dialect::Aider => {
            let mut iter = text.char_indices().peekable();
            while let Some((i, c)) = iter.next() {
                if is_python_line_break(c) {
                    lines.push(start..i);
                    start = i + c.len_utf8();
                    if c == '\r' && iter.peek().is_some_and(|&(_, n)| n == '\n') {
                        iter.next();
                        start += 1;
                    }
                }
            }
        }
    }
    if start < text.len() {
        lines.push(start..text.len());
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
    fn splitlines_like_python() {
        let a = Dialect::Aider;
        assert_eq!(split("", a), Vec::<&str>::new());
        assert_eq!(split("\n", a), vec![""]);
        assert_eq!(split("a\n", a), vec!["a"]);
        assert_eq!(split("a", a), vec!["a"]);
        assert_eq!(split("a\n\nb", a), vec!["a", "", "b"]);
        assert_eq!(split("a\r\nb\rc\n", a), vec!["a", "b", "c"]);
        assert_eq!(
            split(
                "a\x0cb\x0bc\u{85}d\u{2028}e\u{2029}f\x1cg\x1dh\x1ei\x1fj",
                a
            ),
            vec!["a", "b", "c", "d", "e", "f", "g", "h", "i\x1fj"]
        );
        assert_eq!(split("x\r\r\n", a), vec!["x", ""]);
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
    fn python_isspace() {
        // Every code point Python 3.11's str.isspace() accepts.
        let python: Vec<u32> = vec![
            0x9, 0xa, 0xb, 0xc, 0xd, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0, 0x1680, 0x2000,
            0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x2028,
            0x2029, 0x202f, 0x205f, 0x3000,
        ];
        let ours: Vec<u32> = (0..=0x10ffff_u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_python_space(c))
            .map(u32::from)
            .collect();
        assert_eq!(ours, python);
    }

    #[test]
    fn truncation_counts_code_points() {
        assert_eq!(truncate_chars("héllo", 2), "hé");
        assert_eq!(truncate_chars("ab", 5), "ab");
        assert_eq!(truncate_chars("│x", 1), "│");
    }
}
