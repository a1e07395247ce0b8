//! Python's tag query as one walk over the tree instead of a query cursor.
//!
//! `tree-sitter-language-pack/python-tags.scm` has four patterns, each a node kind and a
//! fixed path of fields below it: a class's or function's `name:` identifier, a call's
//! `function:` identifier or the `attribute:` identifier of its `function:` attribute, and
//! the `left:` identifier of an assignment in a top-level expression statement. A cursor
//! walk that looks for those kinds and follows those fields finds the nodes the query
//! captures for about a third of the query cursor's work (Django's cold run spent 0.44 s
//! of its 2 cores' time in the query beyond the parse; issue 26).
//!
//! The walk is bound to the exact query text it was proven against ([`PROVEN_AGAINST`],
//! a fingerprint of the file): if the vendored query changes, the query runs again until
//! the walk is proven anew. Unit tests in `extract.rs` check that walk and query agree on
//! every Python fixture, on generated token soup (broken syntax included) and, on request,
//! on any directory.

use tree_sitter::{Language as Grammar, Node};

use crate::Deadline;
use crate::capture::{self, Capture};

/// FNV-1a of the Python tag query text the walk reproduces.
pub(crate) const PROVEN_AGAINST: u64 = 0x8163_5bc5_91d9_ec90;

/// Nodes visited between two looks at the clock.
const NODES_PER_CLOCK_CHECK: u32 = 4096;

/// What a node kind starts, by the query's pattern order (which breaks ties between
/// captures at one byte, as tree-sitter's capture order does).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    Module,
    Class,
    Function,
    Call,
}

/// The walk's own capture indices, one per capture name of the query that makes tags
/// ([`CAPTURE_NAMES`]' order; the walk needs no compiled query to find them).
#[derive(Debug)]
struct Captures {
    constant: u32,
    class: u32,
    function: u32,
    call: u32,
}

/// The names of the captures the walk gives, by its capture index.
const CAPTURE_NAMES: [&str; 4] = [
    "name.definition.constant",
    "name.definition.class",
    "name.definition.function",
    "name.reference.call",
];

/// The field ids the patterns follow.
#[derive(Debug)]
struct Fields {
    name: u16,
    function: u16,
    attribute: u16,
    left: u16,
}

/// Kind ids the patterns test below their first node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Below {
    Identifier,
    Attribute,
    ExpressionStatement,
    Assignment,
}

/// Python's tag query as a walk (see the module documentation).
#[derive(Debug)]
pub(crate) struct TagWalk {
    /// Per node kind id: the pattern it starts, if any.
    starts: Vec<Option<Start>>,
    /// Per node kind id: which of the inner kinds it is, if any.
    below: Vec<Option<Below>>,
    fields: Fields,
    captures: Captures,
    /// Per capture index of the walk: the tags its nodes make.
    roles: [Capture; 4],
}

impl TagWalk {
    /// The walk for the Python tag query `text`, or `None` if the text is not the one
    /// the walk was proven against or the grammar lacks a kind or field.
    pub(crate) fn python(text: &str, grammar: &Grammar) -> Option<TagWalk> {
        if crate::fnv1a(crate::FNV_OFFSET, text.bytes()) != PROVEN_AGAINST {
            return None;
        }
        let mut roles = Vec::with_capacity(CAPTURE_NAMES.len());
        for name in CAPTURE_NAMES {
            roles.push(capture::resolve(name).ok().flatten()?);
        }
        let count = grammar.node_kind_count();
        let mut walk = TagWalk {
            starts: vec![None; count],
            below: vec![None; count],
            fields: Fields {
                name: field(grammar, "name")?,
                function: field(grammar, "function")?,
                attribute: field(grammar, "attribute")?,
                left: field(grammar, "left")?,
            },
            captures: Captures {
                constant: 0,
                class: 1,
                function: 2,
                call: 3,
            },
            roles: roles.try_into().ok()?,
        };
        let starts = [
            ("module", Start::Module),
            ("class_definition", Start::Class),
            ("function_definition", Start::Function),
            ("call", Start::Call),
        ];
        for (kind, start) in starts {
            bind(&mut walk.starts, grammar, kind, start)?;
        }
        let below = [
            ("identifier", Below::Identifier),
            ("attribute", Below::Attribute),
            ("expression_statement", Below::ExpressionStatement),
            ("assignment", Below::Assignment),
        ];
        for (kind, inner) in below {
            bind(&mut walk.below, grammar, kind, inner)?;
        }
        Some(walk)
    }

    /// How many capture indices the walk gives ([`TagWalk::role`] of each).
    pub(crate) fn capture_count(&self) -> usize {
        self.roles.len()
    }

    /// The tags the nodes of the walk's capture `index` make.
    pub(crate) fn role(&self, index: u32) -> Capture {
        self.roles[index as usize]
    }

