/-
A false refutation claim: a genuine proof of S001 whose manifest says it `refutes` S001.
The link `Statements.S001.statement ↔ ¬ Statements.S001.statement` does not hold by
`Iff.rfl`, so the claim is refused (`not_a_refutation`) although the proof itself is fine.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.MalloryFalseRefutation

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := fun n => Nat.even_mul_succ_self n

end Submissions.S001.MalloryFalseRefutation
