/-
A proof through a recursive helper definition: `tri n = 0 + 1 + … + n`, and
n * (n + 1) = tri n + tri n by induction, which is `Even` by its definition. `tri` is a
computable definition by structural recursion, so Lean's compiler also adds its `partial` copy
`tri._unsafe_rec`; the judge must neither refuse nor replay that copy (a safe constant cannot
use it), and must replay `tri` itself.

Relied on, at Mathlib v4.33.0: `Even a ↔ ∃ r, a = r + r` by definition
(`Mathlib/Algebra/Group/Even.lean`, reached through `Mathlib.Algebra.Group.Nat.Even`); the
`ring` tactic (`Mathlib/Tactic/Ring.lean`); core: `omega`, `induction … with`, `simp only`.
-/
import Mathlib.Algebra.Group.Nat.Even
import Mathlib.Tactic.Ring

namespace Submissions.S001.CarolRecursive

/-- `0 + 1 + … + n`. -/
def tri : ℕ → ℕ
  | 0 => 0
  | n + 1 => tri n + (n + 1)

theorem twice_tri (n : ℕ) : n * (n + 1) = tri n + tri n := by
  induction n with
  | zero => rfl
  | succ k ih =>
    have h : (k + 1) * (k + 1 + 1) = k * (k + 1) + 2 * (k + 1) := by ring
    rw [h, ih]
    simp only [tri]
    omega

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := fun n => ⟨tri n, twice_tri n⟩

end Submissions.S001.CarolRecursive
