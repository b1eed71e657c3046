import Lean

/-!
# Verify.Export — `jig_export`, the exporter that runs in the build's sandbox

```
jig_export --module M --out FILE
```

`jig verify` builds this executable (`lean_exe jig_export` in `lakefile.toml`) in the trusted
build, then runs it right after the submission's build, in the same sandbox with the same limits
(`jigcli/lean/build.py`), the build's folder first on `LEAN_PATH` and read-only, `FILE` in a
folder made after the build. It imports `M` as Lean's importer does — `importModules` at its
default level, `OLeanLevel.private`, which reads the `.olean` and, where they exist, its
`.olean.server` and `.olean.private` parts (`findOLeanParts`), with `loadExts := false`, so no
extension of any module runs — and writes `M`'s own constants to `FILE` in lean4export's NDJSON
format 3.1.0 (leanprover/lean4export `format_ndjson.md`, commit 3306aa5b…; the writer follows
that repository's `Export.lean`, commit 006dc35b…): a `meta` line, then every name, level and
expression once, numbered in order (names from 1 after the anonymous name 0, levels from 1
after level zero 0, expressions from 0), each before the first record that uses it; each
constant after the module's constants its type and its value use (a theorem's proof included:
`ConstantInfo.value?` hides a theorem's value unless `allowOpaque`, so the walk reads the values
itself); an inductive type's block (types, constructors, recursors) as one record. `mdata` is
dropped, as lean4export drops it by default. Constants of other modules are referred to by
name only: the judge takes them from its own trusted environment.

`meta.jig` is jig's addition to lean4export's `meta` object: the module exported and the number
of declaration records, so that a reader tells an export cut at a line boundary from a whole one.

