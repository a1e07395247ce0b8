//! Tag queries as one walk over the tree instead of a query cursor: Python's, JavaScript's
//! and C's.
//!
//! `tree-sitter-language-pack/python-tags.scm` has four patterns, each a node kind and a
//! fixed path of fields below it: a class's or function's `name:` identifier, a call's
//! `function:` identifier or the `attribute:` identifier of its `function:` attribute, and
//! the `left:` identifier of an assignment in a top-level expression statement.
//! `javascript-tags.scm` has ten of the same shape (methods, classes, functions, functions
//! bound by a declaration, an assignment or an object's key, calls, `new`), two with a
//! text predicate (`constructor` is no method, `require` no call) and five led by
//! `(comment)* @doc .`, which makes no tag and changes no match: a definition is matched
//! with or without comments before it. `c-tags.scm` has five (structs with a body, unions
//! declared, function declarators, typedefs, enums). A cursor walk that looks for those kinds and follows
//! those fields finds the nodes the query captures for a fraction of the query cursor's
//! work (Django's cold run spent 0.44 s of its 2 cores' time in the Python query beyond
//! the parse; its 112 JavaScript files cost twice their parse in the query; issue 26).
//!
//! Each walk is bound to the exact query text it was proven against (`PROVEN_*`, a
//! fingerprint of the file): if the vendored query changes, the query runs again until
//! the walk is proven anew. Unit tests in `extract.rs` check that walk and query agree on
//! every fixture of the language, on generated token soup (broken syntax included) and, on
//! request, on any directory.

use tree_sitter::{Language as Grammar, Node};

use crate::Deadline;
use crate::capture::{self, Capture};

/// FNV-1a of the Python tag query text the Python walk reproduces.
pub(crate) const PROVEN_PYTHON: u64 = 0x8163_5bc5_91d9_ec90;

/// FNV-1a of the JavaScript tag query text the JavaScript walk reproduces.
pub(crate) const PROVEN_JAVASCRIPT: u64 = 0x357d_d601_d1c7_fd37;

/// FNV-1a of the C tag query text the C walk reproduces.
pub(crate) const PROVEN_C: u64 = 0x2871_cb40_ed14_595f;

/// Nodes visited between two looks at the clock.
const NODES_PER_CLOCK_CHECK: u32 = 4096;

/// What a node kind starts: the patterns whose first node it is (the comments some
/// JavaScript patterns start with make no tag and are not looked for).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Start {
    PyModule,
    PyClass,
    PyFunction,
    PyCall,
    JsMethod,
    JsClass,
    JsFunction,
    JsLexical,
    JsVariable,
    JsAssignment,
    JsPair,
    JsCall,
    JsNew,
    CStruct,
    CDeclaration,
    CFunction,
    CTypedef,
    CEnum,
}

/// The tags a walk's capture index makes: one per capture name of the query that makes
/// tags (the walk needs no compiled query to find them).
const PYTHON_CAPTURES: [&str; 4] = [
    "name.definition.constant",
    "name.definition.class",
    "name.definition.function",
    "name.reference.call",
];
const C_CAPTURES: [&str; 3] = [
    "name.definition.class",
    "name.definition.function",
    "name.definition.type",
];
const JAVASCRIPT_CAPTURES: [&str; 5] = [
    "name.definition.method",
    "name.definition.class",
    "name.definition.function",
    "name.reference.call",
    "name.reference.class",
];

/// The field ids the patterns follow (0, no field, where the language's patterns follow
/// none of that name).
#[derive(Debug, Default)]
struct Fields {
    name: u16,
    function: u16,
    attribute: u16,
    left: u16,
    right: u16,
    value: u16,
    key: u16,
    property: u16,
    arguments: u16,
    constructor: u16,
    body: u16,
    r#type: u16,
    declarator: u16,
}

/// Kind ids the patterns test below their first node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Below {
    Identifier,
    Attribute,
    ExpressionStatement,
    Assignment,
    PropertyIdentifier,
    MemberExpression,
    VariableDeclarator,
    /// `[(arrow_function) (function_expression)]`, a bound function's value.
    FunctionValue,
    TypeIdentifier,
    UnionSpecifier,
}

/// A tag query as a walk (see the module documentation).
#[derive(Debug)]
pub(crate) struct TagWalk {
    /// Per node kind id: the patterns it starts, if any.
    starts: Vec<Option<Start>>,
    /// Per node kind id: which of the inner kinds it is, if any.
    below: Vec<Option<Below>>,
    fields: Fields,
    /// Per capture index of the walk: the tags its nodes make.
    roles: Vec<Capture>,
}

