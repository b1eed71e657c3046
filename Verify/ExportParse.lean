import Lean

/-!
# Verify.ExportParse — the judge's reader of a module's export

The judge (`Verify/Judge.lean`) never maps a file the submission's build wrote. It reads the
module's constants from the text `jig_export` (`Verify/Export.lean`) wrote inside the build's
sandbox, in lean4export's NDJSON format 3.1.0 (leanprover/lean4export `format_ndjson.md`,
commit 3306aa5b…, transcribed in `tests/data/lean/lean4export-format-3.1.0.json`), and rebuilds
every name, level and expression here with Lean's own constructors, so every hash, loose
bound-variable range and flag cached in them is computed afresh in this process: nothing of the
export is trusted but its shape, and its shape is checked record by record.

`readExport` is bounded and fails closed: a file over `maxExportBytes` (jig's cap too, checked
before a byte is read), not UTF-8, cut inside a line, a first line that is not lean4export's
`meta` object of format 3.1.0 about the module asked for, a record of no known kind, an index
out of sequence, a reference to anything not defined on an earlier line, a bound variable past
`maxBVarIndex`, or a record count other than the one `meta.jig` promises: each is an `.error`
naming the line, and the judge reports it as a failure (jig's `verifier_error`), never a verdict.
The parse is one pass over the lines; every recursion is over the nesting of one line's JSON,
which jig's own reader (`jigcli/lean/export.py`) has already bounded (Python's parser refuses a
line nested past its recursion limit, about a thousand levels) before the judge starts.

`mdata` nodes are dropped, as lean4export drops them by default: they never change what the
kernel checks, and the term hash drops them too.

## Lean APIs used, and where they were read

* `Json.parse (s : String) : Except String Json` — `src/Lean/Data/Json/Parser.lean` (commit
  cd5ea3c2…); `Json.getObjVal? : Json → String → Except String Json`, `Json.getNat?`,
  `Json.getStr?`, `Json.getBool?`, `Json.getArr?`, each `Except String _` —
  `src/Lean/Data/Json/Basic.lean` (commit 8d7520b3…; an older copy, 0238bf8c…, returned `Option`:
  should v4.33.0 differ, this file fails to build, it cannot mis-read);
* `ConstantInfo` and its values, with these fields: `AxiomVal.isUnsafe`; `DefinitionVal`
  (`value`, `hints`, `safety`, `all`); `TheoremVal` (`value`, `all`); `OpaqueVal` (`value`,
  `isUnsafe`, `all`); `QuotVal.kind`, `QuotKind` (`type`, `ctor`, `lift`, `ind`); `InductiveVal`
  (`numParams`, `numIndices`, `all`, `ctors`, `numNested : Nat`, `isRec`, `isUnsafe`,
  `isReflexive`); `ConstructorVal` (`induct`, `cidx`, `numParams`, `numFields`, `isUnsafe`);
  `RecursorVal` (`all`, `numParams`, `numIndices`, `numMotives`, `numMinors`, `rules`, `k`,
  `isUnsafe`); `RecursorRule` (`ctor`, `nfields`, `rhs`); `ReducibilityHints` (`opaque`,
  `abbrev`, `regular : UInt32 → _`); `DefinitionSafety` (`unsafe`, `safe`, `partial`) —
  `src/Lean/Declaration.lean`, module-era copy (commit 026f35ba…), every structure extending
  `ConstantVal` (`name`, `levelParams`, `type`), written here field by field;
* `Expr` constructors `bvar`, `sort`, `const`, `app`, `lam`, `forallE`, `letE` (name, type,
  value, body, `nondep`), `lit` (`Literal.natVal`, `Literal.strVal`), `proj` (type name, index,
  structure), whose cached data (`Expr.data`, a computed field) is made by the constructor;
  `BinderInfo` (`default`, `implicit`, `strictImplicit`, `instImplicit`); `Level` constructors
  `zero`, `succ`, `max`, `imax`, `param`; `Name.anonymous`, `Name.mkStr`, `Name.mkNum` —
  `src/Lean/Expr.lean`, `src/Lean/Level.lean`, `src/Init/Prelude.lean`, as the judge's term
  serialization already matches on them;
