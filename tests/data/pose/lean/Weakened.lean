/-
A red example for S002: an extra hypothesis (`n ≠ 0 →`) makes it a different, easier theorem.
It compiles; only the anti-restatement bridge refuses it.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S002.Weakened

theorem proof : ∀ n : ℕ, Even n → n ≠ 0 → Even (n ^ 2) :=
  fun n h _ => Nat.even_pow.mpr ⟨h, by decide⟩

end Submissions.S002.Weakened
