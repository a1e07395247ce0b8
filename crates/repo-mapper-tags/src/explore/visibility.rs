//! Who may use a definition, in each language's own terms.

use tree_sitter::Node;

use super::facts::FileFacts;
use super::{named_children, text};
use crate::Language;

/// Who may use a definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Visibility {
    /// Anyone: `pub`, `public`, `open`, a Python name without a leading `_`, a C
    /// function that is not `static`, a Ruby method outside `private`.
    Public,
    /// Its own scope only: `private`, `fileprivate`, a Python `_name`, a Go name in
    /// lower case, a `static` C function, a JavaScript name not exported.
    Private,
    /// Subclasses too (`protected`).
    Protected,
    /// Its package, crate or module: `pub(crate)`, Java's package-private, C#'s, Kotlin's
    /// and Swift's `internal`.
    Internal,
    /// Exported by its module: an `export` in JavaScript/TypeScript, a capitalised Go name.
    Exported,
}

impl Visibility {
    /// Its name in outlines: `public`, `private`, `protected`, `internal`, `exported`.
    pub fn as_str(self) -> &'static str {
        match self {
            Visibility::Public => "public",
            Visibility::Private => "private",
            Visibility::Protected => "protected",
            Visibility::Internal => "internal",
            Visibility::Exported => "exported",
        }
    }
}

