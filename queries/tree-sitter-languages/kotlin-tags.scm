; Definitions

(class_declaration
  name: (identifier) @name.definition.class) @definition.class

(function_declaration
  name: (identifier) @name.definition.function) @definition.function

(object_declaration
  name: (identifier) @name.definition.object) @definition.object

; References

(call_expression
  [
    (identifier) @name.reference.call
    (navigation_expression
      (identifier) @name.reference.call .)
  ]) @reference.call

(delegation_specifier
  [
    (user_type) @name.reference.type
    (constructor_invocation
      (user_type) @name.reference.type)
  ]) @reference.type
