import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S002.EvenSquare

theorem proof : ∀ n : ℕ, Even n → Even (n ^ 2) :=
  fun n h => Nat.even_pow.mpr ⟨h, by decide⟩

end Submissions.S002.EvenSquare
