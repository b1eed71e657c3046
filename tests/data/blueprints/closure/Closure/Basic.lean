import Dep.Algebra

namespace Closure

/-- The double of a natural number. -/
def double (n : Nat) : Nat := 2 * n

theorem double_even (n : Nat) : double n % 2 = 0 := by
  unfold double
  omega

end Closure
