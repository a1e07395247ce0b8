; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/ocaml_interface: multiset recall 100%, precision 100% vs pygments.
; pygments' OcamlLexer: every lower- or upper-case name (modules, constructors, fields,
; types...) except keywords, `raise` and the primitive types below; () [] true false too.
((value_name) @name.reference.identifier
  (#not-any-of? @name.reference.identifier
    "raise" "mod" "land" "lor" "lxor" "lsl" "lsr" "asr" "or"))
((type_constructor) @name.reference.identifier
  (#not-any-of? @name.reference.identifier
    "unit" "int" "float" "bool" "string" "char" "list" "array"))
[
  (value_pattern) (field_name) (constructor_name) (module_name) (module_type_name)
  (class_name) (class_type_name) (method_name) (instance_variable_name) (label_name)
  (empty_list) (boolean) (unit)
] @name.reference.identifier
