/- Attack: a configuration behind a tactic combinator (`try`), where the tactic does not start
the line. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n

example : (2 : ℕ) + 2 = 4 := by
  try norm_num (maxSteps := f 5)
  rfl
