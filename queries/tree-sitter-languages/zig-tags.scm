(FnProto) @name.definition.function
(VarDecl "const" @name.definition.constant)
(VarDecl "var"   @name.definition.variable)
