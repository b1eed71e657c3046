/-
A hole without the word `sorry`: it calls the axiom behind `sorry` (`sorryAx`, core
`Init/Prelude.lean`) by name. The lexer sees an identifier, not the `sorry` keyword; the axiom
audit sees `sorryAx` in the transitive axiom set.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S001.MallorySorry

theorem proof : ∀ n : ℕ, Even (n * (n + 1)) := sorryAx _ false

end Submissions.S001.MallorySorry