impl TagWalk {
    /// The walk for the Python tag query `text`, or `None` if the text is not the one
    /// the walk was proven against or the grammar lacks a kind or field.
    pub(crate) fn python(text: &str, grammar: &Grammar) -> Option<TagWalk> {
        if crate::fnv1a(crate::FNV_OFFSET, text.bytes()) != PROVEN_PYTHON {
            return None;
        }
        let fields = Fields {
            name: field(grammar, "name")?,
            function: field(grammar, "function")?,
            attribute: field(grammar, "attribute")?,
            left: field(grammar, "left")?,
            ..Fields::default()
        };
        let starts = [
            ("module", Start::PyModule),
            ("class_definition", Start::PyClass),
            ("function_definition", Start::PyFunction),
            ("call", Start::PyCall),
        ];
        let below = [
            ("identifier", Below::Identifier),
            ("attribute", Below::Attribute),
            ("expression_statement", Below::ExpressionStatement),
            ("assignment", Below::Assignment),
        ];
        TagWalk::bound(grammar, &PYTHON_CAPTURES, fields, &starts, &below)
    }

    /// The walk for the JavaScript tag query `text`, as [`TagWalk::python`].
    pub(crate) fn javascript(text: &str, grammar: &Grammar) -> Option<TagWalk> {
        if crate::fnv1a(crate::FNV_OFFSET, text.bytes()) != PROVEN_JAVASCRIPT {
            return None;
        }
        let fields = Fields {
            name: field(grammar, "name")?,
            function: field(grammar, "function")?,
            left: field(grammar, "left")?,
            right: field(grammar, "right")?,
            value: field(grammar, "value")?,
            key: field(grammar, "key")?,
            property: field(grammar, "property")?,
            arguments: field(grammar, "arguments")?,
            constructor: field(grammar, "constructor")?,
            ..Fields::default()
        };
        let starts = [
            ("method_definition", Start::JsMethod),
            ("class", Start::JsClass),
            ("class_declaration", Start::JsClass),
            ("function_expression", Start::JsFunction),
            ("function_declaration", Start::JsFunction),
            ("generator_function", Start::JsFunction),
            ("generator_function_declaration", Start::JsFunction),
            ("lexical_declaration", Start::JsLexical),
            ("variable_declaration", Start::JsVariable),
            ("assignment_expression", Start::JsAssignment),
            ("pair", Start::JsPair),
            ("call_expression", Start::JsCall),
            ("new_expression", Start::JsNew),
        ];
        let below = [
            ("identifier", Below::Identifier),
            ("property_identifier", Below::PropertyIdentifier),
            ("member_expression", Below::MemberExpression),
            ("variable_declarator", Below::VariableDeclarator),
            ("arrow_function", Below::FunctionValue),
            ("function_expression", Below::FunctionValue),
        ];
        TagWalk::bound(grammar, &JAVASCRIPT_CAPTURES, fields, &starts, &below)
    }

    /// The walk for the C tag query `text`, as [`TagWalk::python`].
    pub(crate) fn c(text: &str, grammar: &Grammar) -> Option<TagWalk> {
        if crate::fnv1a(crate::FNV_OFFSET, text.bytes()) != PROVEN_C {
            return None;
        }
        let fields = Fields {
            name: field(grammar, "name")?,
            body: field(grammar, "body")?,
            r#type: field(grammar, "type")?,
            declarator: field(grammar, "declarator")?,
            ..Fields::default()
        };
        let starts = [
            ("struct_specifier", Start::CStruct),
            ("declaration", Start::CDeclaration),
            ("function_declarator", Start::CFunction),
            ("type_definition", Start::CTypedef),
            ("enum_specifier", Start::CEnum),
        ];
        let below = [
            ("identifier", Below::Identifier),
            ("type_identifier", Below::TypeIdentifier),
            ("union_specifier", Below::UnionSpecifier),
        ];
        TagWalk::bound(grammar, &C_CAPTURES, fields, &starts, &below)
    }

    /// A walk over `grammar`'s kinds: `None` if a capture name or kind is unknown.
    fn bound(
        grammar: &Grammar,
        captures: &[&str],
        fields: Fields,
        starts: &[(&str, Start)],
        below: &[(&str, Below)],
    ) -> Option<TagWalk> {
        let roles = (captures.iter())
            .map(|name| capture::resolve(name).ok().flatten())
            .collect::<Option<Vec<Capture>>>()?;
        let count = grammar.node_kind_count();
        let mut walk = TagWalk {
            starts: vec![None; count],
            below: vec![None; count],
            fields,
            roles,
        };
        for &(kind, start) in starts {
            bind(&mut walk.starts, grammar, kind, start)?;
        }
        for &(kind, inner) in below {
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

    /// The nodes the query's capture iterator would give under `root` (the tree of
    /// `source`), each with the walk's capture index, in the iterator's order: by start
    /// byte, then by pattern. Matches starting deeper than `max_depth` are not looked for.
    /// `complete` is false, with what was found so far, when the deadline passes.
    pub(crate) fn captures<'t>(
        &self,
        root: Node<'t>,
        source: &[u8],
        max_depth: u32,
        deadline: Deadline,
    ) -> Walked<'t> {
        let mut found = Found {
            source,
            nodes: Vec::new(),
        };
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
        let (found, tied) = in_query_order(found.nodes);
        Walked {
            found,
            complete,
            too_deep,
            tied,
        }
    }

