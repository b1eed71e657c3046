/- Attack: `{ base with … }` evaluates `base`, a submission definition. -/
-- refused by: (config := …)
import Mathlib

def base : Mathlib.Tactic.Linarith.LinarithConfig := {}

example (x : ℚ) (h : 0 < x) : 0 ≤ x := by
  linarith (config := { base with splitNe := true })
