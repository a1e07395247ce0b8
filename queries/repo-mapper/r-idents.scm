; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/r: recall 37%, precision 9% vs REBOL; 100%/100% vs R.
; Aider lexes *.r with pygments' REBOL lexer (guess_lexer_for_filename), which yields noise;
; this follows pygments' R lexer (SLexer) instead: identifiers, but return/switch (keywords).
((identifier) @name.reference.identifier
  (#not-any-of? @name.reference.identifier "return" "switch"))
