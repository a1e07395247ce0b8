; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; pygments' FortranLexer: every word that is not one of its keywords or types (matched
; case-insensitively, below) is a name, so also type and component names and in/out of
; intent(...); it lexes the _dp of 1.0_dp as part of the number.
([(identifier) (name) (type_name) (type_member) (method_name) (module_name)] @name.reference.identifier
  (#not-match? @name.reference.identifier "(?i)^(abstract|accept|all|allocatable|allocate|allstop|array|assign)$")
  (#not-match? @name.reference.identifier "(?i)^(associate|asynchronous|backspace|bind|block|blockdata|byte|c_bool)$")
  (#not-match? @name.reference.identifier "(?i)^(c_char|c_double|c_double_complex|c_float|c_float_complex|c_funptr)$")
  (#not-match? @name.reference.identifier "(?i)^(c_int|c_int16_t|c_int32_t|c_int64_t|c_int8_t|c_int_fast16_t)$")
  (#not-match? @name.reference.identifier "(?i)^(c_int_fast32_t|c_int_fast64_t|c_int_fast8_t|c_int_least16_t)$")
  (#not-match? @name.reference.identifier "(?i)^(c_int_least32_t|c_int_least64_t|c_int_least8_t|c_intmax_t|c_intptr_t)$")
  (#not-match? @name.reference.identifier "(?i)^(c_long|c_long_double|c_long_double_complex|c_long_long|c_ptr|c_short)$")
  (#not-match? @name.reference.identifier "(?i)^(c_signed_char|c_size_t|call|case|character|class|close|codimension)$")
  (#not-match? @name.reference.identifier "(?i)^(common|complex|contains|contiguous|continue|critical|cycle|data)$")
  (#not-match? @name.reference.identifier "(?i)^(deallocate|decode|deferred|dimension|do|elemental|else|elseif|encode)$")
  (#not-match? @name.reference.identifier "(?i)^(end|endassociate|endblock|enddo|endenum|endforall|endfunction|endif)$")
  (#not-match? @name.reference.identifier "(?i)^(endinterface|endmodule|endprogram|endselect|endsubmodule|endsubroutine)$")
  (#not-match? @name.reference.identifier "(?i)^(endtype|endwhere|entry|enum|enumerator|equivalence|exit|extends)$")
  (#not-match? @name.reference.identifier "(?i)^(external|extrinsic|file|final|forall|format|function|generic|if|images)$")
  (#not-match? @name.reference.identifier "(?i)^(implicit|import|impure|include|inquire|integer|intent|interface)$")
  (#not-match? @name.reference.identifier "(?i)^(intrinsic|is|lock|logical|memory|module|namelist|non_intrinsic)$")
  (#not-match? @name.reference.identifier "(?i)^(non_overridable|none|nopass|nullify|only|open|optional|options)$")
  (#not-match? @name.reference.identifier "(?i)^(parameter|pass|pause|pointer|print|private|procedure|program|protected)$")
  (#not-match? @name.reference.identifier "(?i)^(public|pure|read|real|recursive|result|return|rewind|save|select)$")
  (#not-match? @name.reference.identifier "(?i)^(sequence|stop|submodule|subroutine|sync|syncall|syncimages|syncmemory)$")
  (#not-match? @name.reference.identifier "(?i)^(target|then|type|unlock|use|value|volatile|where|while|write)$")
)
(type_qualifier ["in" "out" "inout"] @name.reference.identifier)
