//! What the captures of a tag query stand for, resolved once per compiled query.
//!
//! A tag query marks the names it finds with captures named `name.definition.<sub-kind>`
//! and `name.reference.<sub-kind>`; every other capture (`@doc`, `@definition.function`,
//! helpers of predicates) makes no tag. When a query compiles, `registry.rs` resolves each
//! of its capture indices here to a [`Capture`] (as tree-sitter's own `tags` crate does), so
//! the capture loop never looks at a capture's name.
//!
//! Sub-kinds are handed out as `&'static str` from one sorted list, [`SUB_KINDS`], which
//! tags read back from storage share through [`known_sub_kind`] without compiling any
//! query. A query whose sub-kind is missing from the list does not compile (the test suite
//! compiles every embedded query, and checks the list holds nothing else).

#[cfg(any(feature = "extract", test))]
use crate::TagKind;

/// Every sub-kind the embedded queries capture, and `identifier` (the sub-kind of the
/// identifier fallback's references), in byte order.
pub(crate) static SUB_KINDS: &[&str] = &[
    "alias",
    "call",
    "class",
    "constant",
    "constructor",
    "data",
    "enum",
    "export",
    "extension",
    "function",
    "identifier",
    "implementation",
    "intent",
    "interface",
    "label",
    "local",
    "macro",
    "method",
    "mixin",
    "module",
    "object",
    "output",
    "property",
    "provider",
    "resource",
    "send",
    "slot",
    "type",
    "union",
    "variable",
];

/// The tag one capture of a query makes.
#[cfg(any(feature = "extract", test))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Capture {
    /// `Def` for `name.definition.*`, `Ref` for `name.reference.*`.
    pub(crate) kind: TagKind,
    /// The part after the prefix, from [`SUB_KINDS`].
    pub(crate) sub_kind: &'static str,
}

/// The tag a capture named `name` makes: `Ok(None)` for a capture that makes none, `Err`
/// with the sub-kind when it is not in [`SUB_KINDS`].
#[cfg(any(feature = "extract", test))]
pub(crate) fn resolve(name: &str) -> Result<Option<Capture>, &str> {
    let (kind, sub) = if let Some(sub) = name.strip_prefix("name.definition.") {
        (TagKind::Def, sub)
    } else if let Some(sub) = name.strip_prefix("name.reference.") {
        (TagKind::Ref, sub)
    } else {
        return Ok(None);
    };
    let sub_kind = known_sub_kind(sub).ok_or(sub)?;
    Ok(Some(Capture { kind, sub_kind }))
}

/// The sub-kind `name` as the embedded queries spell it (`&'static`), or `None` when no
/// embedded query captures it and it is not `identifier`. The store maps sub-kinds read
/// back from disk through it, so stored tags compare equal to fresh ones; a name it does
/// not know can only come from a damaged entry (stores are versioned by
/// [`queries_fingerprint`](crate::queries_fingerprint)).
pub fn known_sub_kind(name: &str) -> Option<&'static str> {
    SUB_KINDS.binary_search(&name).ok().map(|at| SUB_KINDS[at])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_kinds_are_sorted_and_distinct() {
        assert!(SUB_KINDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn capture_names_resolve() {
        let def = |sub_kind| Capture {
            kind: TagKind::Def,
            sub_kind,
        };
        assert_eq!(
            resolve("name.definition.function"),
            Ok(Some(def("function")))
        );
        assert_eq!(
            resolve("name.reference.call"),
            Ok(Some(Capture {
                kind: TagKind::Ref,
                sub_kind: "call"
            }))
        );
        assert_eq!(resolve("definition.function"), Ok(None));
        assert_eq!(resolve("doc"), Ok(None));
        assert_eq!(resolve("name"), Ok(None));
        assert_eq!(resolve("name.definition.spaceship"), Err("spaceship"));
    }

    #[test]
    fn known_sub_kinds_are_the_static_ones() {
        let fresh = String::from("method");
        let known = known_sub_kind(&fresh).unwrap();
        assert_eq!(known, "method");
        assert!(SUB_KINDS.iter().any(|&s| std::ptr::eq(s, known)));
        assert_eq!(known_sub_kind("identifier"), Some("identifier"));
        assert_eq!(known_sub_kind("no-such-kind"), None);
    }
}
