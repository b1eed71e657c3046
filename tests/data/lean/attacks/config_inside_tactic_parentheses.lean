/- Attack: the tactic sits in parentheses after a focusing dot. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n

example (p : Prop) (hp : p) : p ∧ True := by
  constructor
  · (simp (maxSteps := f 5) [hp])
  · trivial