/// What one top-level statement exports apart from a declaration.
pub(super) fn exported_by(source: &str, statement: Node<'_>) -> Vec<String> {
    match statement.kind() {
        "export_statement" if statement.child_by_field_name("declaration").is_none() => {
            let clause = named_children(statement).find(|c| c.kind() == "export_clause");
            let specs = clause.into_iter().flat_map(named_children);
            let named = specs.filter_map(|spec| spec.child_by_field_name("name"));
            let default = statement.child_by_field_name("value");
            named
                .chain(default)
                .map(|n| text(source, n).to_owned())
                .collect()
        }
        "expression_statement" => {
            let Some(a) = statement
                .named_child(0)
                .filter(|a| a.kind() == "assignment_expression")
            else {
                return Vec::new();
            };
            let left = a.child_by_field_name("left").map(|l| text(source, l));
            let right = a
                .child_by_field_name("right")
                .map(|r| text(source, r).to_owned());
            right
                .filter(|_| left == Some("module.exports"))
                .into_iter()
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The visibility of the definition `name` declared by `node` (from
/// [`super::definition_node`]); `None` where `lang` is not explored. Reads the whole
/// file's [`FileFacts`] anew: [`visibility_in`] takes them read once.
pub fn visibility(lang: Language, source: &str, node: Node<'_>, name: &str) -> Option<Visibility> {
    let mut root = node;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    visibility_in(
        lang,
        source,
        node,
        name,
        &FileFacts::of_root(lang, source, root),
    )
}

/// [`visibility`], with the file's [`FileFacts`] read once for all its definitions.
pub fn visibility_in(
    lang: Language,
    source: &str,
    node: Node<'_>,
    name: &str,
    facts: &FileFacts,
) -> Option<Visibility> {
    use Language::*;
    // A package, a namespace or a Rust `impl` has no visibility of its own.
    let kind = node.kind();
    if kind.contains("package") || kind.contains("namespace") || kind == "impl_item" {
        return None;
    }
    Some(match lang {
        Python => python(name),
        Go => go(name),
        JavaScript | TypeScript | Tsx => javascript(source, node, name, facts),
        Rust => rust(source, node),
        Java => java(source, node),
        Kotlin => keyword(source, node, "modifiers").unwrap_or(Visibility::Public),
        Swift => keyword(source, node, "modifiers").unwrap_or(Visibility::Internal),
        CSharp => csharp(source, node, facts),
        Php => keyword_child(source, node, "visibility_modifier").unwrap_or(Visibility::Public),
        C | Cpp => c_like(source, node, facts),
        Ruby => ruby(source, node, name, facts),
        _ => return None,
    })
}

/// Python's convention: `_name` is private, `__dunder__` is not.
fn python(name: &str) -> Visibility {
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    if name.starts_with('_') && !dunder {
        Visibility::Private
    } else {
        Visibility::Public
    }
}

/// Go exports a name that starts with an upper-case letter.
fn go(name: &str) -> Visibility {
    if name.chars().next().is_some_and(char::is_uppercase) {
        Visibility::Exported
    } else {
        Visibility::Private
    }
}

/// `export` makes a module's name exported; a class member is public unless marked
/// `private`/`protected` or named `#x`.
fn javascript(source: &str, node: Node<'_>, name: &str, facts: &FileFacts) -> Visibility {
    let member = matches!(
        node.kind(),
        "method_definition"
            | "public_field_definition"
            | "field_definition"
            | "method_signature"
            | "abstract_method_signature"
            | "property_signature"
    );
    if member {
        if name.starts_with('#') {
            return Visibility::Private;
        }
        return keyword_child(source, node, "accessibility_modifier").unwrap_or(Visibility::Public);
    }
    let mut up = node.parent();
    for _ in 0..3 {
        match up {
            Some(p) if p.kind() == "export_statement" => return Visibility::Exported,
            Some(p) if p.kind() == "program" => {
                return if facts.exports.contains(name) {
                    Visibility::Exported
                } else {
                    Visibility::Private
                };
            }
            Some(p) => up = p.parent(),
            None => break,
        }
    }
    Visibility::Private
}

/// `pub` is public, `pub(…)` internal (`pub(self)` private); items of a trait and of a
/// trait's `impl` are public as the trait is; others are private.
fn rust(source: &str, node: Node<'_>) -> Visibility {
    if let Some(v) = named_children(node).find(|c| c.kind() == "visibility_modifier") {
        return rust_modifier(source, v);
    }
    let container = node.parent().and_then(|p| p.parent());
    match container.map(|c| (c.kind(), c.child_by_field_name("trait").is_some())) {
        Some(("trait_item", _)) | Some(("impl_item", true)) => Visibility::Public,
        // An enum's variants are as visible as the enum.
        _ if node.kind() == "enum_variant" => container
            .and_then(|e| named_children(e).find(|c| c.kind() == "visibility_modifier"))
            .map_or(Visibility::Private, |v| rust_modifier(source, v)),
        _ => Visibility::Private,
    }
}

/// What a Rust `pub`, `pub(crate)`, `pub(self)`… says.
fn rust_modifier(source: &str, modifier: Node<'_>) -> Visibility {
    let t: String = text(source, modifier).split_whitespace().collect();
    match t.as_str() {
        "pub" => Visibility::Public,
        "pub(self)" => Visibility::Private,
        _ => Visibility::Internal,
    }
}

/// Java's modifiers; members of an interface or annotation are public, enum constants
/// too; otherwise package-private (internal).
fn java(source: &str, node: Node<'_>) -> Visibility {
    if let Some(v) = keyword(source, node, "modifiers") {
        return v;
    }
    let body = node.parent().map(|p| p.kind());
    match body {
        _ if node.kind() == "enum_constant" => Visibility::Public,
        Some("interface_body" | "annotation_type_body") => Visibility::Public,
        _ => Visibility::Internal,
    }
}

/// C#'s modifiers; without one, a member of a class or struct is private, of an interface
/// or enum public, and a type outside any type internal.
fn csharp(source: &str, node: Node<'_>, facts: &FileFacts) -> Visibility {
    let words: Vec<&str> = named_children(node)
        .filter(|c| c.kind() == "modifier")
        .map(|c| text(source, c))
        .collect();
    for (word, v) in [
        ("public", Visibility::Public),
        ("protected", Visibility::Protected),
        ("internal", Visibility::Internal),
        ("private", Visibility::Private),
    ] {
        if words.contains(&word) {
            return v;
        }
    }
    if node.kind() == "enum_member_declaration" {
        return Visibility::Public;
    }
    let container = facts.around(node).map(|a| a.container);
    match container {
        Some("interface_declaration") => Visibility::Public,
        Some(
            "class_declaration"
            | "struct_declaration"
            | "record_declaration"
            | "record_struct_declaration",
        ) => Visibility::Private,
        _ => Visibility::Internal,
    }
}

/// C and C++: a class member's access section (a `class` starts private, a `struct`
/// public); elsewhere `static` or an anonymous namespace makes a name private.
fn c_like(source: &str, node: Node<'_>, facts: &FileFacts) -> Visibility {
    let around = facts.around(node);
    if let Some(a) = around.filter(|a| a.parent.1 == "field_declaration_list") {
        return a.section.unwrap_or(Visibility::Public);
    }
    let is_static = named_children(node)
        .any(|c| c.kind() == "storage_class_specifier" && text(source, c) == "static");
    if is_static || around.is_some_and(|a| a.anonymous_namespace) {
        Visibility::Private
    } else {
        Visibility::Public
    }
}

/// Ruby: a method after a bare `private`/`protected`/`public` in its body takes that
/// access, as does one named by `private :name` or defined by `private def`; a method
/// defined at the top level is a private method of `Object`.
fn ruby(source: &str, node: Node<'_>, name: &str, facts: &FileFacts) -> Visibility {
    // Methods and the accessors `attr_reader` & co. define take the section's access.
    if !matches!(node.kind(), "method" | "call") {
        return Visibility::Public;
    }
    // Ruby makes these private whatever the section says.
    let always_private = [
        "initialize",
        "initialize_copy",
        "initialize_clone",
        "initialize_dup",
        "respond_to_missing?",
    ];
    if node.kind() == "method" && always_private.contains(&name) {
        return Visibility::Private;
    }
    let Some(around) = facts.around(node) else {
        return Visibility::Public;
    };
    let (body, body_kind) = around.parent;
    if body_kind == "argument_list" {
        // `private def name`: the call around the definition says.
        let call = node.parent().and_then(|b| b.parent());
        return call
            .and_then(|c| ruby_word(call_method(source, c)))
            .unwrap_or(Visibility::Public);
    }
    if body_kind == "program" {
        return Visibility::Private;
    }
    facts
        .named_access(body, name)
        .or(around.section)
        .unwrap_or(Visibility::Public)
}

fn call_method<'s>(source: &'s str, call: Node<'_>) -> Option<&'s str> {
    call.child_by_field_name("method").map(|m| text(source, m))
}

pub(super) fn ruby_word(word: Option<&str>) -> Option<Visibility> {
    match word? {
        "private" | "private_class_method" => Some(Visibility::Private),
        "protected" => Some(Visibility::Protected),
        "public" | "public_class_method" => Some(Visibility::Public),
        _ => None,
    }
}

/// The visibility word inside `node`'s child of kind `holder` (Java's, Kotlin's and
/// Swift's `modifiers`).
fn keyword(source: &str, node: Node<'_>, holder: &str) -> Option<Visibility> {
    let holder = named_children(node).find(|c| c.kind() == holder)?;
    let mut words = text(source, holder).split(|c: char| !c.is_alphanumeric() && c != '_');
    words.find_map(word)
}

/// The visibility word of `node`'s child of kind `kind`.
fn keyword_child(source: &str, node: Node<'_>, kind: &str) -> Option<Visibility> {
    let child = named_children(node).find(|c| c.kind() == kind)?;
    word(text(source, child).trim())
}

/// C++'s access words.
pub(super) fn access_word(word: &str) -> Option<Visibility> {
    match word {
        "private" => Some(Visibility::Private),
        "protected" => Some(Visibility::Protected),
        "public" => Some(Visibility::Public),
        _ => None,
    }
}

/// A visibility keyword of Java, Kotlin, Swift, PHP or TypeScript.
fn word(w: &str) -> Option<Visibility> {
    match w {
        "public" | "open" => Some(Visibility::Public),
        "private" | "fileprivate" => Some(Visibility::Private),
        "protected" => Some(Visibility::Protected),
        "internal" => Some(Visibility::Internal),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::definition_node;
    use crate::{Limits, parse_within};

    /// The visibility of `name`, defined on line `line` (from 1).
    fn of(lang: Language, source: &str, line: usize, name: &str) -> Option<Visibility> {
        let tree = parse_within(lang, source, &Limits::default()).unwrap();
        let node = definition_node(lang, source, &tree, line - 1, name)
            .unwrap_or_else(|| panic!("no node for {name} on line {line}"));
        visibility(lang, source, node, name)
    }

    use Visibility::*;

    #[test]
    fn python_go_by_name() {
        let py = "def _a(): pass\ndef __init__(self): pass\ndef b(): pass\n";
        assert_eq!(of(Language::Python, py, 1, "_a"), Some(Private));
        assert_eq!(of(Language::Python, py, 2, "__init__"), Some(Public));
        assert_eq!(of(Language::Python, py, 3, "b"), Some(Public));
        let go = "package a\nfunc Open() {}\nfunc close() {}\n";
        assert_eq!(of(Language::Go, go, 2, "Open"), Some(Exported));
        assert_eq!(of(Language::Go, go, 3, "close"), Some(Private));
    }

    #[test]
    fn rust_items() {
        let rs = "pub fn a() {}\npub(crate) struct B;\nfn c() {}\ntrait T { fn d(&self); }\nimpl T for B {\n    fn d(&self) {}\n}\nimpl B {\n    fn e() {}\n}\npub enum E { V }\n";
        assert_eq!(of(Language::Rust, rs, 1, "a"), Some(Public));
        assert_eq!(of(Language::Rust, rs, 2, "B"), Some(Internal));
        assert_eq!(of(Language::Rust, rs, 3, "c"), Some(Private));
        assert_eq!(of(Language::Rust, rs, 4, "d"), Some(Public));
        assert_eq!(of(Language::Rust, rs, 6, "d"), Some(Public));
        assert_eq!(of(Language::Rust, rs, 9, "e"), Some(Private));
        assert_eq!(of(Language::Rust, rs, 11, "V"), Some(Public));
    }

    #[test]
    fn java_csharp_kotlin_swift_php() {
        let java = "class A {\n  public void a() {}\n  void b() {}\n  private int c;\n}\ninterface I {\n  void d();\n}\n";
        assert_eq!(of(Language::Java, java, 2, "a"), Some(Public));
        assert_eq!(of(Language::Java, java, 3, "b"), Some(Internal));
        assert_eq!(of(Language::Java, java, 4, "c"), Some(Private));
        assert_eq!(of(Language::Java, java, 7, "d"), Some(Public));
        let cs = "class A {\n  public void a() {}\n  void b() {}\n  protected internal int C;\n}\ninterface I { void d(); }\n";
        assert_eq!(of(Language::CSharp, cs, 1, "A"), Some(Internal));
        assert_eq!(of(Language::CSharp, cs, 2, "a"), Some(Public));
        assert_eq!(of(Language::CSharp, cs, 3, "b"), Some(Private));
        assert_eq!(of(Language::CSharp, cs, 4, "C"), Some(Protected));
        assert_eq!(of(Language::CSharp, cs, 6, "d"), Some(Public));
        let kt = "class A {\n  private fun a() {}\n  fun b() {}\n  internal val c = 1\n}\n";
        assert_eq!(of(Language::Kotlin, kt, 2, "a"), Some(Private));
        assert_eq!(of(Language::Kotlin, kt, 3, "b"), Some(Public));
        assert_eq!(of(Language::Kotlin, kt, 4, "c"), Some(Internal));
        let swift = "public class A {\n  fileprivate func a() {}\n  func b() {}\n}\n";
        assert_eq!(of(Language::Swift, swift, 1, "A"), Some(Public));
        assert_eq!(of(Language::Swift, swift, 2, "a"), Some(Private));
        assert_eq!(of(Language::Swift, swift, 3, "b"), Some(Internal));
        let php =
            "<?php\nclass A {\n  private function a() {}\n  function b() {}\n  protected $c;\n}\n";
        assert_eq!(of(Language::Php, php, 3, "a"), Some(Private));
        assert_eq!(of(Language::Php, php, 4, "b"), Some(Public));
    }

    #[test]
    fn javascript_c_cpp_ruby() {
        let ts = "export function a() {}\nfunction b() {}\nclass C {\n  private d() {}\n  e() {}\n  #f() {}\n}\n";
        assert_eq!(of(Language::TypeScript, ts, 1, "a"), Some(Exported));
        assert_eq!(of(Language::TypeScript, ts, 2, "b"), Some(Private));
        assert_eq!(of(Language::TypeScript, ts, 4, "d"), Some(Private));
        assert_eq!(of(Language::TypeScript, ts, 5, "e"), Some(Public));
        let later = "class A {}\nfunction b() {}\nfunction c() {}\nconst d = 1;\nexport { A as Z, d };\nexport default b;\n";
        assert_eq!(of(Language::JavaScript, later, 1, "A"), Some(Exported));
        assert_eq!(of(Language::JavaScript, later, 2, "b"), Some(Exported));
        assert_eq!(of(Language::JavaScript, later, 3, "c"), Some(Private));
        assert_eq!(of(Language::JavaScript, later, 4, "d"), Some(Exported));
        let cjs = "function e() {}\nmodule.exports = e;\n";
        assert_eq!(of(Language::JavaScript, cjs, 1, "e"), Some(Exported));
        let c = "static int a(void) { return 0; }\nint b(void) { return 1; }\n";
        assert_eq!(of(Language::C, c, 1, "a"), Some(Private));
        assert_eq!(of(Language::C, c, 2, "b"), Some(Public));
        let cpp = "class A {\n  int a;\npublic:\n  void b();\n};\nstruct S { int c; };\n";
        assert_eq!(of(Language::Cpp, cpp, 2, "a"), Some(Private));
        assert_eq!(of(Language::Cpp, cpp, 4, "b"), Some(Public));
        assert_eq!(of(Language::Cpp, cpp, 6, "c"), Some(Public));
        let rb = "class A\n  def a; end\n  private\n  def b; end\n  protected def c; end\n  def d; end\n  public :d\nend\ndef top; end\n";
        assert_eq!(of(Language::Ruby, rb, 2, "a"), Some(Public));
        let init = "class A\n  def initialize; end\nend\n";
        assert_eq!(of(Language::Ruby, init, 2, "initialize"), Some(Private));
        assert_eq!(of(Language::Ruby, rb, 4, "b"), Some(Private));
        assert_eq!(of(Language::Ruby, rb, 5, "c"), Some(Protected));
        assert_eq!(of(Language::Ruby, rb, 6, "d"), Some(Public));
        assert_eq!(of(Language::Ruby, rb, 9, "top"), Some(Private));
    }
}
