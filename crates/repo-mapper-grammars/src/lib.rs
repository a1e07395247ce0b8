//! Tree-sitter grammars that repo-mapper needs but cannot take from crates.io.
//!
//! * **pony**: the `tree-sitter-pony` crate still depends on tree-sitter 0.20, whose
//!   `Language` type cannot be used with the tree-sitter 0.25 the rest of the workspace
//!   uses. Its generated parser (ABI 14) is vendored unchanged under `grammars/pony`.
//!
//! Each grammar is exposed as a [`LanguageFn`], which converts into
//! `tree_sitter::Language` with `.into()`.

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_pony() -> *const ();
}

/// The Pony grammar (amaanq/tree-sitter-pony 1.0.0, MIT).
pub const PONY: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_pony) };

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
}
