import Mathlib

/-!
# A hypothesis called `hint`

Integrability hypotheses are often called `hint`; the `hint` tactic is another matter.
-/

open MeasureTheory

variable {f : ℝ × ℝ → ℝ}

theorem swap_integrals (hint : Integrable f (volume.prod volume)) :
    ∫ x, ∫ y, f (x, y) = ∫ y, ∫ x, f (x, y) := by
  rw [integral_integral_swap hint]

theorem integral_prod_eq (hint : Integrable f (volume.prod volume)) :
    ∫ z, f z ∂(volume.prod volume) = ∫ x, ∫ y, f (x, y) := by
  rw [integral_prod _ hint]

example (hint : Integrable f (volume.prod volume)) : Integrable f (volume.prod volume) := by
  exact hint

/-- Binders one per line, as long statements are written. -/
theorem integral_swap_of_bounds {g : ℝ × ℝ → ℝ}
    (hmeas : Measurable g)
    (hint : Integrable g (volume.prod volume))
    (hpos : ∀ z, 0 ≤ g z) :
    ∫ x, ∫ y, g (x, y) = ∫ y, ∫ x, g (x, y) :=
  integral_integral_swap hint
