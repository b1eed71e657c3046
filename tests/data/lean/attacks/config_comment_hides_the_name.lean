/- Attack: a comment between `(` and the option name, hoping the scan looks for `(name :=`
as plain text. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n

example (n : ℕ) : n + 0 = n := by simp (/- budget -/ maxSteps := f 10)