* `System.FilePath.metadata : FilePath → IO IO.FS.Metadata` with `byteSize : UInt64` —
  `src/Init/System/IO.lean`; `String.fromUTF8? (a : ByteArray) : Option String` (`none` unless
  `validateUTF8 a`) — `src/Init/Data/String/Extra.lean`; `IO.FS.readBinFile`,
  `String.splitOn`, `String.endsWith`, `String.toNat?`, `Nat.toUInt32`, `List.dropLast` — the
  everyday core API.
-/

open Lean

namespace Jig.ExportParse

/-- The largest export read: jig refuses a larger one before the judge starts
(`jigcli/lean/export.py`, `MAX_EXPORT_BYTES`). -/
def maxExportBytes : Nat := 256 * 1024 * 1024

/-- The export format this reader knows. -/
def formatVersion : String := "3.1.0"

/-- A bound variable index past this is refused: no real term nests binders this deep, and an
index near the limit of `Expr`'s cached loose-bound-variable range would not be represented. -/
def maxBVarIndex : Nat := 65535

/-- What the export holds: the module it names and its constants, in the export's order. -/
structure Parsed where
  module : Name
  constants : Array ConstantInfo

structure State where
  names : Array Name := #[Name.anonymous]
  levels : Array Level := #[Level.zero]
  exprs : Array Expr := #[]
  constants : Array ConstantInfo := #[]
  records : Nat := 0

abbrev ParseM := StateT State (Except String)

/-! ## Fields -/

def field (j : Json) (key : String) : ParseM Json :=
  match j.getObjVal? key with
  | .ok v => pure v
  | .error _ => throw s!"has no field {key}"

def asNat (j : Json) (what : String) : ParseM Nat :=
  match j.getNat? with
  | .ok n => pure n
  | .error _ => throw s!"has a {what} that is not a natural number"

def asStr (j : Json) (what : String) : ParseM String :=
  match j.getStr? with
  | .ok s => pure s
  | .error _ => throw s!"has a {what} that is not a string"

def asArr (j : Json) (what : String) : ParseM (Array Json) :=
  match j.getArr? with
  | .ok a => pure a
  | .error _ => throw s!"has a {what} that is not an array"

def natField (j : Json) (key : String) : ParseM Nat := do asNat (← field j key) key
def strField (j : Json) (key : String) : ParseM String := do asStr (← field j key) key
def arrField (j : Json) (key : String) : ParseM (Array Json) := do asArr (← field j key) key

def boolField (j : Json) (key : String) : ParseM Bool := do
  match (← field j key).getBool? with
  | .ok b => pure b
  | .error _ => throw s!"has a {key} that is not a boolean"

/-- `j`'s value at `key`, if `j` has that key. -/
def has? (j : Json) (key : String) : Option Json :=
  match j.getObjVal? key with
  | .ok v => some v
  | .error _ => none

/-! ## References to earlier lines -/

def nameAt (i : Nat) : ParseM Name := do
  let some n := (← get).names[i]? | throw s!"refers to name {i}, not defined before it"
  pure n

def levelAt (i : Nat) : ParseM Level := do
  let some l := (← get).levels[i]? | throw s!"refers to level {i}, not defined before it"
  pure l

def exprAt (i : Nat) : ParseM Expr := do
  let some e := (← get).exprs[i]? | throw s!"refers to expression {i}, not defined before it"
  pure e

def nameField (j : Json) (key : String) : ParseM Name := do nameAt (← natField j key)
def exprField (j : Json) (key : String) : ParseM Expr := do exprAt (← natField j key)

def nameList (j : Json) (key : String) : ParseM (List Name) := do
  let items ← arrField j key
  let names ← items.mapM fun item => do nameAt (← asNat item key)
  pure names.toList

/-! ## Primitives: names, levels, expressions -/

