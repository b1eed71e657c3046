/- Attack: the tactic starts the line right after `by`. -/
-- refused by: (maxDischargeDepth := …)
import Mathlib

def depth : ℕ := 2

theorem t (a : ℝ) (h : a ≠ 0) : a / a = 1 := by
  field_simp (maxDischargeDepth := depth)
