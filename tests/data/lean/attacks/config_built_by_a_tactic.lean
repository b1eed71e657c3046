/- Attack: `(config := by exact {…})` builds the configuration with a tactic, whose term the
interpreter then evaluates, calling the file's definition. -/
-- refused by: (config := …)
import Mathlib

def steps : ℕ := 100

example : (2 : ℕ) + 2 = 4 := by
  simp (config := by exact { maxSteps := steps })
