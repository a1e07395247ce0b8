//! Python's string and path functions, where repo-mapper must cut text as Aider (Python)
//! does: one home for each, shared by the tags, rendering and facade crates.
//!
//! Each function names the Python it reproduces; the tests hold cases checked against
//! CPython 3.11. Available without the `extract` feature.
//!
//! ```
//! use repo_mapper_tags::pycompat::{splitext, splitlines, splitlines_keepends};
//!
//! assert_eq!(splitext("src/archive.tar.gz"), ("src/archive.tar", ".gz"));
//! assert_eq!(splitext(".bashrc"), (".bashrc", ""));
//! assert_eq!(splitlines("a\r\nb\x0cc\n"), ["a", "b", "c"]);
//! assert_eq!(splitlines_keepends("a\r\nb\x0cc\n"), ["a\r\n", "b\x0c", "c\n"]);
//! ```

use std::ops::Range;

/// Python's `os.path.splitext` (POSIX): `path` split into root and extension, `root + ext
/// == path`. The extension runs from the last dot of the last path component, unless every
/// character before that dot in the component is a dot too (`.bashrc` and `..sh` have
/// none); without one it is `""`.
pub fn splitext(path: &str) -> (&str, &str) {
    let name_start = path.rfind('/').map_or(0, |sep| sep + 1);
    let name = &path[name_start..];
    match name.rfind('.') {
        Some(dot) if name[..dot].bytes().any(|b| b != b'.') => path.split_at(name_start + dot),
        _ => (path, ""),
    }
}

