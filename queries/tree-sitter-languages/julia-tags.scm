;; derived from: https://github.com/tree-sitter/tree-sitter-julia
;; License: MIT

(module_definition
  name: (identifier) @name.definition.module) @definition.module

; A type head is `Name`, `Name{T}`, `Name <: Super` or `Name{T} <: Super`; a mutable
; struct is a struct_definition too.
(struct_definition
  (type_head
    [
      (identifier) @name.definition.class
      (parametrized_type_expression . (identifier) @name.definition.class)
      (binary_expression . (identifier) @name.definition.class)
      (binary_expression . (parametrized_type_expression . (identifier) @name.definition.class))
    ])) @definition.class

(abstract_definition
  (type_head
    [
      (identifier) @name.definition.class
      (parametrized_type_expression . (identifier) @name.definition.class)
      (binary_expression . (identifier) @name.definition.class)
      (binary_expression . (parametrized_type_expression . (identifier) @name.definition.class))
    ])) @definition.class

(const_statement
  (assignment . (identifier) @name.definition.class)) @definition.class

; The name is the callee of the signature, which may carry a return type and a where clause.
(function_definition
  (signature
    [
      (identifier) @name.definition.function
      (call_expression . (identifier) @name.definition.function)
      (typed_expression . (call_expression . (identifier) @name.definition.function))
      (where_expression . (call_expression . (identifier) @name.definition.function))
      (where_expression . (typed_expression . (call_expression . (identifier) @name.definition.function)))
    ])) @definition.function

(function_definition
  (signature
    [
      (call_expression . (field_expression) @name.definition.function)
      (typed_expression . (call_expression . (field_expression) @name.definition.function))
      (where_expression . (call_expression . (field_expression) @name.definition.function))
      (where_expression . (typed_expression . (call_expression . (field_expression) @name.definition.function)))
    ])) @definition.function

(assignment
  .
  [
    (call_expression . (identifier) @name.definition.function)
    (typed_expression . (call_expression . (identifier) @name.definition.function))
    (where_expression . (call_expression . (identifier) @name.definition.function))
    (where_expression . (typed_expression . (call_expression . (identifier) @name.definition.function)))
  ]) @definition.function

(macro_definition
  (signature
    (call_expression . (identifier) @name.definition.macro))) @definition.macro

(macrocall_expression
  (macro_identifier (identifier) @name.reference.call)) @reference.call

(call_expression
  . (identifier) @name.reference.call) @reference.call

(call_expression
  . (field_expression) @name.reference.call) @reference.call

(typed_expression
  [
    (identifier) @name.reference.type
    (parametrized_type_expression . (identifier) @name.reference.type)
  ] .) @reference.type

(const_statement
  (assignment . (identifier) @name.definition.constant)) @definition.constant

(export_statement
  (identifier) @name.reference.export) @reference.export

(using_statement
  (identifier) @name.reference.module) @reference.module

(import_statement
  (identifier) @name.reference.module) @reference.module
