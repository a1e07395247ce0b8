//! A match of more captures than tree-sitter's query cursor can count (issue 23): its
//! 12-bit consumed-capture count wraps and the cursor delivers the match's first captures
//! again, for ever, so a file ran to its deadline (10 s by default) and lost every tag
//! after the match. Extraction drops such a match once it wraps and goes on: the file ends
//! as soon as the query does, keeps its other tags, and counts as cut short.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use repo_mapper_tags::{
    CutShort, Dialect, Extraction, Language, Limits, TagKind, extract_source_within,
};

/// Attributes in the `locals` block: two captures each (`@name.definition.local`,
/// `@definition.local`) in one match, past the 4,095 the cursor can count.
const ATTRIBUTES: usize = 2_100;

/// A bound the query never needs: before the fix, the query ran into it.
const NEVER: Duration = Duration::from_secs(60);

/// A `variable` block, a `locals` block of `attributes` attributes, another `variable`.
fn source(attributes: usize) -> String {
    let mut s = String::from("variable \"before\" {\n  type = string\n}\n\nlocals {\n");
    for i in 0..attributes {
        s.push_str(&format!("  local_{i} = {i}\n"));
    }
    s.push_str("}\n\nvariable \"after\" {\n  type = string\n}\n");
    s
}

fn extract(src: &str, dialect: Dialect) -> Extraction {
    extract_source_within(
        Language::Hcl,
        src,
        Arc::from("main.tf"),
        Arc::from(Path::new("/r/main.tf")),
        dialect,
        &Limits::new(NEVER),
    )
}

#[test]
fn a_match_that_wraps_the_capture_count_is_dropped_and_the_query_goes_on() {
    let src = source(ATTRIBUTES);
    let last_local = format!("local_{}", ATTRIBUTES - 1);
    for dialect in [Dialect::Default, Dialect::Aider] {
        let out = extract(&src, dialect);
        let defs = |sub_kind: &str| -> Vec<&str> {
            let tags = out.tags.iter();
            tags.filter(|t| t.kind == TagKind::Def && t.sub_kind == sub_kind)
                .map(|t| t.name.as_str())
                .collect()
        };
        assert_eq!(out.cut_short, Some(CutShort::Query), "{dialect:?}");
        let variables = defs("variable");
        assert!(variables.contains(&"before"), "{dialect:?}: {variables:?}");
        assert!(
            variables.contains(&"after"),
            "{dialect:?}: the tags after the wrapped match are found: {variables:?}"
        );
        let locals: Vec<&str> = defs("local")
            .into_iter()
            .filter(|name| name.starts_with("local_"))
            .collect();
        assert!(locals.contains(&"local_0"), "{dialect:?}");
        assert!(
            locals.len() > 2_000 && !locals.contains(&last_local.as_str()),
            "{dialect:?}: the captures the cursor counted, not those past the count: {}",
            locals.len()
        );
    }
}

#[test]
fn a_match_the_cursor_can_count_is_whole() {
    // 2,000 attributes: 4,001 captures, within the count.
    let out = extract(&source(2_000), Dialect::Default);
    assert_eq!(out.cut_short, None);
    let locals = out
        .tags
        .iter()
        .filter(|t| t.kind == TagKind::Def && t.name.starts_with("local_"))
        .count();
    assert_eq!(locals, 2_000);
    assert!(out.tags.iter().any(|t| t.name == "after"));
}
