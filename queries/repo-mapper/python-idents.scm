; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/python: multiset recall 99%, precision 99% vs pygments.
; pygments' PythonLexer: every identifier (builtins and self included) and each dot of an
; import path (Name.Namespace); it keeps the @ of decorators (@dataclass), which would need
; the parts excluded here.
(identifier) @name.reference.identifier
(import_prefix "." @name.reference.identifier)
(import_statement (dotted_name "." @name.reference.identifier))
(aliased_import (dotted_name "." @name.reference.identifier))
(import_from_statement module_name: (dotted_name "." @name.reference.identifier))
(relative_import (dotted_name "." @name.reference.identifier))
