import Lean
import Verify.ExportParse

/-!
# Verify.Judge — the trusted judge

`jig verify` runs this executable (`lean_exe jig_judge` in `lakefile.toml`) once per Lean
submission, after the submission's module was built:

```
jig_judge --statement ID --module M --decl D [--refutes ID'] [--import I]… --export PATH --out FILE
```

It never elaborates a line of anything: no syntax, no commands, no environment extension of
the submission is ever live in this process, and it never maps a file the submission's build
wrote. It

1. reads `M`'s constants from `PATH`, the text `jig_export` (`Verify/Export.lean`) wrote in the
   build's sandbox in lean4export's format, which jig has read through no link, size-capped and
   checked, and copied to a private folder; `Verify/ExportParse.lean` parses it again here,
   bounded, and rebuilds every name, level and expression with Lean's own constructors (so no
   cached hash, loose bound-variable range or flag comes from the export). A malformed,
   truncated or oversized export, or one of another module, is a `failure`;
2. takes `M`'s imports from the `--import` flags, which jig read from `M`'s source header
   (never from anything the build wrote), and refuses any outside `allowedRoots`, whatever
   jig's Python policy said;
3. imports only trusted modules: `Statements.ID` (and `Statements.ID'`) plus the submission's
   own (allowed) imports — never the submission module itself;
4. decides provenance (`D` is one of `M`'s constants; no constant of `M` is already in the
   trusted environment, except a theorem identical to one there, which Lean's own import
   tolerates: a constant of a trusted module that appears in the export is compared by name
   with the trusted environment's, never taken from the export), refuses `unsafe` and
   `partial` code (but the `partial` `f._unsafe_rec` copies Lean's compiler makes of a safe
   recursive `f`, which no safe constant can use), lists the axioms `M` declares.
   `implemented_by` and `extern` are not in an export: they change only compiled code, which
   this process never runs for `M` and the kernel trusts only through `Lean.ofReduceBool` /
   `Lean.ofReduceNat` or a `_native` axiom, which the axiom audit reports; jig's static policy
   refuses both words before any build;
5. replays every other constant of `M` through the kernel into the trusted environment (the check
   `leanchecker M` makes, from the same imports plus the statement), and decides the rest on
   that replayed environment: the bridge `theorem _ : Statements.ID.statement := D` checked by
   the kernel at `D`'s universe parameters, the transitive axiom set of `D`, the normalized
   term serializations of `D` and of the statement, and, with `--refutes`, the link
   `Statements.ID.statement ↔ ¬ Statements.ID'.statement` by `Iff.rfl`, checked by the kernel.
   The replay orders constants by what their types and values use, a theorem's proof
   included (`usedConstants`: `ConstantInfo.value?` and `getUsedConstantsAsSet` leave a
   theorem's value out unless `allowOpaque`, and a proof's helper lemma would then be sent
   after the proof that uses it);
6. writes exactly one JSON document (`jig.judge.v1`, schema in `jigcli/schemas/
   judge.schema.json`) to `FILE`, atomically (a `.tmp` sibling, then a rename), and prints
   nothing on stdout. jig decides from that file alone.

The judge reports facts; which verdict reason each fact stands for is decided by jig
(`jigcli/lean/judge.py`). A stage that could not decide (an export that cannot be parsed, an
import that fails) ends the judgement with `failure` set and the later facts `null`.

The kernel budget is lifted (`maxHeartbeats 0`, a generous `maxRecDepth`): the wall budget jig
enforces from outside is the real bound. A kernel exception that only says a budget ran out
(`deterministicTimeout`, `excessiveMemory`, `deepRecursion`, `interrupted`) is reported as
`budget`, never as a rejection.

## Lean APIs used, and where they were read

This file could not be compiled where it was written (no Lean toolchain can be installed
there); `tests/integration/test_real_lean.py` builds and runs it wherever `lake` and the Mathlib
cache exist. Every name below was read in stored copies of `leanprover/lean4`; the index does
not say which stored revision is the tag v4.33.0, so each entry names the revision read: "the
module-era copy" is the newest stored one, written with `module`/`public section` (the module
system landed during 2025; the index does not date a copy against v4.33.0), "an older copy"
one from before it. A second, independent reading (issue 10 review) checked each name,
signature, argument order and instance again, and changed:

* the `partial` copies `f._unsafe_rec` of safe recursive definitions are skipped, not refused
  (before, every computable recursive `def` of a submission was refused as `partial`);
* an anonymous `implemented_by`/`extern` extension name (builtin initializers not run) is a
  `failure`, not an empty match that lets such code through;
* the submitted type is printed in the replayed environment, where its constants exist;
* the statement's own constants are found by declaring module (no index loop over a `[a:b]`
  range), nested actions are parenthesized, and a variable named like the `first` tactic renamed.

* Loading: the export, through `Jig.ExportParse.readExport` (`Verify/ExportParse.lean`, which
  names what it relies on); `Lean.initSearchPath`, `Lean.findSysroot` as `leanchecker`'s
  `checkOlean` calls them (`src/LeanChecker.lean`, commit 017bb1eb…), for the trusted imports;
* `Lean.importModules (imports : Array Import) (opts : Options) (trustLevel : UInt32 := 0)
  (plugins := #[]) (leakEnv := false) (loadExts := false) (level := OLeanLevel.private) (arts
  := {})` — same file: with `level := .private` every module is imported with `importAll`
  ("all data is loaded as if no `module` annotations were present"); with `loadExts := false`
  (the default, kept) `finalizeImport` never calls `finalizePersistentExtensions`, so no
  extension's `addImportedFn` and no `[init]` declaration runs, and no
  `enableInitializersExecution` is needed (`leanchecker` passes `loadExts := false` too);