    /// The nodes the query's capture iterator would give under `root`, each with the
    /// walk's capture index, in the iterator's order: by start byte, then by pattern.
    /// Matches starting deeper than
    /// `max_depth` are not looked for. `complete` is false, with what was found so far,
    /// when the deadline passes.
    pub(crate) fn captures<'t>(
        &self,
        root: Node<'t>,
        max_depth: u32,
        deadline: Deadline,
    ) -> Walked<'t> {
        let mut found: Vec<(Start, u32, Node<'t>)> = Vec::new();
        let mut cursor = root.walk();
        let (mut depth, mut visited, mut too_deep) = (0u32, 0u32, false);
        let complete = loop {
            let node = cursor.node();
            if let Some(start) = self.start_of(node) {
                self.capture_under(start, node, &mut found);
            }
            visited = visited.wrapping_add(1);
            if visited.is_multiple_of(NODES_PER_CLOCK_CHECK) && deadline.expired() {
                break false;
            }
            if depth < max_depth {
                if cursor.goto_first_child() {
                    depth += 1;
                    continue;
                }
            } else {
                too_deep |= node.child_count() > 0;
            }
            if !next_in_preorder(&mut cursor, &mut depth) {
                break true;
            }
        };
        Walked {
            found: in_query_order(found),
            complete,
            too_deep,
        }
    }

    fn start_of(&self, node: Node<'_>) -> Option<Start> {
        *self.starts.get(usize::from(node.kind_id()))?
    }

    fn is(&self, node: Node<'_>, kind: Below) -> bool {
        self.below.get(usize::from(node.kind_id())) == Some(&Some(kind))
    }

    /// The identifier in field `field` of `node`, if that child is one.
    fn identifier_in<'t>(&self, node: Node<'t>, field: u16) -> Option<Node<'t>> {
        node.child_by_field_id(field)
            .filter(|n| self.is(*n, Below::Identifier))
    }

    /// Pushes what the pattern starting at `node` captures.
    fn capture_under<'t>(
        &self,
        start: Start,
        node: Node<'t>,
        found: &mut Vec<(Start, u32, Node<'t>)>,
    ) {
        let (fields, captures) = (&self.fields, &self.captures);
        match start {
            Start::Class | Start::Function => {
                let index = if start == Start::Class {
                    captures.class
                } else {
                    captures.function
                };
                if let Some(name) = self.identifier_in(node, fields.name) {
                    found.push((start, index, name));
                }
            }
            Start::Call => {
                let Some(callee) = node.child_by_field_id(fields.function) else {
                    return;
                };
                let name = if self.is(callee, Below::Identifier) {
                    Some(callee)
                } else if self.is(callee, Below::Attribute) {
                    self.identifier_in(callee, fields.attribute)
                } else {
                    None
                };
                found.extend(name.map(|n| (start, captures.call, n)));
            }
            Start::Module => self.capture_constants(node, found),
        }
    }

    /// `(module (expression_statement (assignment left: (identifier) @…)))`.
    fn capture_constants<'t>(&self, module: Node<'t>, found: &mut Vec<(Start, u32, Node<'t>)>) {
        let mut statements = module.walk();
        for statement in module.named_children(&mut statements) {
            if !self.is(statement, Below::ExpressionStatement) {
                continue;
            }
            let mut inner = statement.walk();
            for assignment in statement.named_children(&mut inner) {
                if self.is(assignment, Below::Assignment)
                    && let Some(left) = self.identifier_in(assignment, self.fields.left)
                {
                    found.push((Start::Module, self.captures.constant, left));
                }
            }
        }
    }
}

/// What a walk found.
pub(crate) struct Walked<'t> {
    /// (capture index, node), in the query's order.
    pub found: Vec<(u32, Node<'t>)>,
    /// False when the deadline stopped the walk.
    pub complete: bool,
    /// Whether the tree goes deeper than the walk looked.
    pub too_deep: bool,
}

/// Moves `cursor` past the subtree it is on to the next node in pre-order, keeping
/// `depth`; false at the end of the tree.
fn next_in_preorder(cursor: &mut tree_sitter::TreeCursor<'_>, depth: &mut u32) -> bool {
    while !cursor.goto_next_sibling() {
        if !cursor.goto_parent() {
            return false;
        }
        *depth -= 1;
    }
    true
}

/// Captures sorted as tree-sitter's capture iterator gives them: by start byte, then by
/// pattern, then in the order found.
///
/// The iterator never gives a node that ends where the cursor's range starts (byte 0):
/// a node error recovery inserted (`MISSING`, zero bytes wide) at the very start of the
/// file is matched but not given.
fn in_query_order(mut found: Vec<(Start, u32, Node<'_>)>) -> Vec<(u32, Node<'_>)> {
    found.retain(|(_, _, node)| node.end_byte() > 0);
    found.sort_by_key(|(start, _, node)| (node.start_byte(), *start as u8));
    found
        .into_iter()
        .map(|(_, index, node)| (index, node))
        .collect()
}

fn field(grammar: &Grammar, name: &str) -> Option<u16> {
    grammar.field_id_for_name(name).map(u16::from)
}

/// Points every named kind id called `kind` at `value`; `None` if there is none.
fn bind<T: Copy>(table: &mut [Option<T>], grammar: &Grammar, kind: &str, value: T) -> Option<()> {
    let mut found = false;
    for id in 0..u16::try_from(grammar.node_kind_count()).ok()? {
        if grammar.node_kind_is_named(id) && grammar.node_kind_for_id(id) == Some(kind) {
            *table.get_mut(usize::from(id))? = Some(value);
            found = true;
        }
    }
    found.then_some(())
}
