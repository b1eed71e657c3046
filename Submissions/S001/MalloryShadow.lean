/-
Shadowing: the module declares its own, trivially true `Statements.S001.statement` and proves
that. It builds (it never imports the real statement), but the check file imports both
modules and Lean refuses: "import … failed, environment already contains
'Statements.S001.statement' from …".
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Statements.S001

abbrev statement : Prop := True

end Statements.S001

namespace Submissions.S001.MalloryShadow

theorem proof : Statements.S001.statement := trivial

end Submissions.S001.MalloryShadow
