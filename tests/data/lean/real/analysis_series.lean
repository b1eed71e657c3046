import Mathlib

/-!
# Series, images and preimages
-/

open Real Filter Topology

theorem geometric_half : ∑' n : ℕ, (1 / 2 : ℝ) ^ n = 2 := by
  rw [tsum_geometric_of_lt_one (by norm_num) (by norm_num)]
  norm_num

theorem image_preimage_subset {α β : Type*} (f : α → β) (t : Set β) : f '' (f ⁻¹' t) ⊆ t :=
  Set.image_preimage_subset f t

theorem tendsto_inv_atTop : Tendsto (fun x : ℝ => x⁻¹) atTop (𝓝 0) :=
  tendsto_inv_atTop_zero

example : ∫ x in (0 : ℝ)..1, x = 1 / 2 := by
  norm_num [integral_id]

theorem exp_pos' (x : ℝ) : 0 < rexp x := exp_pos x

example (s : ℕ → ℝ) (h : ∀ n, s n = 1 / (n + 1)) : Tendsto s atTop (𝓝 0) := by
  simp_rw [funext h]
  exact tendsto_one_div_add_atTop_nhds_zero_nat
