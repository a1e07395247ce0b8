; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/elixir: multiset recall 95%, precision 100% vs pygments.
; pygments' ElixirLexer: identifiers, Module.Names whole, nil/true/false, &1, but not the
; keywords and special forms below; @attr is one token there (Name.Attribute), which no node
; spans, so attribute names are left out.
([
  (access_call (identifier) @name.reference.identifier)
  (after_block (identifier) @name.reference.identifier)
  (arguments (identifier) @name.reference.identifier)
  (binary_operator (identifier) @name.reference.identifier)
  (bitstring (identifier) @name.reference.identifier)
  (block (identifier) @name.reference.identifier)
  (body (identifier) @name.reference.identifier)
  (catch_block (identifier) @name.reference.identifier)
  (do_block (identifier) @name.reference.identifier)
  (dot (identifier) @name.reference.identifier)
  (else_block (identifier) @name.reference.identifier)
  (interpolation (identifier) @name.reference.identifier)
  (list (identifier) @name.reference.identifier)
  (map_content (identifier) @name.reference.identifier)
  (pair (identifier) @name.reference.identifier)
  (rescue_block (identifier) @name.reference.identifier)
  (source (identifier) @name.reference.identifier)
  (struct (identifier) @name.reference.identifier)
  (tuple (identifier) @name.reference.identifier)
  (unary_operator operator: ["!" "&" "+" "-" "^" "not" "~~~"]
    operand: (identifier) @name.reference.identifier)
  ; call targets, except @attr value
  (access_call (call target: (identifier) @name.reference.identifier))
  (after_block (call target: (identifier) @name.reference.identifier))
  (arguments (call target: (identifier) @name.reference.identifier))
  (binary_operator (call target: (identifier) @name.reference.identifier))
  (bitstring (call target: (identifier) @name.reference.identifier))
  (block (call target: (identifier) @name.reference.identifier))
  (body (call target: (identifier) @name.reference.identifier))
  (catch_block (call target: (identifier) @name.reference.identifier))
  (do_block (call target: (identifier) @name.reference.identifier))
  (dot (call target: (identifier) @name.reference.identifier))
  (else_block (call target: (identifier) @name.reference.identifier))
  (interpolation (call target: (identifier) @name.reference.identifier))
  (list (call target: (identifier) @name.reference.identifier))
  (map_content (call target: (identifier) @name.reference.identifier))
  (pair (call target: (identifier) @name.reference.identifier))
  (rescue_block (call target: (identifier) @name.reference.identifier))
  (source (call target: (identifier) @name.reference.identifier))
  (struct (call target: (identifier) @name.reference.identifier))
  (tuple (call target: (identifier) @name.reference.identifier))
  (unary_operator operator: ["!" "&" "+" "-" "^" "not" "~~~"]
    operand: (call target: (identifier) @name.reference.identifier))
]
  (#not-any-of? @name.reference.identifier
    "fn" "do" "end" "after" "else" "rescue" "catch" "not" "and" "or" "when" "in"
    "case" "cond" "for" "if" "unless" "try" "receive" "raise" "quote" "unquote"
    "unquote_splicing" "throw" "super" "def" "defp" "defmodule" "defprotocol" "defmacro"
    "defmacrop" "defdelegate" "defexception" "defstruct" "defimpl" "defcallback" "import"
    "require" "use" "alias"))
(alias) @name.reference.identifier
[(nil) (boolean)] @name.reference.identifier
(unary_operator operator: "&" operand: (integer)) @name.reference.identifier
