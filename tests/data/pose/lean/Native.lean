/- Settles one instance by compiled code: the static policy refuses it before any build. -/
import Mathlib.Algebra.Group.Nat.Even

namespace Submissions.S002.Native

theorem proof : Even (4 ^ 2) := by native_decide

end Submissions.S002.Native
