//! Every named declaration of a file that an outline lists, found by walking its tree:
//! types, callables, module- and class-level constants, variables, fields, properties and
//! enum members. The tag queries (Aider's) leave some out — fields, properties, a
//! TypeScript `const f = () => …` — and an outline is not bound to them. Nothing inside a
//! function's body is listed (locals); a named function nested in another is left to the
//! tags.

use tree_sitter::{Node, Tree};

use super::facts::FileFacts;
use super::{declares, named_children, preorder, text};
use crate::Language;

/// One declaration: its name, the row its name is on (0-based) and a kind for outlines
/// (`class`, `function`, `method`, `field`, `constant`, `enum_member`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Declared {
    /// The declared name.
    pub name: String,
    /// The row of the name, from 0.
    pub row: usize,
    /// What it declares.
    pub kind: &'static str,
}

/// The declarations of `source` (parsed as `tree`) in preorder; empty where `lang` is
/// not explored.
pub fn declarations(lang: Language, source: &str, tree: &Tree) -> Vec<Declared> {
    declarations_in(lang, source, tree, &FileFacts::of(lang, source, tree))
}

/// [`declarations`], with the file's [`FileFacts`] read once.
pub fn declarations_in(
    lang: Language,
    source: &str,
    tree: &Tree,
    facts: &FileFacts,
) -> Vec<Declared> {
    if !super::explores(lang) {
        return Vec::new();
    }
    let outside_bodies = |n: &Node<'_>| facts.around(*n).is_some_and(|a| !a.in_callable);
    preorder(tree)
        .filter(|n| declares(lang, n.kind()) && outside_bodies(n))
        .filter(|n| wanted(lang, source, *n))
        .flat_map(|n| {
            let names = match n.kind() {
                "call" => accessor_names(n),
                _ => name_of(n).into_iter().collect(),
            };
            let kind = if n.kind() == "call" {
                "field"
            } else {
                kind_of(n)
            };
            names.into_iter().filter_map(move |name| {
                let name_text = text(source, name).trim_start_matches(':');
                (!name_text.is_empty() && name_text.len() <= 200).then(|| Declared {
                    name: name_text.to_owned(),
                    row: name.start_position().row,
                    kind,
                })
            })
        })
        .collect()
}

/// The symbols a Ruby `attr_reader :a, :b` (or `attr_writer`, `attr_accessor`) names.
fn accessor_names(call: Node<'_>) -> Vec<Node<'_>> {
    call.child_by_field_name("arguments")
        .map(|a| {
            named_children(a)
                .filter(|s| s.kind() == "simple_symbol")
                .collect()
        })
        .unwrap_or_default()
}

/// Whether a declaration `node` of `lang` is one an outline lists: Python's and Ruby's
/// assignments only of names (Ruby's of constants), C's declarations only at file or
/// namespace scope.
fn wanted(lang: Language, source: &str, node: Node<'_>) -> bool {
    match (lang, node.kind()) {
        (Language::Python, "assignment") => {
            let statement = node.parent().filter(|p| p.kind() == "expression_statement");
            let left = node.child_by_field_name("left");
            statement.is_some() && left.is_some_and(|l| l.kind() == "identifier")
        }
        (Language::Ruby, "call") => {
            let method = node.child_by_field_name("method").map(|m| text(source, m));
            let receiver = node.child_by_field_name("receiver");
            receiver.is_none()
                && matches!(
                    method,
                    Some("attr_reader" | "attr_writer" | "attr_accessor")
                )
        }
        (Language::Ruby, "assignment") => node
            .child_by_field_name("left")
            .is_some_and(|l| l.kind() == "constant"),
        (Language::C | Language::Cpp, "declaration") => node.parent().is_some_and(|p| {
            let k = p.kind();
            matches!(
                k,
                "translation_unit" | "declaration_list" | "linkage_specification"
            ) || k.starts_with("preproc_")
        }),
        (Language::JavaScript | Language::TypeScript | Language::Tsx, "variable_declarator") => {
            // Module level only: `const x = …` in a program or an `export`.
            let declaration = node.parent();
            let holder = declaration.and_then(|d| d.parent());
            holder.is_some_and(|h| matches!(h.kind(), "program" | "export_statement"))
                && node
                    .child_by_field_name("name")
                    .is_some_and(|n| n.kind() == "identifier")
        }
        // `struct s x;` names a type declared elsewhere: only a body declares one.
        (_, k) if k.ends_with("_specifier") => node.child_by_field_name("body").is_some(),
        _ => !text(source, node).is_empty(),
    }
}

/// Whether the declaration `node` (from [`super::definition_node`]) is a local: a
/// variable, constant or field declared inside a callable's body. Outlines leave locals
/// out even where a tag query captures them.
pub fn is_local(node: Node<'_>, facts: &FileFacts) -> bool {
    let in_body = facts.around(node).is_some_and(|a| a.in_callable);
    let data = matches!(kind_of(node), "variable" | "constant" | "field") && in_body;
    data || unbound_expression(node)
}

/// A named function expression passed or returned as a value (`forEach(function each()
/// {…})`): its name is bound only inside itself, so it declares nothing.
fn unbound_expression(node: Node<'_>) -> bool {
    let bound = node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "variable_declarator"
                | "assignment_expression"
                | "pair"
                | "public_field_definition"
                | "field_definition"
                | "export_statement"
        )
    });
    matches!(node.kind(), "function_expression" | "function") && !bound
}

