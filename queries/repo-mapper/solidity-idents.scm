; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/solidity: multiset recall 93%, precision 93% vs pygments.
; pygments' SolidityLexer names little: contract/enum/event/function/struct names, the word
; after an elementary type (and one visibility), so `memory`/`immutable` rather than the
; name there, and keccak256; every other identifier is plain text.
(contract_declaration name: (identifier) @name.reference.identifier)
(enum_declaration name: (identifier) @name.reference.identifier)
(event_definition name: (identifier) @name.reference.identifier)
(function_definition name: (identifier) @name.reference.identifier)
(struct_declaration name: (identifier) @name.reference.identifier)
(struct_member type: (type_name !key_type (primitive_type))
  name: (identifier) @name.reference.identifier)
(error_parameter type: (type_name !key_type (primitive_type))
  name: (identifier) @name.reference.identifier)
(event_parameter type: (type_name !key_type (primitive_type))
  name: (identifier) @name.reference.identifier)
(parameter type: (type_name !key_type (primitive_type))
  !location name: (identifier) @name.reference.identifier)
(parameter type: (type_name !key_type (primitive_type))
  location: _ @name.reference.identifier)
(variable_declaration type: (type_name !key_type (primitive_type))
  !location name: (identifier) @name.reference.identifier)
(variable_declaration type: (type_name !key_type (primitive_type))
  location: _ @name.reference.identifier)
(state_variable_declaration type: (type_name !key_type (primitive_type))
  . name: (identifier) @name.reference.identifier)
(state_variable_declaration type: (type_name !key_type (primitive_type))
  . (visibility) . name: (identifier) @name.reference.identifier)
(state_variable_declaration type: (type_name !key_type (primitive_type))
  (immutable) @name.reference.identifier)
((identifier) @name.reference.identifier
  (#eq? @name.reference.identifier "keccak256"))
