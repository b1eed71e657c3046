/-
An independent proof by parity: n * (n + 1) is even iff n is even or n + 1 is, and n + 1 is
even iff n is not; one of the two always holds. It goes through its own helper lemma, which
the term hash inlines, so its hash differs from AliceDirect's (which uses the Mathlib lemma).

Relied on, `Mathlib/Algebra/Group/Nat/Even.lean` at v4.33.0: `Nat.even_mul : Even (m * n) ↔
Even m ∨ Even n`, `Nat.even_add_one : Even (n + 1) ↔ ¬Even n`; core: `Classical.em`, `Iff.mpr`.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.BobParity

theorem parity_split (n : ℕ) : Even (n * (n + 1)) ↔ Even n ∨ ¬Even n := by
  rw [Nat.even_mul, Nat.even_add_one]

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) :=
  fun n => (parity_split n).mpr (Classical.em (Even n))

end Submissions.S001.BobParity