def parseName (j : Json) (index : Nat) : ParseM Unit := do
  unless index == (← get).names.size do throw "is not the next name"
  let name ← match has? j "str", has? j "num" with
    | some body, _ => do pure (Name.mkStr (← nameField body "pre") (← strField body "str"))
    | none, some body => do pure (Name.mkNum (← nameField body "pre") (← natField body "i"))
    | none, none => throw "is a name neither str nor num"
  modify fun s => { s with names := s.names.push name }

def levelPair (j : Json) : ParseM (Level × Level) := do
  match (← asArr j "level pair").toList with
  | [a, b] => pure (← levelAt (← asNat a "level"), ← levelAt (← asNat b "level"))
  | _ => throw "has a level pair that is not two levels"

def parseLevel (j : Json) (index : Nat) : ParseM Unit := do
  unless index == (← get).levels.size do throw "is not the next level"
  let level ← match has? j "succ", has? j "max", has? j "imax", has? j "param" with
    | some v, _, _, _ => do pure (Level.succ (← levelAt (← asNat v "level")))
    | _, some v, _, _ => do let (a, b) ← levelPair v; pure (Level.max a b)
    | _, _, some v, _ => do let (a, b) ← levelPair v; pure (Level.imax a b)
    | _, _, _, some v => do pure (Level.param (← nameAt (← asNat v "name")))
    | _, _, _, _ => throw "is a level of no known kind"
  modify fun s => { s with levels := s.levels.push level }

def binderInfoOf (j : Json) : ParseM BinderInfo := do
  match (← strField j "binderInfo") with
  | "default" => pure .default
  | "implicit" => pure .implicit
  | "strictImplicit" => pure .strictImplicit
  | "instImplicit" => pure .instImplicit
  | other => throw s!"has an unknown binder info {other}"

/-- The expression a record describes, built from the expressions before it. -/
def exprOf (j : Json) : ParseM Expr := do
  if let some v := has? j "bvar" then
    let i ← asNat v "bvar"
    if i > maxBVarIndex then throw s!"has a bound variable index past {maxBVarIndex}"
    return .bvar i
  if let some v := has? j "sort" then return .sort (← levelAt (← asNat v "level"))
  if let some b := has? j "const" then
    let us ← (← arrField b "us").mapM fun u => do levelAt (← asNat u "level")
    return .const (← nameField b "name") us.toList
  if let some b := has? j "app" then return .app (← exprField b "fn") (← exprField b "arg")
  if let some b := has? j "lam" then
    return .lam (← nameField b "name") (← exprField b "type") (← exprField b "body")
      (← binderInfoOf b)
  if let some b := has? j "forallE" then
    return .forallE (← nameField b "name") (← exprField b "type") (← exprField b "body")
      (← binderInfoOf b)
  if let some b := has? j "letE" then
    return .letE (← nameField b "name") (← exprField b "type") (← exprField b "value")
      (← exprField b "body") (← boolField b "nondep")
  if let some b := has? j "proj" then
    return .proj (← nameField b "typeName") (← natField b "idx") (← exprField b "struct")
  if let some v := has? j "natVal" then
    let some n := (← asStr v "natVal").toNat? | throw "has a natVal that is not digits"
    return .lit (.natVal n)
  if let some v := has? j "strVal" then return .lit (.strVal (← asStr v "strVal"))
  -- Dropped, as lean4export drops it by default: metadata never changes what is checked.
  if let some b := has? j "mdata" then return (← exprField b "expr")
  throw "is an expression of no known kind"

def parseExpr (j : Json) (index : Nat) : ParseM Unit := do
  unless index == (← get).exprs.size do throw "is not the next expression"
  let e ← exprOf j
  modify fun s => { s with exprs := s.exprs.push e }

/-! ## Declarations -/

/-- The fields every constant has, checked once for all kinds. -/
def constantOf (b : Json) : ParseM (Name × List Name × Expr) := do
  let name ← nameField b "name"
  if name.isAnonymous then throw "declares a constant with no name"
  pure (name, ← nameList b "levelParams", ← exprField b "type")

