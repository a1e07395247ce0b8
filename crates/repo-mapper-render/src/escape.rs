//! Control characters in names shown to people, escaped: a file name stays on one line of
//! the map (or of a diagnostic) and cannot drive the terminal it is printed on. Invisible
//! format characters are escaped too, bidirectional overrides among them: a name cannot
//! show its text in another order than it has (Trojan Source, CVE-2021-42574).

use std::borrow::Cow;
use std::fmt::Write;

/// `s` with every control character ([`char::is_control`]: U+0000–U+001F and
/// U+007F–U+009F) and every invisible format character ([`is_hidden_format`]) escaped as
/// [`push_escaped`] does; borrowed, unchanged, when it has none.
///
/// Backslashes are left alone, so a name without control characters prints exactly as
/// before (and as Aider prints it).
///
/// ```
/// use repo_mapper_render::escape_control;
///
/// assert_eq!(escape_control("a\nb\x1b[31m.py"), "a\\nb\\x1b[31m.py");
/// assert_eq!(escape_control("plain/name.py"), "plain/name.py");
/// assert_eq!(escape_control("rtl_\u{202e}yp.txt.py"), "rtl_\\u{202e}yp.txt.py");
/// ```
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_escaped) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c` to `out`, escaped if it is a control character or an invisible format
/// character: `\n`, `\r` and `\t` as such, the rest of C0 and DEL as `\xNN` (ESC is
/// `\x1b`), C1 and format characters as `\u{NN}`.
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() && c.is_ascii() => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if is_escaped(c) => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

/// Whether [`push_escaped`] escapes `c`.
fn is_escaped(c: char) -> bool {
    c.is_control() || is_hidden_format(c)
}

/// Unicode's format characters (general category Cf, Unicode 15.1), which change how
/// the text around them shows without showing themselves: the bidirectional embeddings,
/// overrides, isolates and marks, zero-width spaces, the byte-order mark, the tag
/// characters. Only the zero-width joiner and non-joiner are left out, which names
/// written in Persian or Indic scripts, and emoji, need in order to show as written.
pub fn is_hidden_format(c: char) -> bool {
    /// Cf's ranges, inclusive, but for U+200C and U+200D.
    const RANGES: [(u32, u32); 22] = [
        (0x00AD, 0x00AD),
        (0x0600, 0x0605),
        (0x061C, 0x061C),
        (0x06DD, 0x06DD),
        (0x070F, 0x070F),
        (0x0890, 0x0891),
        (0x08E2, 0x08E2),
        (0x180E, 0x180E),
        (0x200B, 0x200B),
        (0x200E, 0x200F),
        (0x202A, 0x202E),
        (0x2060, 0x2064),
        (0x2066, 0x206F),
        (0xFEFF, 0xFEFF),
        (0xFFF9, 0xFFFB),
        (0x110BD, 0x110BD),
        (0x110CD, 0x110CD),
        (0x13430, 0x1343F),
        (0x1BCA0, 0x1BCA3),
        (0x1D173, 0x1D17A),
        (0xE0001, 0xE0001),
        (0xE0020, 0xE007F),
    ];
    let c = u32::from(c);
    c >= 0xAD && RANGES.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::Arc;

    use super::*;
    use crate::{MapItem, Renderer};
    use repo_mapper_tags::{Dialect, Tag, TagKind};

    #[test]
    fn every_control_character_is_escaped() {
        assert_eq!(
            escape_control("\t\r\n\0\x07\x7f"),
            "\\t\\r\\n\\x00\\x07\\x7f"
        );
        assert_eq!(escape_control("\u{85}\u{9b}x"), "\\u{85}\\u{9b}x");
        let all: String = (0..=0x10ffff).filter_map(char::from_u32).collect();
        assert!(!escape_control(&all).chars().any(char::is_control));
    }

    /// Bidirectional controls (Trojan Source) and the other invisible format characters
    /// come out as escapes; the joiners that scripts and emoji need stay as they are.
    #[test]
    fn bidi_and_invisible_format_characters_are_escaped() {
        assert_eq!(
            escape_control("rtl_\u{202e}yp.txt.py"),
            "rtl_\\u{202e}yp.txt.py"
        );
        let hidden = [
            '\u{200b}',
            '\u{200e}',
            '\u{200f}',
            '\u{202a}',
            '\u{202b}',
            '\u{202c}',
            '\u{202d}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{061c}',
            '\u{feff}',
            '\u{e0041}',
        ];
        for c in hidden {
            let escaped = escape_control(&format!("a{c}b")).into_owned();
            assert_eq!(escaped, format!("a\\u{{{:x}}}b", u32::from(c)));
        }
        for kept in ["\u{200c}", "\u{200d}", "👩\u{200d}💻.py", "é/ü.rs"] {
            assert!(matches!(escape_control(kept), Cow::Borrowed(_)), "{kept:?}");
        }
        let all: String = (0..=0x10ffff).filter_map(char::from_u32).collect();
        assert!(!escape_control(&all).chars().any(is_hidden_format));
    }

    #[test]
    fn names_without_control_characters_are_borrowed() {
        for name in ["", "a\\nb.py", "é/ü.rs", "\u{2028}"] {
            assert!(matches!(escape_control(name), Cow::Borrowed(n) if n == name));
        }
    }

    #[test]
    fn to_tree_escapes_bare_file_names_in_both_dialects() {
        let items = [MapItem::File("a\nb.py"), MapItem::File("c\x1b[2Jd.txt")];
        for dialect in [Dialect::Aider, Dialect::Default] {
            let text = Renderer::new(dialect).to_tree(&items, &HashSet::<String>::new());
            assert_eq!(text, "\na\\nb.py\n\nc\\x1b[2Jd.txt\n", "{dialect:?}");
        }
    }

    #[test]
    fn to_tree_escapes_the_header_of_a_file_with_tags() {
        let dir = tempfile::tempdir().unwrap();
        let rel = "x\ny\x1b.py";
        let fname = dir.path().join(rel);
        std::fs::write(&fname, "def f():\n    pass\n").unwrap();
        let tag = Tag {
            rel_fname: Arc::from(rel),
            fname: Arc::from(fname.as_path()),
            line: 1,
            name: "f".to_owned(),
            kind: TagKind::Def,
            sub_kind: "function",
        };
        let items = [MapItem::Tag(&tag)];
        for dialect in [Dialect::Aider, Dialect::Default] {
            let text = Renderer::new(dialect).to_tree(&items, &HashSet::<String>::new());
            assert!(text.starts_with("\nx\\ny\\x1b.py:\n│def f():"), "{text:?}");
        }
    }
}
