//! The first line of a definition's documentation: a Python docstring, else the comments
//! right above the declaration (past its attributes and decorators).

use tree_sitter::Node;

use super::{named_children, text};
use crate::Language;

/// The first non-empty line of the documentation of the definition declared by `node`
/// (from [`super::definition_node`]), comment markers left out; `None` when there is none
/// or `lang` is not explored.
pub fn doc_line(lang: Language, source: &str, node: Node<'_>) -> Option<String> {
    if !super::explores(lang) {
        return None;
    }
    if lang == Language::Python
        && let Some(doc) = python_docstring(source, node)
    {
        return Some(doc);
    }
    let comments = comments_above(lang, source, outermost(node));
    comments.iter().find_map(|c| first_line(c))
}

/// A function's or class's docstring: the string its body starts with.
fn python_docstring(source: &str, node: Node<'_>) -> Option<String> {
    let body = node.child_by_field_name("body")?;
    let first = body.named_child(0)?;
    let string = named_children(first)
        .next()
        .filter(|_| first.kind() == "expression_statement")?;
    if string.kind() != "string" {
        return None;
    }
    let content: String = named_children(string)
        .filter(|c| c.kind() == "string_content")
        .map(|c| text(source, c))
        .collect();
    content
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(str::to_owned)
}

/// The node whose place among its siblings the documentation is found by: the declaration,
/// or what wraps it (`export`, a decorated definition, a C++ template, Go's `type`).
fn outermost(node: Node<'_>) -> Node<'_> {
    let mut at = node;
    while let Some(parent) = at.parent() {
        let wraps = matches!(
            parent.kind(),
            "export_statement"
                | "decorated_definition"
                | "template_declaration"
                | "type_declaration"
                | "const_declaration"
                | "var_declaration"
                | "lexical_declaration"
                | "variable_declaration"
                | "ambient_declaration"
        );
        // Go's `type ( … )` groups: a spec's own comment sits above it, inside the group.
        let go_group = matches!(
            parent.kind(),
            "type_declaration" | "const_declaration" | "var_declaration"
        ) && parent.named_child_count() > 1;
        if !wraps || go_group {
            break;
        }
        at = parent;
    }
    at
}

/// The texts of the comments right above `node`, top first: each ends on the line before
/// the next (or before `node`); attributes, decorators and annotations between them are
/// stepped over.
fn comments_above<'s>(lang: Language, source: &'s str, node: Node<'_>) -> Vec<&'s str> {
    let mut out = Vec::new();
    let mut top_row = node.start_position().row;
    let mut at = node.prev_sibling();
    while let Some(sibling) = at {
        let kind = sibling.kind();
        let adjacent = sibling.end_position().row + 1 >= top_row;
        if !adjacent {
            break;
        }
        // A comment after code on its line (`x = 1 // how many`) is that code's.
        if kind.contains("comment") && starts_its_line(source, sibling) {
            out.push(text(source, sibling));
        } else if !is_attribute(lang, kind) {
            break;
        }
        top_row = sibling.start_position().row;
        at = sibling.prev_sibling();
    }
    out.reverse();
    out
}

/// Whether only spaces stand before `node` on its first line. It reads back only over
/// the spaces: on a minified file's one line, reading back to the line's start from each
/// comment would cost the line's length per comment.
fn starts_its_line(source: &str, node: Node<'_>) -> bool {
    let start = node.start_byte().min(source.len());
    let before = source.get(..start).unwrap_or("");
    before
        .chars()
        .rev()
        .find(|c| !c.is_whitespace() || *c == '\n')
        .is_none_or(|c| c == '\n')
}

/// Whether a sibling of `kind` belongs to the declaration after it (an attribute).
fn is_attribute(lang: Language, kind: &str) -> bool {
    match lang {
        Language::Rust => kind == "attribute_item",
        Language::CSharp => kind == "attribute_list",
        Language::Python | Language::JavaScript | Language::TypeScript | Language::Tsx => {
            kind == "decorator"
        }
        Language::Php => kind == "attribute_list",
        _ => false,
    }
}

/// The first line of a comment with something in it, markers left out.
fn first_line(comment: &str) -> Option<String> {
    comment.lines().find_map(|line| {
        let stripped = line
            .trim()
            .trim_start_matches("/**")
            .trim_start_matches("/*!")
            .trim_start_matches("/*")
            .trim_start_matches("///")
            .trim_start_matches("//!")
            .trim_start_matches("//")
            .trim_start_matches('#')
            .trim_end_matches("*/")
            .trim_start_matches('*')
            .trim();
        (!stripped.is_empty()).then(|| stripped.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::definition_node;
    use crate::{Limits, parse_within};

    fn doc(lang: Language, source: &str, line: usize, name: &str) -> Option<String> {
        let tree = parse_within(lang, source, &Limits::default()).unwrap();
        let node = definition_node(lang, source, &tree, line - 1, name).unwrap();
        doc_line(lang, source, node)
    }

    #[test]
    fn python_docstrings() {
        let py = "class A:\n    \"\"\"\n    The A.\n\n    More.\n    \"\"\"\n\n    def f(self):\n        return 1\n";
        assert_eq!(doc(Language::Python, py, 1, "A").as_deref(), Some("The A."));
        assert_eq!(doc(Language::Python, py, 8, "f"), None);
    }

    #[test]
    fn comments_above_past_attributes() {
        let rs =
            "/// Opens it.\n/// Twice.\n#[inline]\npub fn open() {}\n\n// far\n\nfn other() {}\n";
        assert_eq!(
            doc(Language::Rust, rs, 4, "open").as_deref(),
            Some("Opens it.")
        );
        assert_eq!(doc(Language::Rust, rs, 8, "other"), None);
        let ts = "/**\n * Adds.\n */\nexport function add() {}\n";
        assert_eq!(
            doc(Language::TypeScript, ts, 4, "add").as_deref(),
            Some("Adds.")
        );
        let go = "package a\n\n// Open opens.\nfunc Open() {}\n";
        assert_eq!(
            doc(Language::Go, go, 4, "Open").as_deref(),
            Some("Open opens.")
        );
        let java =
            "class A {\n  /** Gets it. */\n  @Override\n  public int get() { return 0; }\n}\n";
        assert_eq!(
            doc(Language::Java, java, 4, "get").as_deref(),
            Some("Gets it.")
        );
        let rb = "# Greets.\ndef hi; end\n";
        assert_eq!(doc(Language::Ruby, rb, 2, "hi").as_deref(), Some("Greets."));
        // A trailing comment of the line above is not a doc.
        let go = "package a\n\nvar count = 1 // how many\nfunc Reset() {}\n";
        assert_eq!(doc(Language::Go, go, 4, "Reset"), None);
        let c = "int a; /* the a */\nint b(void) { return 0; }\n";
        assert_eq!(doc(Language::C, c, 2, "b"), None);
        // Comments above several decorators.
        let py = "# Handles it.\n@a\n@b\ndef f():\n    pass\n";
        assert_eq!(
            doc(Language::Python, py, 4, "f").as_deref(),
            Some("Handles it.")
        );
    }
}