    fn start_of(&self, node: Node<'_>) -> Option<Start> {
        *self.starts.get(usize::from(node.kind_id()))?
    }

    fn is(&self, node: Node<'_>, kind: Below) -> bool {
        self.below.get(usize::from(node.kind_id())) == Some(&Some(kind))
    }

    /// The child in field `field` of `node`, if it is of kind `kind`.
    fn child_is<'t>(&self, node: Node<'t>, field: u16, kind: Below) -> Option<Node<'t>> {
        node.child_by_field_id(field).filter(|n| self.is(*n, kind))
    }

    /// The child in field `field` of `node`, if it is a named node (`(_)`).
    fn named_child_in<'t>(node: Node<'t>, field: u16) -> Option<Node<'t>> {
        node.child_by_field_id(field).filter(Node::is_named)
    }

    /// Pushes what the patterns starting at `node` capture.
    fn capture_under<'t>(&self, start: Start, node: Node<'t>, found: &mut Found<'_, 't>) {
        let f = &self.fields;
        match start {
            Start::PyModule => self.python_constants(node, found),
            Start::PyClass => found.push(1, 1, self.child_is(node, f.name, Below::Identifier)),
            Start::PyFunction => found.push(2, 2, self.child_is(node, f.name, Below::Identifier)),
            Start::PyCall => {
                let callee = node.child_by_field_id(f.function);
                let name = callee.and_then(|c| match self.is(c, Below::Identifier) {
                    true => Some(c),
                    false => (self.is(c, Below::Attribute))
                        .then(|| self.child_is(c, f.attribute, Below::Identifier))
                        .flatten(),
                });
                found.push(3, 3, name);
            }
            Start::JsMethod => {
                let name = self.child_is(node, f.name, Below::PropertyIdentifier);
                found.push(0, 0, name.filter(|n| found.text(*n) != b"constructor"));
            }
            Start::JsClass => found.push(1, 1, Self::named_child_in(node, f.name)),
            Start::JsFunction => found.push(2, 2, self.child_is(node, f.name, Below::Identifier)),
            Start::JsLexical => self.bound_functions(3, node, found),
            Start::JsVariable => self.bound_functions(4, node, found),
            Start::JsAssignment => {
                let bound = self.child_is(node, f.right, Below::FunctionValue).is_some();
                let left = node.child_by_field_id(f.left).filter(|_| bound);
                let name = left.and_then(|l| match self.is(l, Below::Identifier) {
                    true => Some(l),
                    false => (self.is(l, Below::MemberExpression))
                        .then(|| self.child_is(l, f.property, Below::PropertyIdentifier))
                        .flatten(),
                });
                found.push(5, 2, name);
            }
            Start::JsPair => {
                let bound = self.child_is(node, f.value, Below::FunctionValue).is_some();
                let key = self.child_is(node, f.key, Below::PropertyIdentifier);
                found.push(6, 2, key.filter(|_| bound));
            }
            Start::JsCall => self.javascript_call(node, found),
            Start::JsNew => found.push(9, 4, Self::named_child_in(node, f.constructor)),
            Start::CStruct => {
                let body = Self::named_child_in(node, f.body).is_some();
                let name = self.child_is(node, f.name, Below::TypeIdentifier);
                found.push(0, 0, name.filter(|_| body));
            }
            Start::CDeclaration => {
                let union = self.child_is(node, f.r#type, Below::UnionSpecifier);
                let name = union.and_then(|u| self.child_is(u, f.name, Below::TypeIdentifier));
                found.push(1, 0, name);
            }
            Start::CFunction => {
                found.push(2, 1, self.child_is(node, f.declarator, Below::Identifier))
            }
            Start::CTypedef => self.typedef_names(node, found),
            Start::CEnum => found.push(4, 2, self.child_is(node, f.name, Below::TypeIdentifier)),
        }
    }

    /// `(module (expression_statement (assignment left: (identifier) @…)))`.
    fn python_constants<'t>(&self, module: Node<'t>, found: &mut Found<'_, 't>) {
        let mut statements = module.walk();
        for statement in module.named_children(&mut statements) {
            if !self.is(statement, Below::ExpressionStatement) {
                continue;
            }
            let mut inner = statement.walk();
            for assignment in statement.named_children(&mut inner) {
                if self.is(assignment, Below::Assignment) {
                    let left = self.child_is(assignment, self.fields.left, Below::Identifier);
                    found.push(0, 0, left);
                }
            }
        }
    }

    /// `(lexical_declaration (variable_declarator name: (identifier) @… value:
    /// [(arrow_function) (function_expression)]))` (pattern 3; `variable_declaration`:
    /// pattern 4), once per declarator.
    fn bound_functions<'t>(&self, pattern: u8, declaration: Node<'t>, found: &mut Found<'_, 't>) {
        let f = &self.fields;
        let mut children = declaration.walk();
        for declarator in declaration.named_children(&mut children) {
            if self.is(declarator, Below::VariableDeclarator)
                && self
                    .child_is(declarator, f.value, Below::FunctionValue)
                    .is_some()
            {
                found.push(
                    pattern,
                    2,
                    self.child_is(declarator, f.name, Below::Identifier),
                );
            }
        }
    }

    /// `(type_definition declarator: (type_identifier) @…)` (pattern 3), once per
    /// declarator: `typedef struct s a, b;` names two types.
    fn typedef_names<'t>(&self, typedef: Node<'t>, found: &mut Found<'_, 't>) {
        let Some(field) = std::num::NonZeroU16::new(self.fields.declarator) else {
            return;
        };
        let mut children = typedef.walk();
        for declarator in typedef.children_by_field_id(field, &mut children) {
            if self.is(declarator, Below::TypeIdentifier) {
                found.push(3, 2, Some(declarator));
            }
        }
    }

    /// A call's callee: an identifier other than `require` (pattern 7), or the property
    /// of a member expression when the call has arguments (pattern 8).
    fn javascript_call<'t>(&self, call: Node<'t>, found: &mut Found<'_, 't>) {
        let f = &self.fields;
        let Some(callee) = call.child_by_field_id(f.function) else {
            return;
        };
        if self.is(callee, Below::Identifier) {
            found.push(7, 3, Some(callee).filter(|n| found.text(*n) != b"require"));
        } else if self.is(callee, Below::MemberExpression)
            && Self::named_child_in(call, f.arguments).is_some()
        {
            found.push(
                8,
                3,
                self.child_is(callee, f.property, Below::PropertyIdentifier),
            );
        }
    }
}

