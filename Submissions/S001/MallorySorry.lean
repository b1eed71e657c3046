/-
A hole without the word `sorry`: it calls the axiom behind `sorry` (`sorryAx`, core
`Init/Prelude.lean`) by name. The static policy names `sorryAx` itself, so this is never built;
were it built, the axiom audit would find `sorryAx` in the transitive axiom set (`sorry`).
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.MallorySorry

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := sorryAx _ false

end Submissions.S001.MallorySorry
