/- Attack: hide a call behind a notation, then pass the notation as a configuration value:
the value is a name, not a literal. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n

notation "budget" => f 100

example (n : ℕ) : n + 0 = n := by
  simp (maxSteps := budget)
