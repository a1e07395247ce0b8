
(class_declaration
  name: (identifier) @name.definition.class) @definition.class

(method_signature
  (function_signature)) @definition.method

(type_alias
  [
    (type_identifier) @name.definition.type
    (type (type_identifier) @name.definition.type)
  ]) @definition.type

(method_signature
(getter_signature
  name: (identifier) @name.definition.method)) @definition.method

(method_signature
(setter_signature
  name: (identifier) @name.definition.method)) @definition.method 

(method_signature
  (function_signature
  name: (identifier) @name.definition.method)) @definition.method

(method_signature
  (factory_constructor_signature
    (identifier) @name.definition.method)) @definition.method

(method_signature
  (constructor_signature
  name: (identifier) @name.definition.method)) @definition.method

(method_signature
  (operator_signature)) @definition.method

(method_signature) @definition.method

(mixin_declaration
  name: (identifier) @name.definition.mixin) @definition.mixin

(extension_declaration
  name: (identifier) @name.definition.extension) @definition.extension


(new_expression
  type: (type
    (type_identifier) @name.reference.class)) @reference.class

(enum_declaration
  name: (identifier) @name.definition.enum) @definition.enum

(function_signature
  name: (identifier) @name.definition.function) @definition.function 

; The value is a selector chain (call, member or index access, null assertion,
; cascade) headed by an identifier; chains of up to two selectors.
(initialized_variable_declaration
  name: (identifier)
  value: [
    (identifier) @name.reference.class
    (cascade . (identifier) @name.reference.class)
    (_ object: (identifier) @name.reference.class)
    (_ function: (identifier) @name.reference.class)
    (null_assertion_expression value: (identifier) @name.reference.class)
    (_ object: (_ object: (identifier) @name.reference.class))
    (_ object: (_ function: (identifier) @name.reference.class))
    (_ object: (null_assertion_expression value: (identifier) @name.reference.class))
    (_ function: (_ object: (identifier) @name.reference.class))
    (_ function: (_ function: (identifier) @name.reference.class))
    (null_assertion_expression value: (_ object: (identifier) @name.reference.class))
    (null_assertion_expression value: (_ function: (identifier) @name.reference.class))
  ]) @reference.class

(assignment_expression
  left: (assignable_expression 
		  object: (identifier)
		  "."
		  property: (identifier) @name.reference.send)) @reference.call

(assignment_expression
  left: (assignable_expression 
		  object: (identifier)
		  "?."
		  property: (identifier) @name.reference.send)) @reference.call

((identifier) @name.reference.send
	(cascade_section
	  (cascade_selector
		(identifier)) @name.reference.send)?) @reference.call
