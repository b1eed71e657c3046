/- Attack: a goal-admitting tactic as the discharger of `field_simp`, where a reader sees a
value, not a tactic. -/
-- refused by: hint
import Mathlib

example (x : ℝ) (hx : x ≠ 0) : x / x = 1 := by
  field_simp (disch := hint)
