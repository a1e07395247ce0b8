; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/chatito: no pygments lexer, so nothing to compare with.
; No pygments lexer for Chatito (Aider yields nothing); the names a reader would call
; references: every intent, slot and alias name, at definitions and @[...]/~[...] uses.
[(intent) (slot) (alias)] @name.reference.identifier
