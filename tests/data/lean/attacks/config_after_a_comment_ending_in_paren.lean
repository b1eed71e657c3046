/- Attack: a trailing comment ending in `(` made a line-based reader take the next line for a
term's continuation. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n

example : (2 : ℕ) + 2 = 4 := by
  simp -- see (
    (maxSteps := f 5)
