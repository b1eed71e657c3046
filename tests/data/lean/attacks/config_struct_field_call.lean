/- Attack: a `{ … }` configuration literal whose field value is a call: the structure is
evaluated, so the call runs. -/
-- refused by: (config := …)
import Mathlib

def budget (n : ℕ) : ℕ := n + 1

theorem t (a b : ℕ) : a + b = b + a := by
  simp (config := { maxSteps := budget 100000, decide := true }) [Nat.add_comm]