* `Lean.Environment.toKernelEnv`, `Lean.Environment.ofKernelEnv` (public; used by the kernel and
  `Kernel.Exception.mkCtx`), `Lean.Environment.find?` (with a defaulted `skipRealize`),
  `Lean.Environment.getModuleIdxFor?`, `Lean.Environment.allImportedModuleNames`,
  `Lean.ModuleIdx.toNat`, `Lean.Kernel.Environment.find?`, `Lean.Kernel.Exception` (`deriving
  Nonempty` only, so `ReplayError` holds it in an `Option`) and its constructors
  `deterministicTimeout`, `excessiveMemory`, `deepRecursion`, `interrupted`,
  — `src/Lean/Environment.lean`, module-era copy and an older copy (commit 0029aa12…),
  identical in these;
* `Lean.Import` (`module`; `importAll`, `isExported`, `isMeta` defaulted) — `src/Lean/Setup.lean`,
  as `leanchecker` builds `{module}`;
* `Lean.Kernel.Environment.addDecl (env : Environment) (opts : Options) (decl : Declaration)
  (cancelTk? : Option IO.CancelToken := none) : Except Exception Environment`, declared inside
  `namespace Lean` as `Kernel.Environment.addDecl`, so `Exception` is `Kernel.Exception` —
  `src/Lean/AddDecl.lean`, module-era copy (the one with `warnIfDeclIllTypedAtImplicit`) and an
  older copy (commit 0197d711…), identical; it type checks unless `debug.skipKernelTC` is set in
  `opts`, which the judge never sets. `src/Lean/Replay.lean` (commit 04776248…) calls it the
  same way, `env.addDecl {} d` on a `Kernel.Environment`. Not the deprecated
  `Lean.Environment.addDecl`, nor `Lean.Kernel.Environment.addDeclCore`, whose arity changed
  (see below);
* `Lean.Kernel.Exception.toMessageData`, `Lean.MessageData.toString` — as `src/Lean/Replay.lean`'s
  and `src/LeanChecker/Replay.lean`'s `throwKernelException` use them;
