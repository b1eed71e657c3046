/- A proof declared under another statement's namespace: its manifest could not name it. -/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.Elsewhere

theorem proof : ∀ n : ℕ, Even n → Even (n ^ 2) :=
  fun n h => Nat.even_pow.mpr ⟨h, by decide⟩

end Submissions.S001.Elsewhere
