/-
A direct proof: the statement is Mathlib's `Nat.even_mul_succ_self`
(`Mathlib/Algebra/Group/Nat/Even.lean` at v4.33.0: `lemma even_mul_succ_self (n : ℕ) :
Even (n * (n + 1))`).
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.AliceDirect

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := fun n => Nat.even_mul_succ_self n

end Submissions.S001.AliceDirect
