//! What a file's tree says about each declaration's surroundings, read in one cursor walk:
//! whether it lies in a callable's body, in an anonymous namespace, which declaration
//! holds it, the access section in force where it stands (C++'s `public:`, Ruby's
//! `private`), and a JavaScript module's export clauses. `Node::parent` re-descends from
//! the root at each call, so climbing from every declaration costs the depth squared;
//! one walk with a stack costs each node once.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use super::visibility::{access_word, exported_by, ruby_word};
use super::{declares, named_children, text};
use crate::Language;

/// The surroundings of every declaration of one file ([`FileFacts::of`]).
#[derive(Debug, Default)]
pub struct FileFacts {
    /// Names a JavaScript/TypeScript module exports apart from their declarations.
    pub(super) exports: HashSet<String>,
    /// By declaration node id.
    around: HashMap<usize, Around>,
    /// Ruby's `private :name` & co.: (body node id, name) → access.
    named_access: HashMap<(usize, String), super::Visibility>,
}

/// One declaration's surroundings.
#[derive(Debug, Clone, Copy)]
pub(super) struct Around {
    /// Inside a callable's body (a local).
    pub(super) in_callable: bool,
    /// Inside a C++ namespace without a name.
    pub(super) anonymous_namespace: bool,
    /// The kind of the nearest declaration (or root) holding it.
    pub(super) container: &'static str,
    /// The access section in force where it stands, if its parent has sections.
    pub(super) section: Option<super::Visibility>,
    /// Its parent's id and kind.
    pub(super) parent: (usize, &'static str),
}

/// The walk's state for one node on the path from the root.
#[derive(Clone, Copy)]
struct Frame {
    id: usize,
    kind: &'static str,
    callable: bool,
    anonymous: bool,
    container: &'static str,
    section: Option<super::Visibility>,
}

impl FileFacts {
    /// The facts of `tree` (the parse of `source` in `lang`).
    pub fn of(lang: Language, source: &str, tree: &Tree) -> FileFacts {
        FileFacts::of_root(lang, source, tree.root_node())
    }

    /// The facts of the tree whose root is `root`.
    pub fn of_root(lang: Language, source: &str, root: Node<'_>) -> FileFacts {
        let mut facts = FileFacts {
            exports: named_children(root)
                .flat_map(|s| exported_by(source, s))
                .collect(),
            ..FileFacts::default()
        };
        let mut stack = vec![frame(lang, root, None)];
        let mut cursor = root.walk();
        if !cursor.goto_first_child() {
            return facts;
        }
        loop {
            let node = cursor.node();
            let parent = stack.last_mut().copied();
            if let Some(p) = parent {
                facts.visit(lang, source, node, p);
                // A section word changes what follows it among its siblings.
                if let Some(section) = section_word(lang, source, node, p.kind)
                    && let Some(top) = stack.last_mut()
                {
                    top.section = Some(section);
                }
            }
            if cursor.goto_first_child() {
                stack.push(frame(lang, node, parent.as_ref()));
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    return facts;
                }
                stack.pop();
            }
        }
    }

    /// Records `node`'s surroundings if it declares something, and what a Ruby
    /// `private :name` call says.
    fn visit(&mut self, lang: Language, source: &str, node: Node<'_>, p: Frame) {
        if declares(lang, node.kind()) || node.kind() == "function_expression" {
            let around = Around {
                in_callable: p.callable,
                anonymous_namespace: p.anonymous,
                container: p.container,
                section: p.section,
                parent: (p.id, p.kind),
            };
            self.around.insert(node.id(), around);
        }
        if lang == Language::Ruby && node.kind() == "call" {
            let method = node.child_by_field_name("method").map(|m| text(source, m));
            let args = node.child_by_field_name("arguments");
            if let (Some(access), Some(args)) = (ruby_word(method), args) {
                for arg in named_children(args).filter(|a| a.kind() == "simple_symbol") {
                    let name = text(source, arg).trim_start_matches(':').to_owned();
                    self.named_access.insert((p.id, name), access);
                }
            }
        }
    }

    /// `node`'s surroundings, if it is a declaration of the file these facts were read
    /// from.
    pub(super) fn around(&self, node: Node<'_>) -> Option<Around> {
        self.around.get(&node.id()).copied()
    }

    /// What a Ruby `private :name` in the body `body` says of `name`.
    pub(super) fn named_access(&self, body: usize, name: &str) -> Option<super::Visibility> {
        self.named_access.get(&(body, name.to_owned())).copied()
    }
}

/// The frame of `node`, under `parent`.
fn frame(lang: Language, node: Node<'_>, parent: Option<&Frame>) -> Frame {
    let kind = node.kind();
    let anonymous = kind == "namespace_definition" && node.child_by_field_name("name").is_none();
    let is_container = declares(lang, kind) || parent.is_none();
    // Sections start over in each body that has them.
    let section = match (lang, kind) {
        (Language::C | Language::Cpp, "field_declaration_list") => {
            let class = parent.is_some_and(|p| p.kind == "class_specifier");
            Some(if class {
                super::Visibility::Private
            } else {
                super::Visibility::Public
            })
        }
        (Language::Ruby, "body_statement" | "class" | "module" | "program") => {
            Some(super::Visibility::Public)
        }
        _ => None,
    };
    Frame {
        id: node.id(),
        kind,
        callable: parent.is_some_and(|p| p.callable) || super::declarations::callable(kind),
        anonymous: parent.is_some_and(|p| p.anonymous) || anonymous,
        container: if is_container {
            kind
        } else {
            parent.map_or(kind, |p| p.container)
        },
        section,
    }
}

/// The access a section word sets for the siblings after it: C++'s `public:` in a class
/// body, Ruby's bare `private` in a body.
fn section_word(
    lang: Language,
    source: &str,
    node: Node<'_>,
    parent_kind: &str,
) -> Option<super::Visibility> {
    match (lang, node.kind()) {
        (Language::C | Language::Cpp, "access_specifier") => {
            access_word(text(source, node).trim_end_matches(':').trim())
        }
        (Language::Ruby, "identifier") if parent_kind != "argument_list" => {
            ruby_word(Some(text(source, node)))
        }
        _ => None,
    }
}