/// Whether `c` ends a line for Python's `str.splitlines`: `\n`, `\r` (`\r\n` counts as one
/// break), `\v`, `\f`, `\x1c`, `\x1d`, `\x1e`, `\x85`, `\u2028` and `\u2029`.
fn is_line_break(c: char) -> bool {
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

/// The lines of `text` as Python's `str.splitlines` cuts them: for each, the byte range of
/// its content and the byte offset just past its line break (the range's end when the last
/// line has none). No piece follows a final line break.
fn line_spans(text: &str) -> impl Iterator<Item = (Range<usize>, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    let mut start = 0;
    std::iter::from_fn(move || {
        while let Some((i, c)) = chars.next() {
            if !is_line_break(c) {
                continue;
            }
            let mut next = i + c.len_utf8();
            if c == '\r' && chars.next_if(|&(_, n)| n == '\n').is_some() {
                next += 1;
            }
            let line = (start..i, next);
            start = next;
            return Some(line);
        }
        (start < text.len()).then(|| {
            let line = (start..text.len(), text.len());
            start = text.len();
            line
        })
    })
}

/// Python's `str.splitlines()` (`keepends=False`): the lines of `text` without their line
/// breaks (see [`splitlines_keepends`] for what breaks a line). `""` has no lines, and no
/// empty line follows a final line break.
pub fn splitlines(text: &str) -> Vec<&str> {
    line_spans(text).map(|(line, _)| &text[line]).collect()
}

/// The byte ranges in `text` of the lines [`splitlines`] returns, for callers that keep
/// offsets into the text rather than slices of it.
pub fn splitlines_ranges(text: &str) -> Vec<Range<usize>> {
    let mut lines = Vec::with_capacity(text.len() / 32 + 1);
    lines.extend(line_spans(text).map(|(line, _)| line));
    lines
}

/// Python's `str.splitlines(keepends=True)`: the lines of `text`, each with its line break.
/// Lines end at `\n`, `\r\n`, `\r`, `\v`, `\f`, `\x1c`, `\x1d`, `\x1e`, `\x85`, `\u2028`
/// and `\u2029`; the pieces concatenate to `text`.
pub fn splitlines_keepends(text: &str) -> Vec<&str> {
    line_spans(text)
        .map(|(line, next)| &text[line.start..next])
        .collect()
}

/// Python's `str.isspace` for one character: Rust's [`char::is_whitespace`] plus the four
/// information separators `\x1c`–`\x1f` (bidirectional class B or S in Unicode).
pub fn isspace(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{1c}'..='\u{1f}')
}

/// Python's universal-newline translation (reading a text file with `newline=None`):
/// `\r\n` and lone `\r` become `\n`.
pub fn normalize_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' {
            chars.next_if_eq(&'\n');
            out.push('\n');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(text, text.splitlines(), text.splitlines(keepends=True))`, from CPython 3.11.
    const SPLITLINES: &[(&str, &[&str], &[&str])] = &[
        ("", &[], &[]),
        ("a", &["a"], &["a"]),
        ("a\n", &["a"], &["a\n"]),
        ("\n", &[""], &["\n"]),
        ("\n\n", &["", ""], &["\n", "\n"]),
        (
            "a\nb\r\nc\rd",
            &["a", "b", "c", "d"],
            &["a\n", "b\r\n", "c\r", "d"],
        ),
        (
            "x\u{2028}y\u{85}\n",
            &["x", "y", ""],
            &["x\u{2028}", "y\u{85}", "\n"],
        ),
        ("a\r\r\nb", &["a", "", "b"], &["a\r", "\r\n", "b"]),
        ("x\r\r\n", &["x", ""], &["x\r", "\r\n"]),
        ("\r", &[""], &["\r"]),
        ("\r\n", &[""], &["\r\n"]),
        ("\n\r", &["", ""], &["\n", "\r"]),
        (
            "a\x0cb\x0bc\u{85}d\u{2028}e\u{2029}f\x1cg\x1dh\x1ei\x1fj",
            &["a", "b", "c", "d", "e", "f", "g", "h", "i\x1fj"],
            &[
                "a\x0c",
                "b\x0b",
                "c\u{85}",
                "d\u{2028}",
                "e\u{2029}",
                "f\x1c",
                "g\x1d",
                "h\x1e",
                "i\x1fj",
            ],
        ),
        (
            "tab\tsep\u{a0}nbsp",
            &["tab\tsep\u{a0}nbsp"],
            &["tab\tsep\u{a0}nbsp"],
        ),
        ("end\u{2029}", &["end"], &["end\u{2029}"]),
        (
            "\u{e9}\r\n\u{fc}\n\n",
            &["\u{e9}", "\u{fc}", ""],
            &["\u{e9}\r\n", "\u{fc}\n", "\n"],
        ),
    ];

    #[test]
    fn splitlines_as_python() {
        for &(text, lines, with_ends) in SPLITLINES {
            assert_eq!(splitlines(text), lines, "{text:?}");
            assert_eq!(splitlines_keepends(text), with_ends, "{text:?}");
            let ranges: Vec<&str> = splitlines_ranges(text)
                .into_iter()
                .map(|r| &text[r])
                .collect();
            assert_eq!(ranges, lines, "{text:?}");
            assert_eq!(splitlines_keepends(text).concat(), text);
        }
    }

    // Moved from the render crate's `text.rs` (its Aider dialect split) and the facade's
    // `tokens.rs` (`python_splitlines_keepends`).
    #[test]
    fn splitlines_like_python() {
        assert_eq!(splitlines(""), Vec::<&str>::new());
        assert_eq!(splitlines("\n"), vec![""]);
        assert_eq!(splitlines("a\n"), vec!["a"]);
        assert_eq!(splitlines("a"), vec!["a"]);
        assert_eq!(splitlines("a\n\nb"), vec!["a", "", "b"]);
        assert_eq!(splitlines("a\r\nb\rc\n"), vec!["a", "b", "c"]);
        assert_eq!(
            splitlines("a\x0cb\x0bc\u{85}d\u{2028}e\u{2029}f\x1cg\x1dh\x1ei\x1fj"),
            vec!["a", "b", "c", "d", "e", "f", "g", "h", "i\x1fj"]
        );
        assert_eq!(splitlines("x\r\r\n"), vec!["x", ""]);
    }

    #[test]
    fn splitlines_keepends_matches_python() {
        assert_eq!(splitlines_keepends(""), Vec::<&str>::new());
        assert_eq!(splitlines_keepends("a"), ["a"]);
        assert_eq!(
            splitlines_keepends("a\nb\r\nc\rd"),
            ["a\n", "b\r\n", "c\r", "d"]
        );
        assert_eq!(
            splitlines_keepends("x\u{2028}y\u{85}\n"),
            ["x\u{2028}", "y\u{85}", "\n"]
        );
        assert_eq!(splitlines_keepends("\n\n"), ["\n", "\n"]);
    }

    /// `(path, os.path.splitext(path))`, from CPython 3.11's `posixpath`.
    const SPLITEXT: &[(&str, (&str, &str))] = &[
        ("", ("", "")),
        ("a", ("a", "")),
        ("a.py", ("a", ".py")),
        ("archive.tar.gz", ("archive.tar", ".gz")),
        (".bashrc", (".bashrc", "")),
        ("..sh", ("..sh", "")),
        ("a..sh", ("a.", ".sh")),
        ("...", ("...", "")),
        ("..a.b", ("..a", ".b")),
        ("a.", ("a", ".")),
        (".a.", (".a", ".")),
        ("dir.py/noext", ("dir.py/noext", "")),
        ("dir/.hidden", ("dir/.hidden", "")),
        ("dir/x.rs", ("dir/x", ".rs")),
        ("/", ("/", "")),
        ("a/b.c/d", ("a/b.c/d", "")),
        ("a/b.c/.d.e", ("a/b.c/.d", ".e")),
        ("Main.PY", ("Main", ".PY")),
        ("x.tsx", ("x", ".tsx")),
        ("./a", ("./a", "")),
        ("a/.", ("a/.", "")),
        ("a/..", ("a/..", "")),
        ("CMakeLists.txt", ("CMakeLists", ".txt")),
        ("\u{e9}.\u{fc}", ("\u{e9}", ".\u{fc}")),
    ];

    #[test]
    fn splitext_as_python() {
        for &(path, split) in SPLITEXT {
            assert_eq!(splitext(path), split, "{path:?}");
        }
    }

    // Moved from the ranking crate's `splitext_stem` tests.
    #[test]
    fn splitext_stem_keeps_leading_dots() {
        assert_eq!(splitext("..a.b").0, "..a");
        assert_eq!(splitext("...").0, "...");
        assert_eq!(splitext("a.").0, "a");
    }

    // Moved from the render crate's `text.rs`.
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
            .filter(|&c| isspace(c))
            .map(u32::from)
            .collect();
        assert_eq!(ours, python);
    }

    #[test]
    fn universal_newlines() {
        // Moved from `extract.rs`.
        assert_eq!(normalize_newlines("a\r\nb\rc\n\r".into()), "a\nb\nc\n\n");
        assert_eq!(normalize_newlines("plain\n".into()), "plain\n");
        // `io.TextIOWrapper(io.BytesIO(b), encoding="utf-8", newline=None).read()`,
        // CPython 3.11.
        let python = [
            ("\r\r\n\n", "\n\n\n"),
            ("\r", "\n"),
            ("x\r\n\r\ny", "x\n\ny"),
            ("\u{e9}\r\u{fc}", "\u{e9}\n\u{fc}"),
            ("\n\r\n", "\n\n"),
        ];
        for (text, want) in python {
            assert_eq!(normalize_newlines(text.to_owned()), want, "{text:?}");
        }
    }
}