* the replay follows `src/Lean/Replay.lean` and `src/LeanChecker/Replay.lean` (commits
  9ad36b94…, 7ba979c5…): dependencies first, through `usedConstants` here (type and value of
  every constant, a theorem's and an opaque's too — `ConstantInfo.value? (allowOpaque := false)`
  returns `none` for them, `src/Lean/Declaration.lean`, module-era copy, commit 026f35ba… —
  an inductive's constructors, a constructor's type, a recursor's `all` and rules), an
  inductive block sent as one
  `Declaration.inductDecl`, constructors and recursors compared with the generated ones
  afterwards, `unsafe`/`partial` constants never sent (here refused before, but compiler
  copies); `Declaration.mutualDefnDecl` is only for `unsafe`/`partial` blocks ("All
  definitions must be marked as `unsafe` or `partial`", `src/Lean/Declaration.lean`), so
  every replayed definition goes as one `defnDecl`, as Lean's own replay sends it;
* `Lean.NameSet` (`{}`, `insert`, `contains`, `ForIn`) — `src/Lean/Data/NameMap.lean`, newest
  copy, where `NameSet := Std.TreeSet Name Name.quickCmp` has no `erase` of its own: `s.erase`
  resolves through the definition to `Std.TreeSet.erase`, exactly as `Lean.Replay` writes
  `s.remaining.erase name` (older copies: `RBTree.erase`);
* `Lean.ConstantInfo` (`defnInfo`, `thmInfo`, `axiomInfo`, `opaqueInfo`, `quotInfo`,
  `inductInfo`, `ctorInfo`, `recInfo`, `name`, `type`, `levelParams`, `isUnsafe`, `isPartial` =
  `defnInfo` with `safety == .partial`), `Lean.DefinitionVal` (`value`, `safety`),
  `Lean.DefinitionSafety` (`safe`, `partial`, `unsafe`; `BEq`), `Lean.TheoremVal` (`name`,
  `levelParams`, `type`, `value`, `all`), `Lean.OpaqueVal.value`, `Lean.InductiveVal` (`all`,
  `ctors`, `numParams`), `Lean.InductiveType`, `Lean.Constructor` (`name`, `type`),
  `Lean.Declaration` (`defnDecl`, `thmDecl`, `axiomDecl`, `opaqueDecl`, `inductDecl lparams
  nparams types isUnsafe`), `BEq` derived on `ConstructorVal` and `RecursorVal` —
  `src/Lean/Declaration.lean` (an older copy; `leanchecker`'s module-era replay compares the
  same values with `==`);
* `Lean.Expr.getUsedConstants` — `src/Lean/Util/FoldConsts.lean`; the axiom walk mirrors
  `src/Lean/Util/CollectAxioms.lean` (`collect`: axioms kept, types and values of definitions,
  theorems and opaques, constructor and recursor types, an inductive's type and constructors),
  over a `Kernel.Environment`;
* `f._unsafe_rec`: `addAndCompilePartialRec` adds, for every compiled definition by structural
  or well-founded recursion, a `Declaration.mutualDefnDecl` of `partial` copies named
  `Compiler.mkUnsafeRecName f` — `src/Lean/Elab/PreDefinition/Basic.lean`, called from
  `Structural/Main.lean` and `WF/Main.lean` (several stored copies); matched here as
  `.str f "_unsafe_rec"` with `f` a safe definition of the module;
* `Lean.Option.set (opts : Options) (opt : Lean.Option α) (val : α)` —
  `src/Lean/Data/Options.lean`; `Lean.maxHeartbeats` (× 1000 by `Core.getMaxHeartbeats`; 0 = no
  limit, as `src/LeanChecker/Replay.lean` (commit 7ba979c5…) sends `addDeclCore 0 d`;
  `src/Lean/Replay.lean` passes `{}`, the default 200000) — `src/Lean/CoreM.lean`;
  `Lean.maxRecDepth` — `src/Lean/Util/RecDepth.lean`, read by `CoreM`'s `withOptions`;
* `Lean.Core.Context` (`fileName`, `fileMap`; every other field defaulted), `Lean.Core.State`
  (`env`; the rest defaulted), `Lean.Core.CoreM.toIO (x) (ctx) (s) : IO (α × State)` —
  `src/Lean/CoreM.lean` (commit facb6dca…), and the same two-field form
  `.toIO { fileName := "<compiler>", fileMap := default } { env := env }` in core's
  `ExternAttr.lean` and in module-era code (`public meta def main`); `Inhabited FileMap` by that
  use; `Lean.Meta.MetaM.run'`, `Lean.Meta.ppExpr` — `src/Lean/Meta/Basic.lean`;
* `Expr` and `Level` constructors (`letE` with five fields, `proj typeName idx struct`),
  `mkConst`, `mkApp`, `mkApp2`, `Expr.instantiateLevelParams (e) (paramNames) (lvls)`, `Iff`,
  `Iff.rfl {a : Prop}`, `Not` — `src/Lean/Expr.lean`, `src/Lean/Level.lean`,
  `src/Lean/Util/InstantiateLevelParams.lean`, `src/Init/Core.lean`;
* `Json.mkObj`, `Json.str`, `Json.bool`, `Json.arr`, `Json.null`, `Json.compress`, `toJson` on
  `Nat` — `src/Lean/Data/Json/Basic.lean`, `src/Lean/Data/Json/Printer.lean`,
  `src/Lean/Data/Json/FromToJson.lean`;
* `Name.mkStr`, `Name.getRoot` (`src/Init/Meta.lean`, read), `Name.isPrefixOf`,
  `Name.isAnonymous`, `Name.toString`, `String.toName`, `Array.back?`, `Array.filterMap`,
  `Array.foldl` (with `(init := …)`), `Array.any`, `List.contains`, `tryCatch`, `ToString
  IO.Error` — `src/Init/Prelude.lean`, `src/Init/Meta.lean`, `src/Init/Data/Array/Basic.lean`
  (the everyday core API, used as `src/Lean/Util/Path.lean` and `src/LeanChecker.lean` use it);
* `IO.FS.writeFile`, `IO.FS.rename` (POSIX `rename`), `System.FilePath.addExtension`,
  `IO.eprintln` — `src/Init/System/IO.lean`, `src/Init/System/FilePath.lean`; `Std.HashMap`
  (`insert`, `toList`, `size`, `[·]?`) — `src/Std/Data/HashMap/Basic.lean`, as `leanchecker`
  uses it.

Syntax relied on, each also in the sources above: `let some x := e | alt` in `do`
(`Lean.Replay`), `else if let` in `do` (`Environment.lean`'s `getStateUnsafe`), `where` after a
`do` block (`finalizePersistentExtensions`), nested actions written `(← e)` (`finalizeImport`),
a `mutual` block of `partial def`s (`Lean.Replay`), explicit `Inhabited` instances for the
monads of the `partial def`s. No `[a:b]` range loop (the module-era sources write `a...b`).

A third reading (issue 10, compile readiness) checked every name again and found no signature,
argument order, field or instance at odds with the newest stored copies: `Environment.lean`'s
newest (module-era, with `EffectiveImport` and `.ir` parts: `readModuleDataParts`,
`OLeanLevel.adjustFileName`, `ModuleData`, `importModules`, `allImportedModuleNames`,
`ofKernelEnv`, `Kernel.Environment.find?`, the `Kernel.Exception` constructors), a module-era
`src/Lean/CoreM.lean` (commit 00675a04…: `Core.Context` needs only `fileName` and `fileMap`,
`Core.State` only `env`, `CoreM.toIO (x) (ctx) (s) : IO (α × State)`, and `ImportM.runCoreM`
uses the same two-field form), `NameMap.lean`'s newest (`@[expose] def NameSet :=
Std.TreeSet …`, `ForIn` for any monad, its own `SDiff` writing `s.erase n`), `Attributes.lean`
(`ParametricAttribute.ext`), `Message.lean` (`Kernel.Exception.toMessageData (e) (opts)`),
`Init/Control/Id.lean`'s newest (`Id` still a `def`, so `((), s)` is a `StateM` result), and
`Elab/PreDefinition/Basic.lean` in several copies (`addAndCompilePartialRec` always with
`safety := .partial`). The old code generator's `_cstage`/`_spec_` constants, which would be
`unsafe`, are not written by Lean after about v4.20 (a stored third-party checker's notes).

What the second and third readings could not confirm (each would show as a build error or in
the real-Lean test, never as a wrong green):

* which stored revision is v4.33.0 itself;
* `Kernel.Environment.addDeclCore`'s arity at v4.33.0: third-party code says it gained a
  `maxRecDepth` argument (`addDeclCore 0 0 decl`, "Lean v4.35.0-rc3", and "v4.33.1") passed by
  `Kernel.Environment.addDecl` from `maxRecDepth.get opts`, but no stored `AddDecl.lean` shows
  it. The judge calls only `addDecl`, whose signature is the same in every copy; `maxRecDepth`
  in `kernelOptions` matters only where `addDecl` passes it on (a stored third-party review
  quotes v4.33.1's and v4.35.0-rc2's `AddDecl.lean` doing so, "as its stack budget"); which
  `Kernel.Exception` a depth overrun raises is not shown: if not `deepRecursion`, it reads as
  `rejected` rather than `budget`, red either way;
* that v4.33.0's recursion compiler still emits `f._unsafe_rec` (if it does not, nothing is
  skipped); the example `Submissions/S001/CarolRecursive` exercises it in the real-Lean test;
* how Lean's built-in pretty printer renders terms without any extension state (without
  `loadExts`, Mathlib's notation is not loaded): only the `types` strings shown to a reader
  depend on it;
* that the kernel, asked to reduce `Lean.reduceBool c` for a `c` of a trusted module, runs `c`'s
  compiled code in this process (the IR of trusted imports is loaded even without `loadExts`);
  for the submission's own constants no IR is loaded and the kernel refuses; either way the
  axiom audit reports `Lean.ofReduceBool`;
* that v4.33.0's `Json` API is the `Except String` form read (`Verify/ExportParse.lean`); an
  `Option` form would fail the build, not mis-read.

The `.olean` question of earlier versions is closed: no part of a submission's `.olean` is read
in this process (the exporter, in the sandbox, is the only reader).
-/

open Lean

namespace Jig.Judge

/-- The import roots a submission may use (PRODUCT.md §3). Checked here again, independently
of jig's static policy: the judge must be right even when the policy misses. -/
def allowedRoots : List Name :=
  [`Mathlib, `Batteries, `Std, `Init, `Aesop, `Plausible, `Commons]

/-- Names the judge adds to the kernel environment for its own checks. A module declaring
anything under this root is refused (provenance), so the names are always fresh. -/
def reservedRoot : Name := `_jig_judge

def bridgeName : Name := reservedRoot ++ `bridge
def refutationName : Name := reservedRoot ++ `refutation

/-! ## Arguments -/

structure Args where
  statementId : String
  module : String
  decl : String
  refutes : Option String
  imports : Array String
  exportFile : System.FilePath
  out : System.FilePath

structure RawArgs where
  statementId : Option String := none
  module : Option String := none
  decl : Option String := none
  refutes : Option String := none
  imports : Array String := #[]
  exportFile : Option String := none
  out : Option String := none

def readFlags : List String → RawArgs → Except String RawArgs
  | [], acc => .ok acc
  | "--statement" :: v :: rest, acc => readFlags rest { acc with statementId := some v }
  | "--module" :: v :: rest, acc => readFlags rest { acc with module := some v }
  | "--decl" :: v :: rest, acc => readFlags rest { acc with decl := some v }
  | "--refutes" :: v :: rest, acc => readFlags rest { acc with refutes := some v }
  | "--import" :: v :: rest, acc => readFlags rest { acc with imports := acc.imports.push v }
  | "--export" :: v :: rest, acc => readFlags rest { acc with exportFile := some v }
  | "--out" :: v :: rest, acc => readFlags rest { acc with out := some v }
  | arg :: _, _ => .error s!"unexpected argument {arg}"

def parseArgs (argv : List String) : Except String Args := do
  let raw ← readFlags argv {}
  let some statementId := raw.statementId | throw "--statement ID is required"
  let some module := raw.module | throw "--module M is required"
  let some decl := raw.decl | throw "--decl D is required"
  let some exportFile := raw.exportFile | throw "--export PATH is required"
  let some out := raw.out | throw "--out FILE is required"
  return { statementId, module, decl, refutes := raw.refutes, imports := raw.imports,
           exportFile := System.FilePath.mk exportFile, out := System.FilePath.mk out }

def statementModule (id : String) : Name := Name.mkStr `Statements id
def statementConst (id : String) : Name := Name.mkStr (statementModule id) "statement"

/-! ## The report -/

/-- The facts, one field per check; `null` for a check that did not run. -/
structure Report where
  imports : Json := .null
  provenance : Json := .null
  unchecked : Json := .null
  moduleAxioms : Json := .null
  replay : Json := .null
  bridge : Json := .null
  axioms : Json := .null
  term : Json := .null
  statementTerm : Json := .null
  refutation : Json := .null
  types : Json := .null

def namesJson (names : Array Name) : Json :=
  Json.arr (names.map fun n => Json.str n.toString)

def optString (s? : Option String) : Json :=
  match s? with
  | some s => Json.str s
  | none => Json.null

def render (args : Args) (report : Report) (failure : Option String) : String :=
  (Json.mkObj [
    ("schema", Json.str "jig.judge.v1"),
    ("statement_id", Json.str args.statementId),
    ("module", Json.str args.module),
    ("decl", Json.str args.decl),
    ("refutes", optString args.refutes),
    ("failure", optString failure),
    ("imports", report.imports),
    ("provenance", report.provenance),
    ("unchecked", report.unchecked),
    ("module_axioms", report.moduleAxioms),
    ("replay", report.replay),
    ("bridge", report.bridge),
    ("axioms", report.axioms),
    ("term", report.term),
    ("statement_term", report.statementTerm),
    ("refutation", report.refutation),
    ("types", report.types)]).compress

/-- Write `text` to `path` so that a reader sees either nothing or the whole document. -/
def writeAtomically (path : System.FilePath) (text : String) : IO Unit := do
  let tmp := path.addExtension "tmp"
  IO.FS.writeFile tmp text
  IO.FS.rename tmp path

def attempt {α : Type} (act : IO α) : IO (Except String α) := do
  try
    let a ← act
    return .ok a
  catch e =>
    return .error (toString e)

def errorOf {α : Type} : Except String α → String
  | .error e => e
  | .ok _ => ""

/-! ## Where constants come from -/

/-- The module that declared `c` in an imported environment, if any. -/
def declaringModule? (env : Environment) (c : Name) : Option Name := do
  let idx ← env.getModuleIdxFor? c
  env.allImportedModuleNames[idx.toNat]?

/-! ## Kernel checks -/

/-- The kernel's options: no heartbeat limit, a deep recursion budget. The wall budget jig
enforces is the bound; a proof the build's kernel accepted under any `set_option` must not be
refused here for a smaller budget. -/
def kernelOptions : Options :=
  let opts : Options := {}
  let opts := Lean.Option.set opts maxHeartbeats 0
  Lean.Option.set opts maxRecDepth 100000

/-- A kernel exception that only says a budget ran out decides nothing. -/
def isBudget : Kernel.Exception → Bool
  | .deterministicTimeout => true
  | .excessiveMemory => true
  | .deepRecursion => true
  | .interrupted => true
  | _ => false

def verdictJson (verdict detail : String) : Json :=
  Json.mkObj [("verdict", Json.str verdict), ("detail", Json.str detail)]

def accepted : Json := verdictJson "accepted" ""

/-- The JSON of a refused kernel check. -/
def refusedJson (ex : Kernel.Exception) (context : String) : IO Json := do
  let said ← (ex.toMessageData {}).toString
  let verdict := if isBudget ex then "budget" else "rejected"
  return verdictJson verdict s!"{context}{said}"

def kernelTheorem (env : Kernel.Environment) (name : Name) (levelParams : List Name)
    (type value : Expr) : Except Kernel.Exception Kernel.Environment :=
  let thm : TheoremVal :=
    { name := name, levelParams := levelParams, type := type, value := value, all := [name] }
  Kernel.Environment.addDecl env kernelOptions (Declaration.thmDecl thm)

/-! ## Replay -/

structure ReplayState where
  env : Kernel.Environment
  remaining : NameSet
  pending : NameSet := {}
  ctors : Array Name := #[]
  recs : Array Name := #[]

/-- Why the replay stopped: the kernel's own exception, or a block that is not what the kernel
would have generated. -/
structure ReplayError where
  decl : Name
  kernel? : Option Kernel.Exception := none
  detail : String := ""
  deriving Inhabited

/-- Every constant `ci` refers to, as the replay must order them: its type's, its value's for a
definition, a theorem and an opaque alike (`ConstantInfo.value?` leaves a theorem's out unless
`allowOpaque`, and so does `ConstantInfo.getUsedConstantsAsSet`, which falls back to `{}` for a
theorem — `src/Lean/Util/FoldConsts.lean`), an inductive's constructors, a constructor's
inductive, a recursor's types and rules. -/
def usedConstants (ci : ConstantInfo) : NameSet :=
  let add (names : NameSet) (e : Expr) : NameSet :=
    e.getUsedConstants.foldl (init := names) fun acc n => acc.insert n
  let ofType := add {} ci.type
  match ci with
  | .defnInfo v => add ofType v.value
  | .thmInfo v => add ofType v.value
  | .opaqueInfo v => add ofType v.value
  | .inductInfo v => v.ctors.foldl (init := ofType) fun acc n => acc.insert n
  | .ctorInfo v => ofType.insert v.induct
  | .recInfo v =>
    let withRules := v.rules.foldl (init := ofType) fun acc r => add acc r.rhs
    v.all.foldl (init := withRules) fun acc n => acc.insert n
  | _ => ofType

abbrev ReplayM := ReaderT (Std.HashMap Name ConstantInfo) (StateT ReplayState (Except ReplayError))

/-- For the `partial` definitions below (a `partial def` needs an inhabited type). -/
instance : Inhabited (ReplayM Unit) := ⟨fun _ _ => .error default⟩

def kernelAdd (name : Name) (d : Declaration) : ReplayM Unit := do
  match Kernel.Environment.addDecl (← get).env kernelOptions d with
  | .ok env => modify fun s => { s with env := env }
  | .error ex => throw ({ decl := name, kernel? := some ex } : ReplayError)

def malformed (name : Name) (detail : String) : ReplayM Unit :=
  throw ({ decl := name, detail := detail } : ReplayError)

mutual

/-- Add `name` (a constant of the module) after everything of the module it uses. -/
partial def replayConstant (name : Name) : ReplayM Unit := do
  unless (← get).remaining.contains name do return
  modify fun s => { s with remaining := s.remaining.erase name, pending := s.pending.insert name }
  let some ci := (← read)[name]? | return
  replayConstants (usedConstants ci)
  -- A mutual inductive block may have been added while replaying the dependencies.
  unless (← get).pending.contains name do return
  match ci with
  | .defnInfo v => kernelAdd name (Declaration.defnDecl v)
  | .thmInfo v => kernelAdd name (Declaration.thmDecl v)
  | .axiomInfo v => kernelAdd name (Declaration.axiomDecl v)
  | .opaqueInfo v => kernelAdd name (Declaration.opaqueDecl v)
  | .inductInfo v => replayInductive v
  | .ctorInfo v => modify fun s => { s with ctors := s.ctors.push v.name }
  | .recInfo v => modify fun s => { s with recs := s.recs.push v.name }
  | .quotInfo _ => malformed name "a module cannot declare the quotient primitives"
  modify fun s => { s with pending := s.pending.erase name }

partial def replayConstants (names : NameSet) : ReplayM Unit := do
  for n in names do
    replayConstant n

/-- Send an inductive block to the kernel as one declaration, built from the module's own
types and constructors; the kernel generates the constructors and recursors again. -/
partial def replayInductive (v : InductiveVal) : ReplayM Unit := do
  let consts ← read
  let mut types : Array InductiveType := #[]
  let mut ctorInfos : Array ConstantInfo := #[]
  for typeName in v.all do
    let some (.inductInfo t) := consts[typeName]?
      | malformed v.name s!"its block names {typeName}, not an inductive type of the module"
    modify fun s =>
      { s with remaining := s.remaining.erase typeName, pending := s.pending.erase typeName }
    let mut ctors : Array Constructor := #[]
    for ctorName in t.ctors do
      let some ctor := consts[ctorName]?
        | malformed v.name s!"its constructor {ctorName} is not a constant of the module"
      ctorInfos := ctorInfos.push ctor
      ctors := ctors.push { name := ctor.name, type := ctor.type }
    types := types.push { name := t.name, type := t.type, ctors := ctors.toList }
  for ctor in ctorInfos do
    replayConstants (usedConstants ctor)
  kernelAdd v.name (Declaration.inductDecl v.levelParams v.numParams types.toList false)

end

/-- The constructors and recursors of the module must be exactly the ones the kernel
generated for the replayed inductive types. -/
def checkGenerated : ReplayM Unit := do
  let consts ← read
  let s ← get
  for n in s.ctors do
    match s.env.find? n, consts[n]? with
    | some (.ctorInfo generated), some (.ctorInfo stored) =>
      unless generated == stored do malformed n "differs from the constructor the kernel generated"
    | _, _ => malformed n "is not a constructor the kernel generated"
  for n in s.recs do
    match s.env.find? n, consts[n]? with
    | some (.recInfo generated), some (.recInfo stored) =>
      unless generated == stored do malformed n "differs from the recursor the kernel generated"
    | _, _ => malformed n "is not a recursor the kernel generated"

def replay (env : Kernel.Environment) (consts : Std.HashMap Name ConstantInfo) :
    Except ReplayError Kernel.Environment := do
  let mut remaining : NameSet := {}
  for (n, _) in consts.toList do
    remaining := remaining.insert n
  let go : ReplayM Unit := do
    for (n, _) in consts.toList do
      replayConstant n
    checkGenerated
  let ((), s) ← StateT.run (ReaderT.run go consts)
    ({ env := env, remaining := remaining } : ReplayState)
  return s.env

def replayFailureJson (e : ReplayError) : IO Json := do
  match e.kernel? with
  | some ex => refusedJson ex s!"while replaying '{e.decl}': "
  | none => return verdictJson "rejected" s!"'{e.decl}' {e.detail}"

/-! ## The axiom audit over the replayed environment -/

structure AxiomState where
  visited : NameSet := {}
  axioms : Array Name := #[]
  missing : Array Name := #[]
  deriving Inhabited

instance : Inhabited (StateM AxiomState Unit) := ⟨fun s => ((), s)⟩

/-- Every axiom `c` depends on, walking types and values as `CollectAxioms.collect` does. -/
partial def gatherAxioms (env : Kernel.Environment) (c : Name) : StateM AxiomState Unit := do
  if (← get).visited.contains c then return
  modify fun s => { s with visited := s.visited.insert c }
  let visit (e : Expr) : StateM AxiomState Unit := e.getUsedConstants.forM (gatherAxioms env)
  match env.find? c with
  | some (.axiomInfo _) => modify fun s => { s with axioms := s.axioms.push c }
  | some (.defnInfo v) => do visit v.type; visit v.value
  | some (.thmInfo v) => do visit v.type; visit v.value
  | some (.opaqueInfo v) => do visit v.type; visit v.value
  | some (.quotInfo _) => pure ()
  | some (.ctorInfo v) => visit v.type
  | some (.recInfo v) => visit v.type
  | some (.inductInfo v) => do visit v.type; v.ctors.forM (gatherAxioms env)
  | none => modify fun s => { s with missing := s.missing.push c }

/-! ## Normalized term serialization

Ported from the `#jig_term` command this repo used before the judge, unchanged in output, so
`elaborated_term_hash` keeps its meaning (`jig-normalized-v1`): binder names, binder info and
`mdata` dropped, universe parameters renamed to their position, the owning module's constants
inlined (renaming a helper lemma must not buy a fresh hash), every other constant opaque. The
output is bounded by `fuel`; `truncated` says when it ran out.
-/

structure Out where
  buf : String := ""
  fuel : Nat := 5000000
  truncated : Bool := false
  deriving Inhabited

abbrev SerM := StateM Out

instance : Inhabited (SerM Unit) := ⟨fun o => ((), o)⟩

def emit (s : String) : SerM Unit :=
  modify fun o => { o with buf := o.buf ++ s }

def positionIn (names : List Name) (n : Name) : Option Nat :=
  go names 0
where
  go : List Name → Nat → Option Nat
    | [], _ => none
    | m :: ms, i => if m == n then some i else go ms (i + 1)

partial def levelText (params : List Name) : Level → String
  | .zero => "0"
  | .succ l => "s" ++ levelText params l
  | .max a b => "m(" ++ levelText params a ++ "," ++ levelText params b ++ ")"
  | .imax a b => "i(" ++ levelText params a ++ "," ++ levelText params b ++ ")"
  | .mvar _ => "?m"
  | .param n => if let some i := positionIn params n then "u" ++ toString i else "?" ++ n.toString

def constText (params : List Name) (c : Name) (us : List Level) : String :=
  "C" ++ c.toString ++ "{" ++ ",".intercalate (us.map (levelText params)) ++ "} "

/-- The value of a definition, theorem or opaque constant. -/
def valueOf? : ConstantInfo → Option Expr
  | .defnInfo v => some v.value
  | .thmInfo v => some v.value
  | .opaqueInfo v => some v.value
  | _ => none

/-- Serialize `e`. `own c` is `c`'s info when `c` belongs to the owning module (it is then
inlined); `active` holds the constants being inlined, so recursion is not unfolded forever. -/
partial def ser (own : Name → Option ConstantInfo) (params : List Name) (active : List Name)
    (e : Expr) : SerM Unit := do
  let o ← get
  if o.fuel == 0 then
    set { o with truncated := true }
    return
  set { o with fuel := o.fuel - 1 }
  let go := ser own params active
  match e with
  | .bvar i => emit s!"#{i} "
  | .fvar _ => emit "F "
  | .mvar _ => emit "M "
  | .sort l => emit s!"S{levelText params l} "
  | .lit (.natVal n) => emit s!"N{n} "
  | .lit (.strVal s) => emit s!"T{s.utf8ByteSize}:{s} "
  | .mdata _ b => go b
  | .app f a => do emit "("; go f; go a; emit ")"
  | .lam _ t b _ => do emit "λ"; go t; go b
  | .forallE _ t b _ => do emit "Π"; go t; go b
  | .letE _ t v b _ => do emit "L"; go t; go v; go b
  | .proj s i b => do emit s!"P{s}.{i}("; go b; emit ")"
  | .const c us =>
    let inlined : Option (ConstantInfo × Expr) :=
      if active.contains c then none else (own c).bind fun ci => (valueOf? ci).map (ci, ·)
    match inlined with
    | some (ci, v) => do
      emit "<"
      ser own params (c :: active) (v.instantiateLevelParams ci.levelParams us)
      emit ">"
    | none => emit (constText params c us)

def termJson (own : Name → Option ConstantInfo) (ci : ConstantInfo) : Json :=
  let body := (valueOf? ci).getD ci.type
  let out := (Id.run (StateT.run (ser own ci.levelParams [ci.name] body) {})).2
  Json.mkObj [("text", Json.str out.buf), ("truncated", Json.bool out.truncated)]

/-! ## Pretty printing, with Lean's built-in printer only -/

/-- `e` pretty-printed in `env`: the trusted environment, or the replayed one, whose constants
include the submission's but whose extension states are the trusted import's (imported without
`loadExts`, so no delaborator, unexpander or notation of any module is live; Lean's built-in ones
print). A note instead when the pretty printer fails. For a reader, never for a decision. -/
def prettyIn (env : Environment) (e : Expr) : IO String := do
  let ctx : Core.Context := { fileName := "<jig judge>", fileMap := default }
  let state : Core.State := { env := env }
  try
    let (fmt, _) ← Core.CoreM.toIO (Meta.MetaM.run' (Meta.ppExpr e)) ctx state
    return toString fmt
  catch err =>
    return s!"(not pretty-printed: {err})"

/-! ## The judgement -/

/-- `theorem _ : Statements.ID.statement := D`, at `D`'s universe parameters (the statement's
taken positionally when it has any), sent to the kernel: whether it holds, and its JSON. -/
def bridgeCheck (kenv : Kernel.Environment) (stmt decl : ConstantInfo) : IO (Bool × Json) := do
  let us := decl.levelParams.map Level.param
  let stmtUs? : Option (List Level) :=
    if stmt.levelParams.isEmpty then some []
    else if stmt.levelParams.length == decl.levelParams.length then some us
    else none
  let some stmtUs := stmtUs?
    | return (false, verdictJson "rejected"
        s!"{decl.name} has {decl.levelParams.length} universe parameters, the statement \
          {stmt.levelParams.length}")
  let bridge := kernelTheorem kenv bridgeName decl.levelParams (mkConst stmt.name stmtUs)
    (mkConst decl.name us)
  match bridge with
  | .ok _ => return (true, accepted)
  | .error ex => return (false, (← refusedJson ex ""))

def uncheckedJson (name : Option Name) (why : String) : Json :=
  Json.mkObj [("name", optString (name.map (·.toString))), ("why", Json.str why)]

/-- The module's safe definitions. -/
def safeDefinitions (constants : Array ConstantInfo) : NameSet :=
  constants.foldl (init := ({} : NameSet)) fun names ci =>
    match ci with
    | .defnInfo v => if v.safety == .safe then names.insert v.name else names
    | _ => names

/-- `f._unsafe_rec`, the `partial` copy of a safe recursive definition `f` of the module that
Lean's compiler runs in place of `f`: structural and well-founded recursion add one for every
compiled definition (`addAndCompilePartialRec`). The kernel never needs it (a safe constant may not
use a `partial` one), so it is neither refused nor replayed, as `leanchecker`'s replay skips it;
a `partial def` the user wrote is an `opaque` `f`, so its copy is still refused. -/
def isCompilerCopy (safeDefs : NameSet) (ci : ConstantInfo) : Bool :=
  match ci.name with
  | .str base "_unsafe_rec" => ci.isPartial && safeDefs.contains base
  | _ => false

/-- Code the kernel does not check: `unsafe` and `partial` constants (but a compiler copy). -/
def uncheckedOf (constants : Array ConstantInfo) : Array Json := Id.run do
  let mut found : Array Json := #[]
  let safeDefs := safeDefinitions constants
  for ci in constants do
    if isCompilerCopy safeDefs ci then
      continue
    if ci.isUnsafe then
      found := found.push (uncheckedJson (some ci.name) "unsafe")
    else if ci.isPartial then
      found := found.push (uncheckedJson (some ci.name) "partial")
  return found

def sameTheorem (a b : ConstantInfo) : Bool :=
  match a, b with
  | .thmInfo x, .thmInfo y => x.type == y.type && x.levelParams == y.levelParams
  | _, _ => false

def clashJson (env : Environment) (name : Name) : Json :=
  Json.mkObj [("name", Json.str name.toString),
    ("module", optString ((declaringModule? env name).map (·.toString)))]

def judge (args : Args) : IO (Report × Option String) := do
  let mut report : Report := {}
  let declName := args.decl.toName
  let stmtModule := statementModule args.statementId
  let stmtName := statementConst args.statementId
  -- 1. the submission's constants, from its export
  let loaded ← attempt (ExportParse.readExport args.exportFile args.module.toName)
  let .ok parsed := loaded | return (report, some s!"load: {errorOf loaded}")
  let moduleConstants := parsed.constants
  -- 2. its imports (from its source header, as jig read it), against the allowed roots
  let imported := args.imports.map String.toName
  let refused := imported.filter fun m => !allowedRoots.contains m.getRoot
  report := { report with imports :=
    Json.mkObj [("modules", namesJson imported), ("refused", namesJson refused)] }
  unless refused.isEmpty do return (report, none)
  -- 3. the trusted environment: the statements and the submission's (allowed) imports
  let statements := match args.refutes with
    | some refutes => #[stmtModule, statementModule refutes]
    | none => #[stmtModule]
  let roots := statements ++ imported
  let importedEnv ← attempt (importModules (roots.map fun m => ({ module := m } : Import)) {} 0)
  let .ok env := importedEnv | return (report, some s!"import: {errorOf importedEnv}")
  let trusted := env.toKernelEnv
  -- 4. provenance; the constants to replay (all of the module's but the duplicates of trusted
  -- theorems and the compiler's copies of recursive definitions)
  let safeDefs := safeDefinitions moduleConstants
  let mut constants : Std.HashMap Name ConstantInfo := {}
  let mut clashes : Array Json := #[]
  let mut duplicates : Array Name := #[]
  for ci in moduleConstants do
    if reservedRoot.isPrefixOf ci.name then
      clashes := clashes.push (clashJson env ci.name)
    else if let some existing := trusted.find? ci.name then
      if ci.name != declName && sameTheorem ci existing then
        duplicates := duplicates.push ci.name
      else
        clashes := clashes.push (clashJson env ci.name)
    else if !isCompilerCopy safeDefs ci then
      constants := constants.insert ci.name ci
  let declInModule := moduleConstants.any (·.name == declName)
  let stmtFrom := declaringModule? env stmtName
  report := { report with provenance := Json.mkObj [
    ("decl_in_module", Json.bool declInModule),
    ("statement_module", optString (stmtFrom.map (·.toString))),
    ("clashes", Json.arr clashes),
    ("duplicates", namesJson duplicates)] }
  let moduleAxioms := moduleConstants.filterMap fun ci =>
    match ci with
    | .axiomInfo v => some v.name
    | _ => none
  report := { report with moduleAxioms := namesJson moduleAxioms }
  let canonical? := (env.find? stmtName).bind valueOf?
  let canonicalText ← match canonical? with
    | some e => some <$> prettyIn env e
    | none => pure none
  report := { report with types := Json.mkObj [
    ("canonical", optString canonicalText), ("submitted", Json.null)] }
  unless declInModule && clashes.isEmpty && stmtFrom == some stmtModule do
    return (report, none)
  -- 5. code the kernel does not check
  let unchecked := uncheckedOf moduleConstants
  report := { report with unchecked := Json.arr unchecked }
  unless unchecked.isEmpty do return (report, none)
  -- 6. the kernel replay
  let replayed := replay trusted constants
  if let .error e := replayed then
    report := { report with replay := (← replayFailureJson e) }
    return (report, none)
  let .ok kenv := replayed | return (report, some "replay: no environment")
  report := { report with replay := Json.mkObj [
    ("verdict", Json.str "accepted"), ("detail", Json.str ""),
    ("constants", toJson constants.size)] }
  let some decl := constants[declName]? | return (report, some "replay: the decl vanished")
  let some stmt := env.find? stmtName | return (report, some "import: the statement vanished")
  -- 7. anti-restatement, checked by the kernel on the replayed environment
  let (bridgeHolds, bridged) ← bridgeCheck kenv stmt decl
  report := { report with bridge := bridged }
  unless bridgeHolds do
    let submitted ← prettyIn (Environment.ofKernelEnv kenv) decl.type
    report := { report with types := Json.mkObj [
      ("canonical", optString canonicalText), ("submitted", Json.str submitted)] }
  -- 8. the axiom audit, over the replayed environment
  let ((), audit) := Id.run (StateT.run (gatherAxioms kenv declName) {})
  unless audit.missing.isEmpty do
    return (report, some s!"axioms: {audit.missing[0]!} is missing from the replayed environment")
  report := { report with axioms := namesJson audit.axioms }
  -- 9. the normalized terms of the decl and of the statement
  report := { report with term := termJson (fun c => constants[c]?) decl }
  let ownStmt := fun (c : Name) =>
    if declaringModule? env c == some stmtModule then env.find? c else none
  report := { report with statementTerm := termJson ownStmt stmt }
  -- 10. the refutation link, on the trusted statements alone
  if let some refutes := args.refutes then
    report := { report with refutation := (← refutationJson trusted env stmtName
      (statementConst refutes)) }
  return (report, none)
where
  /-- `lhs ↔ ¬ rhs` by `Iff.rfl` at shared universe parameters, checked by the kernel. -/
  refutationJson (kenv : Kernel.Environment) (env : Environment) (lhsName rhsName : Name) :
      IO Json := do
    let some lhs := env.find? lhsName | return verdictJson "rejected" s!"{lhsName} does not exist"
    let some rhs := env.find? rhsName | return verdictJson "rejected" s!"{rhsName} does not exist"
    if lhs.levelParams.length != rhs.levelParams.length then
      return verdictJson "rejected"
        "the two statements have different numbers of universe parameters"
    let us := lhs.levelParams.map Level.param
    let l := mkConst lhsName us
    let r := mkApp (mkConst ``Not) (mkConst rhsName us)
    let link := kernelTheorem kenv refutationName lhs.levelParams (mkApp2 (mkConst ``Iff) l r)
      (mkApp (mkConst ``Iff.rfl) l)
    match link with
    | .ok _ => return accepted
    | .error ex => refusedJson ex ""

end Jig.Judge

def main (argv : List String) : IO UInt32 := do
  match Jig.Judge.parseArgs argv with
  | .error msg =>
    IO.eprintln s!"jig_judge: {msg}"
    return 2
  | .ok args =>
    let run : IO (Jig.Judge.Report × Option String) := do
      initSearchPath (← findSysroot)
      Jig.Judge.judge args
    let (report, failure) ← tryCatch run fun err =>
      pure (({} : Jig.Judge.Report), some s!"judge: {err}")
    Jig.Judge.writeAtomically args.out (Jig.Judge.render args report failure)
    return 0