Why an exporter of our own rather than `require lean4export`: a `require` is fetched from the
network when the lakefile is resolved and must be pinned to a revision built for exactly the
pinned toolchain (lean4export follows Lean's `master`, with no tag per Lean release), and it
exports every transitive dependency (all of Mathlib a proof touches), which the judge would only
compare and throw away. This file is small, built with the judge from this repository's own
sources by the trusted build, and writes the module's own constants only.

Nothing here is trusted: everything the build wrote is the submission's to craft, so this
process may be taken over by what it reads. That is why it runs in the sandbox, and why the
judge (`Verify/ExportParse.lean`) checks every record of what it writes.

## Lean APIs used, and where they were read

* `Lean.importModules` (`level := OLeanLevel.private` and `loadExts := false` by default),
  `Lean.initSearchPath`, `Lean.findSysroot`, `Lean.Import` (`module`) — as `Verify/Judge.lean`
  reads them (`src/Lean/Environment.lean`, module-era copy); `findOLeanParts` loading the parts
  that exist — `src/Lean/Environment.lean` (stored copies, the same text in each);
* `Lean.Environment.getModuleIdx? (env) (moduleName) : Option ModuleIdx` (in the newest stored
  `src/Lean/Environment.lean`, module-era, it searches `env.header.modules`),
  `EnvironmentHeader.moduleData : Array ModuleData` (the same copy: "Module data for all
  imported modules"), `ModuleData.constants : Array ConstantInfo` — and lean4export's
  `getRootConstants` (`Export.lean`, commit 006dc35b…) takes a module's constants the same way,
  `env.header.moduleData[idx]`, noting that they include its private ones; `ModuleIdx.toNat`
  as the judge uses it. Which part's data `moduleData` keeps for a module read at the private
  level could not be confirmed in the stored text: should it be a lesser part's, the export
  would lack private constants, the decl or a helper would be missing from it, and the judge
  refuses (provenance or an unknown constant in the replay), never a wrong green;
* `ConstantInfo` and its values, `RecursorRule`, `ReducibilityHints`, `DefinitionSafety`,
  `QuotKind`, `InductiveVal.numNested : Nat` — `src/Lean/Declaration.lean`, module-era copy
  (commit 026f35ba…);
* `Expr` and `Level` constructors, `BinderInfo`, `Expr.getUsedConstants` — as the judge reads them;
  `Std.HashMap` with `Hashable`/`BEq` on `Name`, `Level` and `Expr`, as lean4export keys its
  tables; `Json.mkObj`, `Json.str`, `Json.arr`, `Json.compress`, `toJson` on `Nat` and lists —
  `src/Lean/Data/Json/*.lean`; `IO.FS.writeFile`, `String.toName`; `Lean.versionString`,
  `Lean.githash` — as lean4export's `exportMetadata` writes them.
-/

open Lean

namespace Jig.Export

structure Args where
  module : Name
  out : System.FilePath

def parseArgs : List String → Except String Args
  | ["--module", m, "--out", o] => .ok { module := m.toName, out := System.FilePath.mk o }
  | _ => .error "usage: jig_export --module M --out FILE"

/-- The module's constants by name, and each inductive type's recursors (the recursors a
block's record holds). -/
structure Context where
  constants : Std.HashMap Name ConstantInfo
  recursors : Std.HashMap Name (Array RecursorVal)

structure State where
  names : Std.HashMap Name Nat := ({} : Std.HashMap Name Nat).insert Name.anonymous 0
  levels : Std.HashMap Level Nat := ({} : Std.HashMap Level Nat).insert Level.zero 0
  exprs : Std.HashMap Expr Nat := {}
  done : NameSet := {}
  lines : Array String := #[]
  records : Nat := 0

abbrev ExportM := ReaderT Context (StateM State)

/-- For the `partial def`s below. -/
instance : Inhabited (ExportM Nat) := ⟨fun _ s => (0, s)⟩
instance : Inhabited (ExportM Unit) := ⟨fun _ s => ((), s)⟩

def emit (fields : List (String × Json)) : ExportM Unit :=
  modify fun s => { s with lines := s.lines.push (Json.mkObj fields).compress }

/-! ## Names, levels, expressions: each written once, before its first use -/

partial def nameIdx (n : Name) : ExportM Nat := do
  if let some i := (← get).names[n]? then return i
  let fields ← match n with
    | .str p str => do
      let pre ← nameIdx p
      pure [("str", Json.mkObj [("pre", toJson pre), ("str", Json.str str)])]
    | .num p i => do
      let pre ← nameIdx p
      pure [("num", Json.mkObj [("pre", toJson pre), ("i", toJson i)])]
    | .anonymous => pure []
  let i := (← get).names.size
  emit (("in", toJson i) :: fields)
  modify fun s => { s with names := s.names.insert n i }
  return i

/-- A level; a metavariable (never in a declaration) is written as a record of no kind, which
the judge refuses. -/
partial def levelIdx (l : Level) : ExportM Nat := do
  if let some i := (← get).levels[l]? then return i
  let fields ← match l with
    | .succ a => do pure [("succ", toJson (← levelIdx a))]
    | .max a b => do
      let a' ← levelIdx a
      let b' ← levelIdx b
      pure [("max", Json.arr #[toJson a', toJson b'])]
    | .imax a b => do
      let a' ← levelIdx a
      let b' ← levelIdx b
      pure [("imax", Json.arr #[toJson a', toJson b'])]
    | .param n => do pure [("param", toJson (← nameIdx n))]
    | _ => pure []
  let i := (← get).levels.size
  emit (("il", toJson i) :: fields)
  modify fun s => { s with levels := s.levels.insert l i }
  return i

def binderInfoJson : BinderInfo → Json
  | .default => Json.str "default"
  | .implicit => Json.str "implicit"
  | .strictImplicit => Json.str "strictImplicit"
  | .instImplicit => Json.str "instImplicit"

/-- An expression, `mdata` dropped; a free variable or metavariable (never in a declaration)
is written as a record of no kind, which the judge refuses. -/
partial def exprIdx (e : Expr) : ExportM Nat := do
  if let .mdata _ inner := e then return (← exprIdx inner)
  if let some i := (← get).exprs[e]? then return i
  let fields : List (String × Json) ← match e with
    | .bvar i => pure [("bvar", toJson i)]
    | .sort l => do pure [("sort", toJson (← levelIdx l))]
    | .const n us => do
      let name ← nameIdx n
      let levels ← us.mapM levelIdx
      pure [("const", Json.mkObj [("name", toJson name), ("us", toJson levels)])]
    | .app f a => do
      let fn ← exprIdx f
      let arg ← exprIdx a
      pure [("app", Json.mkObj [("fn", toJson fn), ("arg", toJson arg)])]
    | .lam n t b bi => do
      let name ← nameIdx n
      let type ← exprIdx t
      let body ← exprIdx b
      pure [("lam", Json.mkObj [("name", toJson name), ("type", toJson type),
        ("body", toJson body), ("binderInfo", binderInfoJson bi)])]
    | .forallE n t b bi => do
      let name ← nameIdx n
      let type ← exprIdx t
      let body ← exprIdx b
      pure [("forallE", Json.mkObj [("name", toJson name), ("type", toJson type),
        ("body", toJson body), ("binderInfo", binderInfoJson bi)])]
    | .letE n t v b nondep => do
      let name ← nameIdx n
      let type ← exprIdx t
      let value ← exprIdx v
      let body ← exprIdx b
      pure [("letE", Json.mkObj [("name", toJson name), ("type", toJson type),
        ("value", toJson value), ("body", toJson body), ("nondep", Json.bool nondep)])]
    | .lit (.natVal n) => pure [("natVal", Json.str (toString n))]
    | .lit (.strVal s) => pure [("strVal", Json.str s)]
    | .proj s idx b => do
      let typeName ← nameIdx s
      let struct ← exprIdx b
      pure [("proj", Json.mkObj [("typeName", toJson typeName), ("idx", toJson idx),
        ("struct", toJson struct)])]
    | _ => pure []
  let i := (← get).exprs.size
  emit (("ie", toJson i) :: fields)
  modify fun s => { s with exprs := s.exprs.insert e i }
  return i

/-! ## Declarations -/

def nameList (names : List Name) : ExportM Json := do
  return toJson (← names.mapM nameIdx)

/-- The fields every constant has. -/
def constantFields (ci : ConstantInfo) : ExportM (List (String × Json)) := do
  let name ← nameIdx ci.name
  let params ← nameList ci.levelParams
  let type ← exprIdx ci.type
  return [("name", toJson name), ("levelParams", params), ("type", toJson type)]

def hintsJson : ReducibilityHints → Json
  | .opaque => Json.str "opaque"
  | .abbrev => Json.str "abbrev"
  | .regular h => Json.mkObj [("regular", toJson h.toNat)]

def safetyJson : DefinitionSafety → Json
  | .unsafe => Json.str "unsafe"
  | .safe => Json.str "safe"
  | .partial => Json.str "partial"

def quotKindJson : QuotKind → Json
  | .type => Json.str "type"
  | .ctor => Json.str "ctor"
  | .lift => Json.str "lift"
  | .ind => Json.str "ind"

def declare (kind : String) (fields : List (String × Json)) : ExportM Unit := do
  emit [(kind, Json.mkObj fields)]
  modify fun s => { s with records := s.records + 1 }

/-- Every constant `ci`'s type and value name, the values of theorems and opaque constants
included (`ConstantInfo.value?` would leave them out without `allowOpaque`). -/
def usedBy (ci : ConstantInfo) : Array Name :=
  let inType := ci.type.getUsedConstants
  match ci with
  | .defnInfo v => inType ++ v.value.getUsedConstants
  | .thmInfo v => inType ++ v.value.getUsedConstants
  | .opaqueInfo v => inType ++ v.value.getUsedConstants
  | .recInfo v => v.rules.foldl (init := inType) fun acc r => acc ++ r.rhs.getUsedConstants
  | _ => inType

def markDone (n : Name) : ExportM Unit :=
  modify fun s => { s with done := s.done.insert n }

mutual

/-- Write `c`, if it is the module's, after the module's constants it uses. -/
partial def visit (c : Name) : ExportM Unit := do
  if (← get).done.contains c then return
  let some ci := (← read).constants[c]? | return
  match ci with
  | .inductInfo v => visitBlock v.all
  | .ctorInfo v => visit v.induct
  | .recInfo v => for t in v.all do visit t
  | _ =>
    markDone c
    for d in usedBy ci do visit d
    writeConstant ci

/-- An inductive block, after what its types, constructors and recursors use, as one record. -/
partial def visitBlock (typeNames : List Name) : ExportM Unit := do
  let ctx ← read
  let types := typeNames.filterMap fun t =>
    match ctx.constants[t]? with
    | some (.inductInfo v) => some v
    | _ => none
  let ctors := types.flatMap fun v => v.ctors.filterMap fun c =>
    match ctx.constants[c]? with
    | some (.ctorInfo cv) => some cv
    | _ => none
  let recs := types.foldl (init := #[]) fun acc v => acc ++ (ctx.recursors[v.name]?.getD #[])
  for t in types do markDone t.name
  for c in ctors do markDone c.name
  for r in recs do markDone r.name
  for t in types do for d in usedBy (.inductInfo t) do visit d
  for c in ctors do for d in usedBy (.ctorInfo c) do visit d
  for r in recs do for d in usedBy (.recInfo r) do visit d
  let typesJson ← types.toArray.mapM fun v => do
    let common ← constantFields (.inductInfo v)
    return Json.mkObj (common ++ [("numParams", toJson v.numParams),
      ("numIndices", toJson v.numIndices), ("all", ← nameList v.all),
      ("ctors", ← nameList v.ctors), ("numNested", toJson v.numNested),
      ("isRec", Json.bool v.isRec), ("isUnsafe", Json.bool v.isUnsafe),
      ("isReflexive", Json.bool v.isReflexive)])
  let ctorsJson ← ctors.toArray.mapM fun v => do
    let common ← constantFields (.ctorInfo v)
    return Json.mkObj (common ++ [("induct", toJson (← nameIdx v.induct)),
      ("cidx", toJson v.cidx), ("numParams", toJson v.numParams),
      ("numFields", toJson v.numFields), ("isUnsafe", Json.bool v.isUnsafe)])
  let recsJson ← recs.mapM fun v => do
    let common ← constantFields (.recInfo v)
    let rules ← v.rules.toArray.mapM fun r => do
      return Json.mkObj [("ctor", toJson (← nameIdx r.ctor)), ("nfields", toJson r.nfields),
        ("rhs", toJson (← exprIdx r.rhs))]
    return Json.mkObj (common ++ [("all", ← nameList v.all), ("numParams", toJson v.numParams),
      ("numIndices", toJson v.numIndices), ("numMotives", toJson v.numMotives),
      ("numMinors", toJson v.numMinors), ("rules", Json.arr rules), ("k", Json.bool v.k),
      ("isUnsafe", Json.bool v.isUnsafe)])
  declare "inductive" [("types", Json.arr typesJson), ("ctors", Json.arr ctorsJson),
    ("recs", Json.arr recsJson)]

/-- One constant that is not part of an inductive block. -/
partial def writeConstant (ci : ConstantInfo) : ExportM Unit := do
  let common ← constantFields ci
  match ci with
  | .axiomInfo v => declare "axiom" (common ++ [("isUnsafe", Json.bool v.isUnsafe)])
  | .defnInfo v =>
    let value ← exprIdx v.value
    declare "def" (common ++ [("value", toJson value), ("hints", hintsJson v.hints),
      ("safety", safetyJson v.safety), ("all", ← nameList v.all)])
  | .thmInfo v =>
    let value ← exprIdx v.value
    declare "thm" (common ++ [("value", toJson value), ("all", ← nameList v.all)])
  | .opaqueInfo v =>
    let value ← exprIdx v.value
    declare "opaque" (common ++ [("value", toJson value), ("isUnsafe", Json.bool v.isUnsafe),
      ("all", ← nameList v.all)])
  | .quotInfo v => declare "quot" (common ++ [("kind", quotKindJson v.kind)])
  | _ => pure ()

end

/-! ## The file -/

def context (constants : Array ConstantInfo) : Context := Id.run do
  let mut byName : Std.HashMap Name ConstantInfo := {}
  let mut recursors : Std.HashMap Name (Array RecursorVal) := {}
  for ci in constants do
    byName := byName.insert ci.name ci
    if let .recInfo v := ci then
      for t in v.all do
        recursors := recursors.insert t ((recursors[t]?.getD #[]).push v)
  return { constants := byName, recursors }

def metaLine (module : Name) (records : Nat) : String :=
  (Json.mkObj [("meta", Json.mkObj [
    ("exporter", Json.mkObj [("name", Json.str "jig_export"), ("version", Json.str "1")]),
    ("lean", Json.mkObj [("version", Json.str Lean.versionString),
      ("githash", Json.str Lean.githash)]),
    ("format", Json.mkObj [("version", Json.str "3.1.0")]),
    ("jig", Json.mkObj [("module", Json.str module.toString),
      ("declarations", toJson records)])])]).compress

/-- The export of `module`'s constants (`constants`, as its module data holds them). -/
def exportText (module : Name) (constants : Array ConstantInfo) : String :=
  let go : ExportM Unit := do
    for ci in constants do visit ci.name
  let ((), s) := Id.run ((go.run (context constants)).run {})
  let lines := #[metaLine module s.records] ++ s.lines
  String.join (lines.toList.map (· ++ "\n"))

/-- `module`'s own constants, as the importer read them at the private level. -/
def moduleConstants (env : Environment) (module : Name) : Except String (Array ConstantInfo) := do
  let some idx := env.getModuleIdx? module | throw s!"{module} was not imported"
  let some data := env.header.moduleData[idx.toNat]? | throw s!"{module} has no module data"
  return data.constants

end Jig.Export

def main (argv : List String) : IO UInt32 := do
  match Jig.Export.parseArgs argv with
  | .error msg =>
    IO.eprintln s!"jig_export: {msg}"
    return 2
  | .ok args =>
    initSearchPath (← findSysroot)
    let env ← importModules #[{ module := args.module }] {} (loadExts := false)
    let constants ← IO.ofExcept (Jig.Export.moduleConstants env args.module)
    IO.FS.writeFile args.out (Jig.Export.exportText args.module constants)
    return 0
