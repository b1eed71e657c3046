import Mathlib

/-!
# Tactic configurations with literal values
-/

set_option maxHeartbeats 400000 in
theorem big_sum : ∑ i ∈ Finset.range 20, i = 190 := by
  decide +kernel

example (a b : ℕ) (h : a ≤ b) : a < b + 1 := by
  simp (config := { arith := true, decide := true }) [Nat.lt_succ_iff, h]

example (x y : ℤ) (h₁ : x < y) (h₂ : y < x + 2) : y = x + 1 := by
  omega (splitDisjunctions := false)

example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by
  grind (splits := 4) (gen := 3)

example (a : ℝ) (ha : 0 < a) : a / a = 1 := by
  field_simp (maxDischargeDepth := 2)

example (n : ℕ) : n + 0 = n := by
  simp +arith -zeta (maxSteps := 100000) only [Nat.add_zero]

example (s : Set ℕ) (h : 1 ∈ s) : ∃ x, x ∈ s := by
  aesop (add unsafe 50% apply Set.nonempty_of_mem) (config := { maxRuleApplications := 200 })

example (x : ℝ) (hx : 0 < x) : 0 < x ^ 2 + x := by
  all_goals positivity

example (a b : ℚ) (h : a = 2 * b) (hb : b = 1) : a = 2 := by
  simp (disch := norm_num) only [h, hb]
  norm_num

example (a b : ℕ) (h : a = b) : a + a = b + a := by
  rw (occs := .pos [1]) [h]

example (x y : ℝ) (h₁ : x + y = 3) (h₂ : x - y = 1) : x = 2 := by
  linear_combination (norm := ring_nf) (h₁ + h₂) / 2
