/- Attack: `hint` on the line after a trailing comment ending in `(`. -/
-- refused by: hint
import Mathlib

theorem t : (1 : ℕ) = 2 := by
  norm_num -- (
  hint
