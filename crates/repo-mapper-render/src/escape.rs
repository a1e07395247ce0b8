//! Control characters in names shown to people, escaped: a file name stays on one line of
//! the map (or of a diagnostic) and cannot drive the terminal it is printed on.

use std::borrow::Cow;
use std::fmt::Write;

/// `s` with every control character ([`char::is_control`]: U+0000–U+001F and
/// U+007F–U+009F) escaped as [`push_escaped`] does; borrowed, unchanged, when it has none.
///
/// Backslashes are left alone, so a name without control characters prints exactly as
/// before (and as Aider prints it).
///
/// ```
/// use repo_mapper_render::escape_control;
///
/// assert_eq!(escape_control("a\nb\x1b[31m.py"), "a\\nb\\x1b[31m.py");
/// assert_eq!(escape_control("plain/name.py"), "plain/name.py");
/// ```
pub fn escape_control(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Appends `c` to `out`, escaped if it is a control character: `\n`, `\r` and `\t` as
/// such, the rest of C0 and DEL as `\xNN` (ESC is `\x1b`), C1 as `\u{NN}`.
pub fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if c.is_control() && c.is_ascii() => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c if c.is_control() => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
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
