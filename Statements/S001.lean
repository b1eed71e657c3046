/-
S001: for every natural number n, the product n * (n + 1) is even.

Names used, and where they come from at Mathlib v4.33.0 (read in the stored sources):
- `Even` — `Mathlib/Algebra/Group/Even.lean` (imported by the module below);
- `ℕ` notation, `*`, `+` on `Nat` — core `Nat` with Mathlib's notation, reached through
  `Mathlib/Algebra/Group/Nat/Even.lean`, which imports `Mathlib.Algebra.Group.Even` and
  `Mathlib.Algebra.Group.Nat.Basic`.
Only that module is imported, not all of Mathlib: this file is write-once, and a bare
`import Mathlib` would cost every contributor the whole olean cache.
-/
import Mathlib.Algebra.Group.Nat.Even
import Commons.Basic

namespace Statements.S001

/-- The canonical proposition: the type a submission's declaration must have. `abbrev`, so
the bridge `example : Statements.S001.statement := @decl` unfolds it definitionally. -/
abbrev statement : Prop := ∀ n : ℕ, Even (n * (n + 1))

/-- The open target. A submission does not fill this `sorry`: it proves `statement` in its
own module (which may not import this one) and the verifier bridges the two by name. -/
theorem target : statement := sorry

end Statements.S001
