; Bash tag query: repo-mapper's own (Aider 0.86.2 ships none for bash).

(function_definition
  name: (word) @name.definition.function) @definition.function

(variable_assignment
  name: (variable_name) @name.definition.variable) @definition.variable

(command
  name: (command_name (word) @name.reference.call)) @reference.call

(simple_expansion
  (variable_name) @name.reference.variable) @reference.variable

(expansion
  (variable_name) @name.reference.variable) @reference.variable
