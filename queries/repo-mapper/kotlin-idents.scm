; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/kotlin: multiset recall 95%, precision 92% vs pygments.
; pygments' KotlinLexer: identifiers except the keywords, builtin types and constants below.
; It keeps package/import paths whole, and glues a nullable type's `?` and the following
; character onto the name (`Task? `), which no node reproduces.
((identifier) @name.reference.identifier
  (#not-any-of? @name.reference.identifier
    "as" "break" "by" "catch" "constructor" "continue" "do" "dynamic" "else" "finally" "get"
    "for" "if" "init" "in" "is" "out" "reified" "return" "set" "super" "this" "throw" "try"
    "typealias" "typeof" "vararg" "when" "where" "while" "Boolean" "Byte" "Char" "Double"
    "Float" "Int" "Long" "Short" "String" "Any" "Unit" "true" "false" "null"))
