import Mathlib

/-! A module docstring that mentions thm:square is not a declaration's. -/

namespace Paper

/-- The main theorem, said differently. -/
@[simp] theorem main_theorem (n : ℕ) : n ≤ n ^ 2 := by
  sorry

-- tex: lem:key
theorem key_step : True := trivial

/-- The lemma lem:doc, in Lean. -/
lemma documented : True := trivial

theorem square (n : ℕ) : 0 ≤ n ^ 2 := Nat.zero_le _

theorem two_ways : True := trivial

theorem lem_two_ways : True := trivial

theorem also : 1 + 1 = 2 := rfl

private theorem hidden : True := trivial

-- helper
theorem aux (n : ℕ) : n = n := rfl

theorem stray : 2 = 2 := rfl  -- "theorem fake : False" in a string is not a declaration

def double (n : ℕ) : ℕ := 2 * n

axiom choice_principle : ∀ p : Prop, p ∨ ¬p

section Inner
theorem _root_.Outside.thing : True := trivial
end Inner

end Paper
