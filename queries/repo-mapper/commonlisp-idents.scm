; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/commonlisp: multiset recall 100%, precision 100% vs pygments.
; pygments' CommonLispLexer: symbols are names (builtins, t and nil included) except quoted
; ones ('x, String.Symbol) and the special forms, lambda-list keywords, declarations and
; types below (keywords there); loop words and the #' of #'f are names too.
([
  (accumulation_clause (sym_lit) @name.reference.identifier)
  (condition_clause (sym_lit) @name.reference.identifier)
  (defun value: (sym_lit) @name.reference.identifier)
  (defun_header [function_name: (sym_lit) specifier: (sym_lit)] @name.reference.identifier)
  (dis_expr (sym_lit) @name.reference.identifier)
  (do_clause (sym_lit) @name.reference.identifier)
  (for_clause (sym_lit) @name.reference.identifier)
  (include_reader_macro (sym_lit) @name.reference.identifier)
  (list_lit (sym_lit) @name.reference.identifier)
  (map_lit (sym_lit) @name.reference.identifier)
  (meta_lit (sym_lit) @name.reference.identifier)
  (old_meta_lit (sym_lit) @name.reference.identifier)
  (read_cond_lit (sym_lit) @name.reference.identifier)
  (repeat_clause (sym_lit) @name.reference.identifier)
  (set_lit (sym_lit) @name.reference.identifier)
  (source (sym_lit) @name.reference.identifier)
  (splicing_read_cond_lit (sym_lit) @name.reference.identifier)
  (syn_quoting_lit (sym_lit) @name.reference.identifier)
  (termination_clause (sym_lit) @name.reference.identifier)
  (unquote_splicing_lit (sym_lit) @name.reference.identifier)
  (unquoting_lit (sym_lit) @name.reference.identifier)
  (var_quoting_lit (sym_lit) @name.reference.identifier)
  (vec_lit (sym_lit) @name.reference.identifier)
  (while_clause (sym_lit) @name.reference.identifier)
  (with_clause (sym_lit) @name.reference.identifier)
  (defun_keyword) @name.reference.identifier
]
  (#not-any-of? @name.reference.identifier
    "&allow-other-keys" "&aux" "&body" "&environment" "&key" "&optional" "&rest" "&whole"
    "arithmetic-error" "base-char" "base-string" "bignum" "block" "boolean" "catch"
    "cell-error" "compiled-function" "condition" "control-error" "declare"
    "division-by-zero" "double-float" "dynamic-extent" "end-of-file" "eval-when"
    "extended-char" "file-error" "fixnum" "flet" "floating-point-inexact"
    "floating-point-invalid-operation" "floating-point-overflow" "floating-point-underflow"
    "ftype" "function" "go" "if" "ignorable" "ignore" "inline" "keyword" "labels" "lambda"
    "let" "let*" "load-time-value" "locally" "long-float" "macrolet" "multiple-value-call"
    "multiple-value-prog1" "notinline" "optimize" "package-error" "parse-error"
    "print-not-readable" "progn" "program-error" "progv" "quote" "reader-error"
    "return-from" "serious-condition" "setq" "short-float" "signed-byte" "simple-array"
    "simple-base-string" "simple-bit-vector" "simple-condition" "simple-error"
    "simple-string" "simple-type-error" "simple-vector" "simple-warning" "single-float"
    "special" "standard-char" "storage-condition" "stream-error" "style-warning"
    "symbol-macrolet" "tagbody" "the" "throw" "type" "type-error" "unbound-slot"
    "unbound-variable" "undefined-function" "unsigned-byte" "unwind-protect" "warning"))
; pkg:sym is one name there
(package_lit) @name.reference.identifier
(nil_lit) @name.reference.identifier
(var_quoting_lit "#'" @name.reference.identifier)
(loop_macro "loop" @name.reference.identifier)
(for_clause ["for" "as" "and"] @name.reference.identifier)
(for_clause_word) @name.reference.identifier
(accumulation_verb) @name.reference.identifier
(accumulation_clause "into" @name.reference.identifier)
(while_clause ["until" "while"] @name.reference.identifier)
(do_clause "do" @name.reference.identifier)
(termination_clause ["finally" "initially" "return"] @name.reference.identifier)
(with_clause "with" @name.reference.identifier)
(repeat_clause "repeat" @name.reference.identifier)
(condition_clause ["always" "else" "never" "thereis" "unless" "when"] @name.reference.identifier)
