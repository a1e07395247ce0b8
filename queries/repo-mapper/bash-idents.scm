; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
(command_name) @name.reference.identifier
(variable_name) @name.reference.identifier
