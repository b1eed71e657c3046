/-
A restatement: it proves a true, easier theorem with an extra hypothesis (`Even n →`) and
calls it S001. It compiles; only the anti-restatement bridge refuses it.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.MalloryWeakened

theorem proof : ∀ n : ℕ, Even n → Even (n * (n + 1)) := fun n _ => Nat.even_mul_succ_self n

end Submissions.S001.MalloryWeakened
