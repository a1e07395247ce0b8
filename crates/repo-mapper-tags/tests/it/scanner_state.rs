//! A scanner state too large for tree-sitter's 1,024-byte buffer must not abort the process
//! (issue 12, found by `cargo xtask fuzz`): Python's scanner writes its indentation stack
//! two bytes at a time and, with a string open, reported 1,025 bytes at ~510 levels, on
//! which tree-sitter's assertion killed the whole map, in release builds too.

use std::path::Path;
use std::sync::Arc;

use repo_mapper_tags::{Dialect, Language, Limits, TagKind, extract_source_within, parse_within};

/// `levels` nested Python functions, an f-string at the bottom.
fn deep_python(levels: usize) -> String {
    let mut src = String::new();
    for i in 0..levels {
        src.push_str(&" ".repeat(i));
        src.push_str(&format!("def f{i}():\n"));
    }
    src.push_str(&" ".repeat(levels));
    src.push_str("return f\"{x} and {y}\"\n");
    src
}

#[test]
fn python_indentation_deeper_than_the_scanner_buffer_does_not_abort() {
    let src = deep_python(600);
    for dialect in [Dialect::Default, Dialect::Aider] {
        let out = extract_source_within(
            Language::Python,
            &src,
            Arc::from("deep.py"),
            Arc::from(Path::new("/r/deep.py")),
            dialect,
            &Limits::default(),
        );
        // The dropped state makes the scanner start over mid-file, so what the parse
        // recovers is tree-sitter's business; what matters is that the process lives.
        assert_eq!(out.cut_short, None, "{dialect:?}");
    }
    let tree = parse_within(Language::Python, &src, &Limits::default()).expect("parses");
    assert_eq!(tree.root_node().end_byte(), src.len());
}

#[test]
fn states_that_fit_pass_through_unchanged() {
    let src = deep_python(400); // 800 bytes of indentation state: within the buffer
    let tree = parse_within(Language::Python, &src, &Limits::default()).expect("parses");
    assert!(!tree.root_node().has_error());
    let out = extract_source_within(
        Language::Python,
        &src,
        Arc::from("deep.py"),
        Arc::from(Path::new("/r/deep.py")),
        Dialect::Default,
        &Limits::default(),
    );
    let defs = out.tags.iter().filter(|t| t.kind == TagKind::Def).count();
    assert_eq!(defs, 400);
}
