; Identifier references for files whose tag query finds definitions but no references
; (SPEC §3.2). repo-mapper's own query; stands in for Aider's pygments Token.Name fallback.
; Measured on fixtures/languages/julia: multiset recall 98%, precision 84% vs pygments.
; pygments' JuliaLexer: identifiers and true/false, except the builtin types and keywords
; below. It also makes every name in a type position a type (x::T, A <: B, T{...}) and keeps
; the @ of @macro, which would need the parts excluded here.
((identifier) @name.reference.identifier
  (#not-any-of? @name.reference.identifier
    "AbstractArray" "AbstractChannel" "AbstractChar" "AbstractDict" "AbstractDisplay"
    "AbstractFloat" "AbstractIrrational" "AbstractMatch" "AbstractMatrix" "AbstractPattern"
    "AbstractRange" "AbstractSet" "AbstractString" "AbstractUnitRange" "AbstractVecOrMat"
    "AbstractVector" "Any" "ArgumentError" "Array" "AssertionError" "BigFloat" "BigInt"
    "BitArray" "BitMatrix" "BitSet" "BitVector" "Bool" "BoundsError" "CapturedException"
    "CartesianIndex" "CartesianIndices" "Cchar" "Cdouble" "Cfloat" "Channel" "Char" "Cint"
    "Cintmax_t" "Clong" "Clonglong" "Cmd" "Colon" "Complex" "ComplexF16" "ComplexF32"
    "ComplexF64" "ComposedFunction" "CompositeException" "Condition" "Cptrdiff_t" "Cshort"
    "Csize_t" "Cssize_t" "Cstring" "Cuchar" "Cuint" "Cuintmax_t" "Culong" "Culonglong"
    "Cushort" "Cvoid" "Cwchar_t" "Cwstring" "DataType" "DenseArray" "DenseMatrix"
    "DenseVecOrMat" "DenseVector" "Dict" "DimensionMismatch" "Dims" "DivideError"
    "DomainError" "EOFError" "Enum" "ErrorException" "Exception" "ExponentialBackOff" "Expr"
    "Float16" "Float32" "Float64" "Function" "GlobalRef" "HTML" "IO" "IOBuffer" "IOContext"
    "IOStream" "IdDict" "IndexCartesian" "IndexLinear" "IndexStyle" "InexactError"
    "InitError" "Int" "Int128" "Int16" "Int32" "Int64" "Int8" "Integer" "InterruptException"
    "InvalidStateException" "Irrational" "KeyError" "LinRange" "LineNumberNode"
    "LinearIndices" "LoadError" "MIME" "Matrix" "Method" "MethodError" "Missing"
    "MissingException" "Module" "NTuple" "NamedTuple" "Nothing" "Number" "OrdinalRange"
    "OutOfMemoryError" "OverflowError" "Pair" "PartialQuickSort" "PermutedDimsArray" "Pipe"
    "ProcessFailedException" "Ptr" "QuoteNode" "Rational" "RawFD" "ReadOnlyMemoryError"
    "Real" "ReentrantLock" "Ref" "Regex" "RegexMatch" "RoundingMode" "SegmentationFault"
    "Set" "Signed" "Some" "StackOverflowError" "StepRange" "StepRangeLen" "StridedArray"
    "StridedMatrix" "StridedVecOrMat" "StridedVector" "String" "StringIndexError" "SubArray"
    "SubString" "SubstitutionString" "Symbol" "SystemError" "Task" "TaskFailedException"
    "Text" "TextDisplay" "Timer" "Tuple" "Type" "TypeError" "TypeVar" "UInt" "UInt128"
    "UInt16" "UInt32" "UInt64" "UInt8" "UndefInitializer" "UndefKeywordError"
    "UndefRefError" "UndefVarError" "Union" "UnionAll" "UnitRange" "Unsigned" "Val" "Vararg"
    "VecElement" "VecOrMat" "Vector" "VersionNumber" "WeakKeyDict" "WeakRef" "ccall" "isa"
    "baremodule" "begin" "end" "quote" "where" "local" "global"))
(boolean_literal) @name.reference.identifier
