module

public import Mathlib.Analysis.SpecialFunctions.Pow.Real
public import Mathlib.Data.Real.Sqrt
import Mathlib.Tactic.Positivity

/-!
# A blueprint lemma written with the module system

The statement is public; its proof stays private to the module unless `@[expose]` says so.
-/

@[expose] public section

namespace Blueprint

/-- Lemma 2.3 of the paper. -/
theorem sqrt_le_half_add (x : ℝ) (hx : 0 ≤ x) : Real.sqrt x ≤ (x + 1) / 2 := by
  nlinarith [sq_nonneg (Real.sqrt x - 1), Real.sq_sqrt hx, Real.sqrt_nonneg x]

theorem rpow_half (x : ℝ) (hx : 0 ≤ x) : x ^ (1 / 2 : ℝ) = Real.sqrt x := by
  rw [Real.sqrt_eq_rpow]

end Blueprint

end
