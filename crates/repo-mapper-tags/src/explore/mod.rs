//! What a file's syntax tree says beyond its tags (issue 27's outline, seed 001's gate B):
//! the modules it imports, each definition's visibility and the first line of its doc
//! comment. Languages where these are not known give `None` ("not supported"), never a
//! guess.
//!
//! ```
//! use repo_mapper_tags::{Language, Limits, parse_within};
//! use repo_mapper_tags::explore::{ImportForm, Visibility, definition_node, doc_line, imports, visibility};
//!
//! let source = "import os\nfrom . import util\n\ndef _helper():\n    \"\"\"Does the work.\"\"\"\n";
//! let tree = parse_within(Language::Python, source, &Limits::default()).unwrap();
//! let found = imports(Language::Python, source, &tree).unwrap();
//! assert_eq!(found[0].module, "os");
//! assert_eq!((found[1].module.as_str(), found[1].form), (".", ImportForm::Relative));
//! let node = definition_node(Language::Python, source, &tree, 3, "_helper").unwrap();
//! assert_eq!(visibility(Language::Python, source, node, "_helper"), Some(Visibility::Private));
//! assert_eq!(doc_line(Language::Python, source, node).as_deref(), Some("Does the work."));
//! ```

mod declarations;
mod docs;
mod facts;
mod imports;
mod nodes;
mod visibility;

use tree_sitter::{Node, Point, Tree};

use crate::Language;

pub use declarations::{Declared, declarations, declarations_in, is_local};
pub use docs::doc_line;
pub use facts::FileFacts;
pub use imports::{ImportForm, RawImport, imports};
pub use nodes::DefinitionNodes;
pub use visibility::{Visibility, visibility, visibility_in};

/// Whether [`imports()`] and [`visibility()`] know `lang` (issue 27's list: Python,
/// JavaScript/TypeScript, Go, Rust, Java, C/C++, C#, Ruby, PHP, Kotlin, Swift).
pub fn explores(lang: Language) -> bool {
    use Language::*;
    matches!(
        lang,
        Python
            | JavaScript
            | TypeScript
            | Tsx
            | Go
            | Rust
            | Java
            | C
            | Cpp
            | CSharp
            | Ruby
            | Php
            | Kotlin
            | Swift
    )
}

/// The declaration node of the definition of `name` whose tag is on `row` (0-based): the
/// nearest node holding the name's first occurrence on that row whose kind declares
/// something in `lang`. `None` when the row does not hold the name or no such node is
/// near (at most [`MAX_CLIMB`] parents up). It finds the row's text in `source` from the
/// start: [`definition_node_on`] takes the row's text, for many definitions of one file.
pub fn definition_node<'t>(
    lang: Language,
    source: &str,
    tree: &'t Tree,
    row: usize,
    name: &str,
) -> Option<Node<'t>> {
    definition_node_on(lang, tree, (row, source.lines().nth(row)?), name)
}

/// [`definition_node`], given the row and its text (`line`, without its line ending).
pub fn definition_node_on<'t>(
    lang: Language,
    tree: &'t Tree,
    (row, line): (usize, &str),
    name: &str,
) -> Option<Node<'t>> {
    let mut fallback = None;
    for column in words_at(line, name) {
        let (start, end) = (
            Point { row, column },
            Point {
                row,
                column: column + name.len(),
            },
        );
        let Some(at) = tree
            .root_node()
            .named_descendant_for_point_range(start, end)
        else {
            continue;
        };
        let Some(declaration) = declaration_above(lang, at) else {
            continue;
        };
        // `struct s s;`: the occurrence the declaration names, not its type's; else one
        // that starts on the name's row (never an outer one the name merely lies in).
        if declarations::name_of(declaration).is_some_and(|n| n.id() == at.id()) {
            return Some(declaration);
        }
        if declaration.start_position().row == row {
            fallback = fallback.or(Some(declaration));
        }
    }
    fallback
}

/// The nearest node at or above `node` (at most [`MAX_CLIMB`] parents up) that declares
/// something in `lang`.
fn declaration_above<'t>(lang: Language, mut node: Node<'t>) -> Option<Node<'t>> {
    for _ in 0..MAX_CLIMB {
        if is_declaration(lang, node) {
            return Some(node);
        }
        node = node.parent()?;
    }
    None
}

