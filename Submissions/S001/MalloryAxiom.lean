/-
A declared axiom that simply asserts the statement. The static policy refuses `axiom`; the
no-new-axioms check would refuse it again after a build.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.MalloryAxiom

axiom cheat : ∀ n : ℕ, Even (n * (n + 1))

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := cheat

end Submissions.S001.MalloryAxiom
