; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/udev: no pygments lexer, so nothing to compare with.
; No pygments lexer for udev rules (Aider yields nothing); the names a reader would call
; references: ENV{...}/$env{...} variables, ATTR{...}/$attr{...} attributes, GOTO/LABEL labels.
[(env_var) (attribute) (kernel_param)] @name.reference.identifier
(assignment key: ["GOTO" "LABEL"] (value (content) @name.reference.identifier))
