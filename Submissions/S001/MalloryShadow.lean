/-
Shadowing: the module declares its own, trivially true `Statements.S001.statement` and proves
that. The static policy refuses it before anything is built: nothing may be declared in the
`Statements` namespace. Were it built, the verifier's provenance check would still refuse it
(`shadowed_statement`): the real statement and this one cannot both be in one environment.
-/
import Mathlib.Algebra.Group.Nat.Even

namespace Statements.S001

abbrev statement : Prop := True

end Statements.S001

namespace Submissions.S001.MalloryShadow

theorem proof : Statements.S001.statement := trivial

end Submissions.S001.MalloryShadow
