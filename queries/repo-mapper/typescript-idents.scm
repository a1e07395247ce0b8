; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
(identifier) @name.reference.identifier
(type_identifier) @name.reference.identifier
(property_identifier) @name.reference.identifier
