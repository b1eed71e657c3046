import Mathlib.Algebra.Group.Nat.Even

namespace Paper

/-- lem:double -/
theorem double (n : ℕ) : Even (2 * n) := even_two_mul n

-- tex: thm:main
theorem main (n : ℕ) : Even (n * (n + 1)) := by
  sorry

theorem extra : True := trivial

end Paper
