import Lean

/-!
# Verify.Guard — the verifier's trusted commands

The generated check file (`jigcli/lean/checkfile.py`) imports this module and calls the
commands below. Each one answers with an information message `JIG:<check>:<json>` (compact
JSON from `Lean.Json.compress`), which `jig` reads out of `lean --json`; none of them throws
on a negative answer, so every check in the file reports independently. A submission may
never import this module (the static policy rejects the `Verify` import root).

* `#jig_provenance c "M"` — which module declared constant `c` (`actual`), and whether it is
  `M` (`ok`). Stops a submission from shadowing the canonical statement or claiming a
  constant declared elsewhere.
* `#jig_module_axioms "M"` — every `axiom` declared by imported module `M`.
* `#jig_types d s` — the type of `d` and the body of statement `s`, pretty-printed, so a
  restatement verdict can show both without the reader installing Lean.
* `#jig_term c "M" "FILE"` — writes the normalized serialization of `c`'s value to `FILE`
  (`jig` hashes it): binder names, binder info and `mdata` dropped, universe parameters
  renamed to their position, constants declared in `M` (the submitter's own auxiliary
  declarations) inlined, every other constant (Mathlib, core, `Commons`) kept opaque.
* `#jig_refutation a b` — whether `a ↔ ¬ b` holds by `Iff.rfl`, i.e. `a` and `¬ b` are
  definitionally equal, at shared universe parameters (an `example … := Iff.rfl` would
  generalize the two sides' universes apart).

This file could not be compiled where it was written (no Lean toolchain can be installed
there); it is checked by the integration tests wherever `lake` and the Mathlib cache exist.
Every Lean API it calls was looked up in stored copies of the `leanprover/lean4` sources
(the v4.33.0 tag itself is not in that index; the revisions read are recent, 2025–2026):

* `Lean.Environment.find?`, `Environment.getModuleIdxFor?`, `Environment.getModuleIdx?`,
  `Environment.allImportedModuleNames`, `Environment.header`,
  `EnvironmentHeader.moduleData`, `ModuleData.constants`, `ModuleIdx.toNat` —
  `src/Lean/Environment.lean`;
* `ConstantInfo.value? (allowOpaque := true)`, `ConstantInfo.levelParams`,
  `ConstantInfo.type`, `ConstantInfo.axiomInfo` — `src/Lean/Declaration.lean`;
* `Expr` and `Level` constructors, `mkConst`, `mkApp`, `mkApp2`,
  `Expr.instantiateLevelParams` — `src/Lean/Expr.lean`, `src/Lean/Level.lean`,
  `src/Lean/Util/InstantiateLevelParams.lean`;
* `Lean.Meta.ppExpr`, `Lean.Meta.isDefEq`, `Lean.Meta.inferType` — `src/Lean/Meta/Basic.lean`
  and `src/Lean/Meta/InferType.lean`;
* `logInfo`, `liftTermElabM`, `getEnv`, `CommandElab`, `command_elab`,
  `throwUnsupportedSyntax` — `src/Lean/Elab/Command.lean`, used the same way by
  `src/Lean/Elab/Print.lean` (`#print axioms`);
* `Json.mkObj`, `Json.compress`, `Json.str`, `Json.bool`, `Json.arr`, `Json.null` —
  `src/Lean/Data/Json/Basic.lean`, `src/Lean/Data/Json/Printer.lean`;
* `TSyntax.getId`, `TSyntax.getString`, `String.toName`, `String.utf8ByteSize`,
  `IO.FS.writeFile`, `Iff.rfl`, `Not`, `Iff` — `src/Init/Meta.lean`, `src/Init/Core.lean`,
  `src/Init/System/IO.lean`.
-/

open Lean Elab Command Meta

namespace Jig.Guard

/-- Report one answer as `JIG:<check>:<json>`. -/
def report (check : String) (fields : List (String × Json)) : CommandElabM Unit :=
  logInfo m!"JIG:{check}:{(Json.mkObj fields).compress}"

/-- The module whose `.olean` declared `c`; `none` for a constant of the current file or one
that does not exist. -/
def moduleOf? (env : Environment) (c : Name) : Option Name :=
  match env.getModuleIdxFor? c with
  | some idx => env.allImportedModuleNames[idx.toNat]?
  | none => none

def nameJson (n? : Option Name) : Json :=
  match n? with
  | some n => .str n.toString
  | none => .null

/-! ## Provenance -/

syntax (name := jigProvenance) "#jig_provenance " ident ppSpace str : command

@[command_elab jigProvenance]
def elabProvenance : CommandElab := fun stx => do
  match stx with
  | `(#jig_provenance $c:ident $m:str) =>
    let env ← getEnv
    let name := c.getId
    let expected := m.getString
    let actual := if (env.find? name).isSome then moduleOf? env name else none
    report "provenance" [
      ("decl", .str name.toString),
      ("expected", .str expected),
      ("actual", nameJson actual),
      ("ok", .bool (actual == some expected.toName))]
  | _ => throwUnsupportedSyntax

/-! ## Axioms declared by a module -/

syntax (name := jigModuleAxioms) "#jig_module_axioms " str : command

@[command_elab jigModuleAxioms]
def elabModuleAxioms : CommandElab := fun stx => do
  match stx with
  | `(#jig_module_axioms $m:str) =>
    let env ← getEnv
    let modName := m.getString.toName
    match env.allImportedModuleNames.findIdx? (· == modName) with
    | none =>
      report "module_axioms" [("module", .str modName.toString), ("imported", .bool false)]
    | some idx =>
      let constants := (env.header.moduleData[idx]?).map (·.constants) |>.getD #[]
      let axioms := constants.filterMap fun
        | .axiomInfo v => some (Json.str v.name.toString)
        | _ => none
      report "module_axioms" [
        ("module", .str modName.toString),
        ("imported", .bool true),
        ("axioms", .arr axioms)]
  | _ => throwUnsupportedSyntax

/-! ## The two types, for a reader -/

syntax (name := jigTypes) "#jig_types " ident ppSpace ident : command

def pretty (e? : Option Expr) : CommandElabM Json := do
  match e? with
  | none => return .null
  | some e => return .str (toString (← liftTermElabM (Lean.Meta.ppExpr e)))

@[command_elab jigTypes]
def elabTypes : CommandElab := fun stx => do
  match stx with
  | `(#jig_types $d:ident $s:ident) =>
    let env ← getEnv
    let submitted := (env.find? d.getId).map (·.type)
    let canonical := (env.find? s.getId).bind (·.value?)
    report "types" [
      ("decl", .str d.getId.toString),
      ("statement", .str s.getId.toString),
      ("submitted", (← pretty submitted)),
      ("canonical", (← pretty canonical))]
  | _ => throwUnsupportedSyntax

/-! ## Normalized term serialization

A byte string equal for two proofs that are the same proof and different otherwise. The
kernel ignores binder names, binder info and `mdata`, and the spelling of universe
parameters; so does this. The submitter's own auxiliary declarations are inlined (renaming a
helper lemma must not buy a fresh hash); shared vocabulary stays opaque, which is what makes
two proofs built from the same Mathlib lemmas compare equal. The output is bounded by `fuel`
(terms with heavy sharing can be exponentially large as trees); `truncated` says when it ran
out, and the hash kind records it.
-/

structure Out where
  buf : String := ""
  fuel : Nat := 5000000
  truncated : Bool := false
  deriving Inhabited

abbrev SerM := StateM Out

def emit (s : String) : SerM Unit :=
  modify fun o => { o with buf := o.buf ++ s }

/-- The position of `n` in `names`. -/
def positionIn (names : List Name) (n : Name) : Option Nat :=
  go names 0
where
  go : List Name → Nat → Option Nat
    | [], _ => none
    | m :: ms, i => if m == n then some i else go ms (i + 1)

/-- A universe level with parameters replaced by their position in the root's parameters. -/
partial def levelText (params : List Name) : Level → String
  | .zero => "0"
  | .succ l => "s" ++ levelText params l
  | .max a b => "m(" ++ levelText params a ++ "," ++ levelText params b ++ ")"
  | .imax a b => "i(" ++ levelText params a ++ "," ++ levelText params b ++ ")"
  | .param n => match positionIn params n with
    | some i => "u" ++ toString i
    | none => "?" ++ n.toString
  | .mvar _ => "?m"

def constText (params : List Name) (c : Name) (us : List Level) : String :=
  "C" ++ c.toString ++ "{" ++ ",".intercalate (us.map (levelText params)) ++ "} "

/-- Serialize `e`. `isOwn c` says whether constant `c` is the submitter's own; `active`
holds the constants being inlined right now, so a recursive helper is not unfolded forever. -/
partial def ser (env : Environment) (isOwn : Name → Bool) (params : List Name)
    (active : List Name) (e : Expr) : SerM Unit := do
  let o ← get
  if o.fuel == 0 then
    set { o with truncated := true }
    return
  set { o with fuel := o.fuel - 1 }
  let go := ser env isOwn params active
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
    if isOwn c && !active.contains c then
      match env.find? c with
      | some ci =>
        match ci.value? (allowOpaque := true) with
        | some v => do
          emit "<"
          ser env isOwn params (c :: active) (v.instantiateLevelParams ci.levelParams us)
          emit ">"
        | none => emit (constText params c us)
      | none => emit (constText params c us)
    else
      emit (constText params c us)

syntax (name := jigTerm) "#jig_term " ident ppSpace str ppSpace str : command

@[command_elab jigTerm]
def elabJigTerm : CommandElab := fun stx => do
  match stx with
  | `(#jig_term $c:ident $m:str $f:str) =>
    let env ← getEnv
    let name := c.getId
    let own := m.getString.toName
    match env.find? name with
    | none =>
      report "term" [("decl", .str name.toString), ("found", .bool false)]
    | some ci =>
      let body := (ci.value? (allowOpaque := true)).getD ci.type
      -- Compare module indices: `allImportedModuleNames` rebuilds the module-name array on
      -- every call in recent sources (`EnvironmentHeader.moduleNames` maps `modules`), too
      -- costly once per constant of a large term.
      let ownIdx := env.getModuleIdx? own
      let isOwn := fun (d : Name) => ownIdx.isSome && env.getModuleIdxFor? d == ownIdx
      let out := (Id.run ((ser env isOwn ci.levelParams [name] body).run {})).2
      IO.FS.writeFile (System.FilePath.mk f.getString) out.buf
      report "term" [
        ("decl", .str name.toString),
        ("module", .str own.toString),
        ("file", .str f.getString),
        ("bytes", toJson out.buf.utf8ByteSize),
        ("truncated", .bool out.truncated)]
  | _ => throwUnsupportedSyntax

/-! ## The refutation link -/

syntax (name := jigRefutation) "#jig_refutation " ident ppSpace ident : command

@[command_elab jigRefutation]
def elabRefutation : CommandElab := fun stx => do
  match stx with
  | `(#jig_refutation $a:ident $b:ident) =>
    let env ← getEnv
    let answer (ok : Bool) (detail : String) : CommandElabM Unit :=
      report "refutation" [
        ("lhs", .str a.getId.toString), ("rhs", .str b.getId.toString),
        ("ok", .bool ok), ("detail", .str detail)]
    match env.find? a.getId, env.find? b.getId with
    | some lhs, some rhs =>
      if lhs.levelParams.length != rhs.levelParams.length then
        answer false "the two statements have different numbers of universe parameters"
      else
        let us := lhs.levelParams.map Level.param
        let l := mkConst lhs.name us
        let r := mkApp (mkConst ``Not) (mkConst rhs.name us)
        -- `Iff.rfl : l ↔ l`; accepting it at type `l ↔ ¬ r` is exactly `l =?= ¬ r`.
        let ok ← liftTermElabM do
          let proofType ← Lean.Meta.inferType (mkApp (mkConst ``Iff.rfl) l)
          Lean.Meta.isDefEq proofType (mkApp2 (mkConst ``Iff) l r)
        answer ok (if ok then "" else "not definitionally equal")
    | _, _ => answer false "a statement does not exist"
  | _ => throwUnsupportedSyntax

end Jig.Guard