/// What a walk has found so far: (pattern, capture index, node).
struct Found<'s, 't> {
    source: &'s [u8],
    nodes: Vec<(u8, u32, Node<'t>)>,
}

impl<'t> Found<'_, 't> {
    fn push(&mut self, pattern: u8, capture: u32, node: Option<Node<'t>>) {
        self.nodes.extend(node.map(|n| (pattern, capture, n)));
    }

    /// `node`'s text, for the queries' text predicates (`#not-eq?`, `#not-match?`).
    fn text(&self, node: Node<'_>) -> &[u8] {
        self.source.get(node.byte_range()).unwrap_or_default()
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
    /// Whether two captures start at one byte: their order is then the query cursor's
    /// timing (which match ended before the other began; see [`in_query_order`]), and
    /// only the query can tell it.
    pub tied: bool,
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

/// Captures sorted as tree-sitter's capture iterator gives them: by start byte (a node
/// is captured when the cursor reaches it, in pre-order, and held while a match still in
/// progress has an earlier capture); and whether two start at one byte. Those two come in
/// pattern order when both matches were in progress together, else the one whose match
/// ended first comes first (`new a`t`.b`: `new`'s constructor, `a`t`.b`, is given before
/// the call `a`t``, found below it after `new`'s match ended); the walk does not follow
/// the cursor's matches, so it leaves such a file to the query.
///
/// The iterator never gives a node that ends where the cursor's range starts (byte 0):
/// a node error recovery inserted (`MISSING`, zero bytes wide) at the very start of the
/// file is matched but not given.
fn in_query_order(mut found: Vec<(u8, u32, Node<'_>)>) -> (Vec<(u32, Node<'_>)>, bool) {
    found.retain(|(_, _, node)| node.end_byte() > 0);
    found.sort_by_key(|&(pattern, _, node)| (node.start_byte(), pattern));
    let tied = (found.windows(2)).any(|w| w[0].2.start_byte() == w[1].2.start_byte());
    let found = found
        .into_iter()
        .map(|(_, index, node)| (index, node))
        .collect();
    (found, tied)
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
