/-
Trusting the compiler: `native_decide` (here on a finite instance folded into the proof)
leaves an axiom `<decl>._native.native_decide.ax_1_1` in Lean 4.33. The static policy refuses
the tactic before anything is built.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.MalloryNative

theorem small : Even (10 * (10 + 1)) := by native_decide

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := fun n => Nat.even_mul_succ_self n

end Submissions.S001.MalloryNative
