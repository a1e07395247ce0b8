#![doc = include_str!("../README.md")]
// The parsers are C: declaring and wrapping their entry points is FFI.
#![allow(unsafe_code)]

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_pony() -> *const ();
    fn tree_sitter_udev() -> *const ();
    fn tree_sitter_chatito() -> *const ();
}

/// The Pony grammar (amaanq/tree-sitter-pony 1.0.0, MIT).
pub const PONY: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_pony) };

/// The udev rules grammar (`*.rules`), our own (see `grammars/udev/PROVENANCE.md`).
///
/// A `rules` file holds `rule`s of comma-separated `match` and `assignment` items with the
/// key keyword in field `key`, e.g. `(assignment key: "ENV" (env_var) (assignment_op) (value
/// (content)))`; `$env{X}` and `%E{X}` inside values are `var_sub` and `fmt_sub` nodes.
pub const UDEV: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_udev) };

/// The Chatito DSL grammar (`*.chatito`), our own (see `grammars/chatito/PROVENANCE.md`).
///
/// A `source` holds `intent_def` (`%[name]`), `slot_def` (`@[name]`) and `alias_def`
/// (`~[name]`) definitions, whose names are `intent`, `slot` and `alias` nodes, and whose
/// indented sentences hold `word`, `slot_ref` and `alias_ref` nodes.
pub const CHATITO: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_chatito) };

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pony_parses() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&PONY.into()).unwrap();
        let tree = parser
            .parse(
                "actor Main\n  new create(env: Env) =>\n    env.out.print(\"hi\")\n",
                None,
            )
            .unwrap();
        let sexp = tree.root_node().to_sexp();
        assert!(sexp.contains("actor_definition"), "{sexp}");
        assert!(!tree.root_node().has_error(), "{sexp}");
    }

    /// Parses `source` with `language`, asserts the tree has no error, and returns the
    /// `name.*` captures of `query` as (row, column, capture name, text), sorted.
    fn name_captures(
        language: LanguageFn,
        query: &str,
        source: &str,
    ) -> Vec<(usize, usize, String, String)> {
        use tree_sitter::StreamingIterator;

        let language: tree_sitter::Language = language.into();
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language).unwrap();
        let tree = parser.parse(source, None).unwrap();
        let root = tree.root_node();
        assert!(!root.has_error(), "{}", root.to_sexp());

        let query = tree_sitter::Query::new(&language, query).unwrap();
        let mut cursor = tree_sitter::QueryCursor::new();
        let mut matches = cursor.matches(&query, root, source.as_bytes());
        let mut found = Vec::new();
        while let Some(m) = matches.next() {
            for capture in m.captures {
                let name = query.capture_names()[capture.index as usize];
                if name.starts_with("name.") {
                    let start = capture.node.start_position();
                    let text = capture.node.utf8_text(source.as_bytes()).unwrap();
                    found.push((start.row, start.column, name.to_string(), text.to_string()));
                }
            }
        }
        found.sort();
        found
    }

    fn expected(rows: &[(usize, usize, &str, &str)]) -> Vec<(usize, usize, String, String)> {
        rows.iter()
            .map(|&(row, column, name, text)| (row, column, name.to_string(), text.to_string()))
            .collect()
    }

    /// Aider's udev query, unchanged, finds what it finds with the tree-sitter-language-pack
    /// grammar on the same sample (captured with tree-sitter-language-pack 0.13.0).
    #[test]
    fn udev_tags_match_reference() {
        let found = name_captures(
            UDEV,
            include_str!("../tests/udev-tags.scm"),
            include_str!("../tests/sample.rules"),
        );
        let want = expected(&[
            (1, 24, "name.reference.label", "storage_end"),
            (2, 26, "name.reference.label", "storage_end"),
            (5, 39, "name.definition.variable", "ID_FOO"),
            (5, 58, "name.reference.label", "end"),
            (6, 46, "name.definition.variable", "ID_STORAGE"),
            (7, 29, "name.reference.variable", "ID_FOO"),
            (8, 4, "name.reference.variable", "ID_FOO"),
            (13, 63, "name.definition.variable", "SYSTEMD_WANTS"),
            (15, 37, "name.definition.variable", "PCT"),
            (16, 7, "name.definition.label", "end"),
            (18, 7, "name.definition.label", "storage_end"),
        ]);
        assert_eq!(found, want);
    }

    #[test]
    fn udev_tree_shape() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&UDEV.into()).unwrap();
        let source = "# c\nKERNEL==\"sd*\", ENV{ID}=\"1\", \\\n  RUN+=\"/bin/x %E{ID} $env{ID}\"\n";
        let tree = parser.parse(source, None).unwrap();
        assert_eq!(
            tree.root_node().to_sexp(),
            "(rules (comment) (rule \
             (match (match_op) (value (content (pattern)))) \
             (assignment (env_var) (assignment_op) (value (content))) \
             (linebreak) \
             (assignment (assignment_op) (value (content \
             (fmt_sub (env_var)) (var_sub (env_var)))))))"
        );
    }

    /// Aider's chatito query, unchanged, finds what it finds with the
    /// tree-sitter-language-pack grammar on the same sample.
    #[test]
    fn chatito_tags_match_reference() {
        let found = name_captures(
            CHATITO,
            include_str!("../tests/chatito-tags.scm"),
            include_str!("../tests/sample.chatito"),
        );
        let want = expected(&[
            (3, 2, "name.definition.intent", "ask_weather"),
            (4, 36, "name.reference.slot", "city"),
            (4, 44, "name.reference.alias", "today"),
            (5, 6, "name.reference.alias", "greet"),
            (5, 34, "name.reference.slot", "date"),
            (6, 23, "name.reference.slot", "city"),
            (8, 2, "name.definition.slot", "city"),
            (11, 6, "name.reference.alias", "big_city"),
            (13, 2, "name.definition.slot", "city"),
            (16, 2, "name.definition.slot", "date"),
            (20, 2, "name.definition.alias", "greet"),
            (24, 2, "name.definition.alias", "today"),
            (29, 2, "name.definition.alias", "big_city"),
        ]);
        assert_eq!(found, want);
    }

    #[test]
    fn chatito_tree_shape() {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&CHATITO.into()).unwrap();
        // Tabs, blank lines inside a body and a comment between definitions.
        let source = "%[hi]('training': '1')\n\t*[50%] hello @[name?]\n\n\tyo ~[x]\n\n# c\n~[x]\n    there\n";
        let tree = parser.parse(source, None).unwrap();
        assert_eq!(
            tree.root_node().to_sexp(),
            "(source \
             (intent_def (intent) \
             (arguments (argument key: (string) value: (string))) \
             (intent_body (probability (number)) (word) (slot_ref (slot)) (word) (alias_ref (alias)))) \
             (comment) \
             (alias_def (alias) (alias_body (word))))"
        );
    }
}