/// Whether `node` declares something in `lang` (what [`definition_node`] climbs to).
fn is_declaration(lang: Language, node: Node<'_>) -> bool {
    // `struct s` without a body names a type declared elsewhere.
    let reference =
        node.kind().ends_with("_specifier") && node.child_by_field_name("body").is_none();
    declares(lang, node.kind()) && !reference
}

/// How many parents [`definition_node`] climbs from the name at most.
pub const MAX_CLIMB: usize = 6;

/// The byte columns of `word`'s occurrences in `line` as a whole word.
fn words_at<'a>(line: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let found = (!word.is_empty())
        .then(|| line.match_indices(word))
        .into_iter()
        .flatten();
    found.map(|(i, _)| i).filter(move |&i| {
        // PHP's `$name` is the name `name`: a `$` before it does not join it.
        let before = line[..i].chars().next_back().filter(|&c| c != '$');
        let after = line[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Whether a node of `kind` declares a symbol in `lang`.
fn declares(lang: Language, kind: &str) -> bool {
    use Language::*;
    let kinds: &[&str] = match lang {
        Python => PYTHON_DECLARATIONS,
        JavaScript | TypeScript | Tsx => JAVASCRIPT_DECLARATIONS,
        Go => GO_DECLARATIONS,
        Rust => RUST_DECLARATIONS,
        Java => JAVA_DECLARATIONS,
        C | Cpp => C_LIKE_DECLARATIONS,
        CSharp => CSHARP_DECLARATIONS,
        Ruby => RUBY_DECLARATIONS,
        Php => PHP_DECLARATIONS,
        Kotlin => KOTLIN_DECLARATIONS,
        Swift => SWIFT_DECLARATIONS,
        _ => &[],
    };
    kinds.contains(&kind)
}

/// The node kinds that declare a symbol in Python.
const PYTHON_DECLARATIONS: &[&str] = &["function_definition", "class_definition", "assignment"];

/// The node kinds that declare a symbol in JavaScript, TypeScript, Tsx.
const JAVASCRIPT_DECLARATIONS: &[&str] = &[
    "function_expression",
    "function_declaration",
    "generator_function_declaration",
    "class_declaration",
    "abstract_class_declaration",
    "method_definition",
    "method_signature",
    "abstract_method_signature",
    "public_field_definition",
    "field_definition",
    "variable_declarator",
    "interface_declaration",
    "type_alias_declaration",
    "enum_declaration",
    "module",
    "internal_module",
    "property_signature",
    "function_signature",
];

/// The node kinds that declare a symbol in Go.
const GO_DECLARATIONS: &[&str] = &[
    "function_declaration",
    "method_declaration",
    "type_spec",
    "type_alias",
    "const_spec",
    "var_spec",
    "field_declaration",
    "method_elem",
];

/// The node kinds that declare a symbol in Rust.
const RUST_DECLARATIONS: &[&str] = &[
    "impl_item",
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "union_item",
    "trait_item",
    "type_item",
    "const_item",
    "static_item",
    "mod_item",
    "macro_definition",
    "field_declaration",
    "enum_variant",
    "associated_type",
];

/// The node kinds that declare a symbol in Java.
const JAVA_DECLARATIONS: &[&str] = &[
    "package_declaration",
    "class_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "annotation_type_declaration",
    "method_declaration",
    "constructor_declaration",
    "field_declaration",
    "enum_constant",
    "constant_declaration",
    "annotation_type_element_declaration",
];

/// The node kinds that declare a symbol in C, Cpp.
const C_LIKE_DECLARATIONS: &[&str] = &[
    "function_definition",
    "declaration",
    "field_declaration",
    "struct_specifier",
    "union_specifier",
    "enum_specifier",
    "class_specifier",
    "type_definition",
    "enumerator",
    "preproc_def",
    "preproc_function_def",
    "namespace_definition",
    "alias_declaration",
];

/// The node kinds that declare a symbol in CSharp.
const CSHARP_DECLARATIONS: &[&str] = &[
    "class_declaration",
    "struct_declaration",
    "interface_declaration",
    "enum_declaration",
    "record_declaration",
    "delegate_declaration",
    "method_declaration",
    "constructor_declaration",
    "destructor_declaration",
    "property_declaration",
    "field_declaration",
    "event_declaration",
    "event_field_declaration",
    "enum_member_declaration",
    "namespace_declaration",
    "file_scoped_namespace_declaration",
    "local_function_statement",
    "operator_declaration",
    "indexer_declaration",
];

/// The node kinds that declare a symbol in Ruby.
const RUBY_DECLARATIONS: &[&str] = &[
    "call",
    "method",
    "singleton_method",
    "class",
    "module",
    "singleton_class",
    "assignment",
];

/// The node kinds that declare a symbol in Php.
const PHP_DECLARATIONS: &[&str] = &[
    "function_definition",
    "method_declaration",
    "class_declaration",
    "interface_declaration",
    "trait_declaration",
    "enum_declaration",
    "property_declaration",
    "const_declaration",
    "enum_case",
    "namespace_definition",
];

/// The node kinds that declare a symbol in Kotlin.
const KOTLIN_DECLARATIONS: &[&str] = &[
    "package_header",
    "class_declaration",
    "object_declaration",
    "function_declaration",
    "property_declaration",
    "type_alias",
    "enum_entry",
    "companion_object",
    "secondary_constructor",
];

/// The node kinds that declare a symbol in Swift.
const SWIFT_DECLARATIONS: &[&str] = &[
    "class_declaration",
    "protocol_declaration",
    "function_declaration",
    "protocol_function_declaration",
    "property_declaration",
    "protocol_property_declaration",
    "typealias_declaration",
    "enum_entry",
    "init_declaration",
    "subscript_declaration",
    "associatedtype_declaration",
];

/// The text of `node` in `source`.
fn text<'s>(source: &'s str, node: Node<'_>) -> &'s str {
    source.get(node.byte_range()).unwrap_or("")
}

/// Every node of `tree` in preorder, without recursion.
fn preorder(tree: &Tree) -> impl Iterator<Item = Node<'_>> {
    let mut cursor = tree.walk();
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let node = cursor.node();
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            return Some(node);
        }
        loop {
            if !cursor.goto_parent() {
                done = true;
                return Some(node);
            }
            if cursor.goto_next_sibling() {
                return Some(node);
            }
        }
    })
}

