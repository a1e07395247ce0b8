; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/rust: multiset recall 98%, precision 96% vs pygments.
; pygments' RustLexer: identifiers, type and field names, self and the `macro_rules!` token;
; it keeps the ! of builtin macros (assert!) and lexes #[...] attributes as comments, which
; would need the parts excluded here.
[(identifier) (type_identifier) (field_identifier) (shorthand_field_identifier) (self)
 (fragment_specifier)] @name.reference.identifier
(macro_definition "macro_rules!" @name.reference.identifier)