def hintsOf (b : Json) : ParseM ReducibilityHints := do
  let hints ← field b "hints"
  match hints.getStr? with
  | .ok "opaque" => pure .opaque
  | .ok "abbrev" => pure .abbrev
  | .ok other => throw s!"has unknown hints {other}"
  | .error _ =>
    let height ← natField hints "regular"
    if height ≥ 4294967296 then throw "has a definitional height past UInt32"
    pure (.regular height.toUInt32)

def safetyOf (b : Json) : ParseM DefinitionSafety := do
  match (← strField b "safety") with
  | "safe" => pure .safe
  | "unsafe" => pure .unsafe
  | "partial" => pure .partial
  | other => throw s!"has an unknown safety {other}"

def quotKindOf (b : Json) : ParseM QuotKind := do
  match (← strField b "kind") with
  | "type" => pure .type
  | "ctor" => pure .ctor
  | "lift" => pure .lift
  | "ind" => pure .ind
  | other => throw s!"has an unknown quotient kind {other}"

def addConstant (ci : ConstantInfo) : ParseM Unit :=
  modify fun s => { s with constants := s.constants.push ci }

def inductiveOf (b : Json) : ParseM ConstantInfo := do
  let (name, levelParams, type) ← constantOf b
  let numParams ← natField b "numParams"
  let numIndices ← natField b "numIndices"
  let all ← nameList b "all"
  let ctors ← nameList b "ctors"
  let numNested ← natField b "numNested"
  let isRec ← boolField b "isRec"
  let isUnsafe ← boolField b "isUnsafe"
  let isReflexive ← boolField b "isReflexive"
  return .inductInfo { name, levelParams, type, numParams, numIndices, all, ctors, numNested,
    isRec, isUnsafe, isReflexive }

def constructorOf (b : Json) : ParseM ConstantInfo := do
  let (name, levelParams, type) ← constantOf b
  let induct ← nameField b "induct"
  let cidx ← natField b "cidx"
  let numParams ← natField b "numParams"
  let numFields ← natField b "numFields"
  let isUnsafe ← boolField b "isUnsafe"
  return .ctorInfo { name, levelParams, type, induct, cidx, numParams, numFields, isUnsafe }

def ruleOf (r : Json) : ParseM RecursorRule := do
  let ctor ← nameField r "ctor"
  let nfields ← natField r "nfields"
  let rhs ← exprField r "rhs"
  return { ctor, nfields, rhs }

def recursorOf (b : Json) : ParseM ConstantInfo := do
  let (name, levelParams, type) ← constantOf b
  let all ← nameList b "all"
  let numParams ← natField b "numParams"
  let numIndices ← natField b "numIndices"
  let numMotives ← natField b "numMotives"
  let numMinors ← natField b "numMinors"
  let rules ← (← arrField b "rules").mapM ruleOf
  let k ← boolField b "k"
  let isUnsafe ← boolField b "isUnsafe"
  return .recInfo { name, levelParams, type, all, numParams, numIndices, numMotives, numMinors,
    rules := rules.toList, k, isUnsafe }

/-- One declaration record: every constant it holds is added, in order. -/
def parseDeclaration (j : Json) : ParseM Unit := do
  if let some b := has? j "axiom" then
    let (name, levelParams, type) ← constantOf b
    let isUnsafe ← boolField b "isUnsafe"
    addConstant (.axiomInfo { name, levelParams, type, isUnsafe })
  else if let some b := has? j "def" then
    let (name, levelParams, type) ← constantOf b
    let value ← exprField b "value"
    let hints ← hintsOf b
    let safety ← safetyOf b
    let all ← nameList b "all"
    addConstant (.defnInfo { name, levelParams, type, value, hints, safety, all })
  else if let some b := has? j "thm" then
    let (name, levelParams, type) ← constantOf b
    let value ← exprField b "value"
    let all ← nameList b "all"
    addConstant (.thmInfo { name, levelParams, type, value, all })
  else if let some b := has? j "opaque" then
    let (name, levelParams, type) ← constantOf b
    let value ← exprField b "value"
    let isUnsafe ← boolField b "isUnsafe"
    let all ← nameList b "all"
    addConstant (.opaqueInfo { name, levelParams, type, value, isUnsafe, all })
  else if let some b := has? j "quot" then
    let (name, levelParams, type) ← constantOf b
    let kind ← quotKindOf b
    addConstant (.quotInfo { name, levelParams, type, kind })
  else if let some b := has? j "inductive" then
    let types ← arrField b "types"
    if types.isEmpty then throw "is an inductive block with no type"
    for t in types do addConstant (← inductiveOf t)
    for c in (← arrField b "ctors") do addConstant (← constructorOf c)
    for r in (← arrField b "recs") do addConstant (← recursorOf r)
  else
    throw "is a record of no known kind"
  modify fun s => { s with records := s.records + 1 }

