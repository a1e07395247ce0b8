(function_declaration
  name: (identifier) @name.definition.function)
(function_signature) @name.definition.function
(variable_declaration "const" @name.definition.constant)
(variable_declaration "var"   @name.definition.variable)