/// Whether a node of `kind` is a callable with a body.
pub(super) fn callable(kind: &str) -> bool {
    let signature = kind.contains("signature") || kind.ends_with("_type");
    let body = [
        "function",
        "method",
        "lambda",
        "closure",
        "constructor",
        "accessor",
    ]
    .iter()
    .any(|k| kind.contains(k))
        || matches!(
            kind,
            "init_declaration"
                | "deinit_declaration"
                | "computed_property"
                | "func_literal"
                | "arrow_function"
                | "singleton_method"
        );
    body && !signature
}

/// The node holding the declared name: a `name` (or `declarator`, `left`, `pattern`,
/// `bound_identifier`) field followed down, else the first identifier-like child or
/// declarator; at most eight steps down.
pub(super) fn name_of(node: Node<'_>) -> Option<Node<'_>> {
    // A namespace's or module's qualified name is its name, whole; an operator's is a
    // token (Swift's `static func ==`).
    if let Some(name) = node.child_by_field_name("name")
        && (QUALIFIED.contains(&name.kind()) || !name.is_named())
    {
        return Some(name);
    }
    // What a Rust `impl` implements for.
    if node.kind() == "impl_item" {
        return node.child_by_field_name("type").and_then(name_of_type);
    }
    if node.kind().contains("package") {
        return named_children(node)
            .find(|c| QUALIFIED.contains(&c.kind()) || NAME_KINDS.contains(&c.kind()));
    }
    let mut at = node;
    for _ in 0..8 {
        if NAME_KINDS.contains(&at.kind()) && at.id() != node.id() {
            return Some(at);
        }
        let by_field = ["name", "declarator", "left", "pattern", "bound_identifier"]
            .iter()
            .find_map(|f| at.child_by_field_name(f));
        // A declarator before a name: `T x` lists the type's name first.
        let next = by_field
            .or_else(|| named_children(at).find(|c| HOLDERS.contains(&c.kind())))
            .or_else(|| named_children(at).find(|c| NAME_KINDS.contains(&c.kind())))?;
        at = next;
    }
    None
}

/// The last name of a type (`Foo` of `a::Foo<T>`), at most eight steps down.
fn name_of_type(mut node: Node<'_>) -> Option<Node<'_>> {
    for _ in 0..8 {
        if NAME_KINDS.contains(&node.kind()) {
            return Some(node);
        }
        node = node
            .child_by_field_name("name")
            .or_else(|| node.child_by_field_name("type"))?;
    }
    None
}

/// Kinds of a multi-part name (`a.b`, `a::b`, `A\B`).
const QUALIFIED: &[&str] = &[
    "qualified_name",
    "qualified_identifier",
    "scoped_identifier",
    "namespace_name",
    "nested_namespace_specifier",
    "dotted_name",
];

/// Kinds of nodes that are a name.
const NAME_KINDS: &[&str] = &[
    "identifier",
    "type_identifier",
    "field_identifier",
    "property_identifier",
    "private_property_identifier",
    "simple_identifier",
    "constant",
    "name",
    "destructor_name",
    "operator_name",
    "namespace_identifier",
];

/// Kinds of nodes that hold a declared name further down.
const HOLDERS: &[&str] = &[
    "variable_declarator",
    "variable_declaration",
    "property_element",
    "const_element",
    "variable_name",
    "pattern",
];

/// The outline's kind of a declaration node.
fn kind_of(node: Node<'_>) -> &'static str {
    let k = node.kind();
    let has = |w: &str| k.contains(w);
    if k == "impl_item" {
        return "impl";
    }
    // Python's class-level names are its fields.
    let in_class = std::iter::successors(node.parent(), |p| p.parent())
        .take(3)
        .any(|p| p.kind() == "class_definition");
    if k == "assignment" && in_class {
        return "field";
    }
    if has("enum_constant")
        || has("enumerator")
        || has("enum_variant")
        || has("enum_entry")
        || has("enum_member")
        || has("enum_case")
    {
        "enum_member"
    } else if has("constructor") {
        "method"
    } else if has("macro") || has("preproc") {
        "macro"
    } else if has("interface") {
        "interface"
    } else if has("protocol") && !has("function") && !has("property") {
        "protocol"
    } else if has("trait") {
        "trait"
    } else if has("struct") {
        "struct"
    } else if has("enum") {
        "enum"
    } else if has("class") || has("object") || has("record") {
        "class"
    } else if has("method") || has("constructor") || has("init_declaration") {
        "method"
    } else if has("function") {
        "function"
    } else if has("field") || has("property") || has("attribute") || has("event") {
        "field"
    } else if has("const") || has("static") {
        "constant"
    } else if has("type") || has("alias") {
        "type"
    } else if has("mod") || has("namespace") || has("package") {
        "module"
    } else {
        "variable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Limits, parse_within};

    fn found(lang: Language, source: &str) -> Vec<(String, usize, &'static str)> {
        let tree = parse_within(lang, source, &Limits::default()).unwrap();
        declarations(lang, source, &tree)
            .into_iter()
            .map(|d| (d.name, d.row + 1, d.kind))
            .collect()
    }

    fn names(lang: Language, source: &str) -> Vec<String> {
        found(lang, source).into_iter().map(|(n, _, _)| n).collect()
    }

    #[test]
    fn python_module_and_class_level_not_locals() {
        let py = "X = 1\nclass A:\n    y: int = 2\n    def f(self):\n        z = 3\n";
        assert_eq!(
            found(Language::Python, py),
            [
                ("X".into(), 1, "variable"),
                ("A".into(), 2, "class"),
                ("y".into(), 3, "field"),
                ("f".into(), 4, "function"),
            ]
        );
    }

    #[test]
    fn typescript_arrow_consts_fields_and_members() {
        let ts = "export const get = (a: string) => a\nconst local = 1\nclass C {\n  private n = 0\n  m() { const inner = 1 }\n}\ninterface I { p: string }\n";
        assert_eq!(
            names(Language::TypeScript, ts),
            ["get", "local", "C", "n", "m", "I", "p"]
        );
    }

    #[test]
    fn fields_and_enum_members_in_typed_languages() {
        let java = "class A {\n  private final int x = 1, y;\n  enum E { ON, OFF }\n  void m() { int local = 0; }\n}\n";
        assert_eq!(
            names(Language::Java, java),
            ["A", "x", "E", "ON", "OFF", "m"]
        );
        let cs = "class A {\n  public int P { get; set; }\n  private string f;\n  void M() { var local = 1; }\n}\n";
        assert_eq!(names(Language::CSharp, cs), ["A", "P", "f", "M"]);
        let rs =
            "pub struct S { pub a: u8 }\nenum E { V }\nconst C: u8 = 1;\nfn f() { let x = 1; }\n";
        assert_eq!(names(Language::Rust, rs), ["S", "a", "E", "V", "C", "f"]);
        let go = "package p\ntype T struct {\n\tA int\n}\nvar v = 1\nfunc F() { x := 1 }\n";
        assert_eq!(names(Language::Go, go), ["T", "A", "v", "F"]);
        let c = "#define N 3\nstatic int g;\nstruct s { int a; };\nint f(void) { int local; return 0; }\n";
        assert_eq!(names(Language::C, c), ["N", "g", "s", "a", "f"]);
    }

    #[test]
    fn kotlin_swift_php_ruby() {
        let kt = "class A {\n  val p = 1\n  fun f() { val local = 2 }\n}\n";
        assert_eq!(names(Language::Kotlin, kt), ["A", "p", "f"]);
        let swift = "struct S {\n  var p: Int\n  func f() { let local = 1 }\n}\n";
        assert_eq!(names(Language::Swift, swift), ["S", "p", "f"]);
        let php =
            "<?php\nclass A {\n  private $p;\n  const C = 1;\n  function f() { $local = 1; }\n}\n";
        assert_eq!(names(Language::Php, php), ["A", "p", "C", "f"]);
        let rb = "module M\n  LIMIT = 3\n  class K\n    def m\n      x = 1\n    end\n  end\nend\n";
        assert_eq!(names(Language::Ruby, rb), ["M", "LIMIT", "K", "m"]);
        let attrs = "class K\n  attr_reader :a, :b\n  private\n  attr_writer :c\nend\n";
        assert_eq!(names(Language::Ruby, attrs), ["K", "a", "b", "c"]);
    }

    #[test]
    fn a_variable_in_a_body_is_local() {
        let go = "package p\nvar v = 1\nfunc F() {\n\tvar x int\n}\n";
        let tree = parse_within(Language::Go, go, &Limits::default()).unwrap();
        let facts = FileFacts::of(Language::Go, go, &tree);
        let node =
            |row, name| super::super::definition_node(Language::Go, go, &tree, row, name).unwrap();
        assert!(!is_local(node(1, "v"), &facts));
        assert!(is_local(node(3, "x"), &facts));
        assert!(!is_local(node(2, "F"), &facts));
    }
}