/-- One line after the header. -/
def parseRecord (j : Json) : ParseM Unit := do
  match has? j "ie", has? j "in", has? j "il" with
  | some i, _, _ => parseExpr j (← asNat i "ie")
  | _, some i, _ => parseName j (← asNat i "in")
  | _, _, some i => parseLevel j (← asNat i "il")
  | _, _, _ => parseDeclaration j

/-! ## The header and the whole file -/

/-- The module the header names and the number of declaration records it promises. -/
def parseHeader (j : Json) : Except String (Name × Nat) := do
  let .ok header := j.getObjVal? "meta" | throw "does not begin with lean4export's meta object"
  let version := header.getObjVal? "format" >>= (·.getObjVal? "version") >>= (·.getStr?)
  match version with
  | .ok v => unless v == formatVersion do throw s!"is in format {v}, not {formatVersion}"
  | .error _ => throw "names no format version"
  let .ok jig := header.getObjVal? "jig" | throw "has no meta.jig object"
  let .ok module := jig.getObjVal? "module" >>= (·.getStr?) | throw "names no module"
  let .ok count := jig.getObjVal? "declarations" >>= (·.getNat?)
    | throw "does not say how many declarations follow"
  return (module.toName, count)

def parseJsonLine (line : String) (number : Nat) : Except String Json :=
  match Json.parse line with
  | .ok j => .ok j
  | .error e => .error s!"line {number} of the export is not JSON: {e}"

/-- The export in `text`, which must be of `module`. -/
def parseText (text : String) (module : Name) : Except String Parsed := do
  unless text.endsWith "\n" do throw "the export is truncated: its last line has no end"
  let lines := (text.splitOn "\n").dropLast
  let first :: rest := lines | throw "the export is empty"
  let (named, count) ← match parseHeader (← parseJsonLine first 1) with
    | .ok h => pure h
    | .error e => throw s!"line 1 of the export {e}"
  unless named == module do throw s!"the export is of module {named}, not {module}"
  let mut state : State := {}
  let mut number := 1
  for line in rest do
    number := number + 1
    let j ← parseJsonLine line number
    match (parseRecord j).run state with
    | .ok ((), next) => state := next
    | .error e => throw s!"line {number} of the export {e}"
  unless state.records == count do
    throw s!"the export is truncated: it has {state.records} declarations, its header \
      promises {count}"
  return { module := named, constants := state.constants }

/-- The export at `path`, of `module`: size-capped before a byte is read, UTF-8, parsed. -/
def readExport (path : System.FilePath) (module : Name) : IO Parsed := do
  let size := (← path.metadata).byteSize.toNat
  if size > maxExportBytes then
    throw <| IO.userError s!"the export is {size} bytes; at most {maxExportBytes} are read"
  let bytes ← IO.FS.readBinFile path
  if bytes.size > maxExportBytes then
    throw <| IO.userError s!"the export grew past {maxExportBytes} bytes while it was read"
  let some text := String.fromUTF8? bytes | throw <| IO.userError "the export is not UTF-8"
  match parseText text module with
  | .ok parsed => pure parsed
  | .error e => throw <| IO.userError e

end Jig.ExportParse
