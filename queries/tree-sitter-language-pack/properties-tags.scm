(property
  (key) @name.definition.property) @definition.property

(substitution
  (key) @name.reference.property) @reference.property
