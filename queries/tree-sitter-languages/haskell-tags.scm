(function  (variable) @name.definition.function)
(bind      (variable) @name.definition.function)
(signature (variable) @name.definition.type)
