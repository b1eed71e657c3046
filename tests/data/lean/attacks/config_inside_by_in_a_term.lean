/- Attack: a configuration inside a `by` block nested in a term, where the tactic does not
start a line. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n

theorem t (n : ℕ) : n + 0 = n ∧ True := ⟨by simp (maxSteps := f 5), trivial⟩