/// The named children of `node`, in order, by a cursor: `Node::named_child(i)` counts
/// from the first child at each call, which costs the square of a wide node's children
/// (a minified file's root has tens of thousands).
fn named_children(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    let mut cursor = node.walk();
    let mut at_first = cursor.goto_first_child();
    std::iter::from_fn(move || {
        while at_first || cursor.goto_next_sibling() {
            at_first = false;
            let child = cursor.node();
            if child.is_named() {
                return Some(child);
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, parse_within};

    #[test]
    fn preorder_visits_every_node_once() {
        let source = "def f(a):\n    return [a, (a, a)]\n";
        let tree = parse_within(Language::Python, source, &Limits::default()).unwrap();
        let mut count = 0;
        let mut cursor = tree.walk();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            count += 1;
            stack.extend(n.children(&mut cursor));
        }
        assert_eq!(preorder(&tree).count(), count);
        let kinds: Vec<&str> = preorder(&tree).take(3).map(|n| n.kind()).collect();
        assert_eq!(kinds, ["module", "function_definition", "def"]);
    }

    #[test]
    fn a_name_is_found_as_a_whole_word() {
        let at = |line, word| words_at(line, word).collect::<Vec<_>>();
        assert_eq!(at("def get_x(x):", "x"), [10]);
        assert_eq!(at("fn $x()", "$x"), [3]);
        assert_eq!(at("abc", "b"), Vec::<usize>::new());
        assert_eq!(at("struct s s;", "s"), [7, 9]);
        assert_eq!(at("protected array $p;", "p"), [17]);
    }

    #[test]
    fn the_declaration_is_the_one_its_name_names() {
        let c = "static struct s s;\n";
        let tree = parse_within(Language::C, c, &Limits::default()).unwrap();
        let node = definition_node(Language::C, c, &tree, 0, "s").unwrap();
        assert_eq!(node.kind(), "declaration");
        assert_eq!(
            visibility(Language::C, c, node, "s"),
            Some(Visibility::Private)
        );
    }
}
