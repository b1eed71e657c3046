import Mathlib

/-!
# Residues mod 3, written tightly

Competition solutions often write `k%3` without spaces; Lean reads it as `k % 3`.
-/

theorem sq_mod_three (k : ℕ) : k^2%3 = 0 ∨ k^2%3 = 1 := by
  have h : k%3 < 3 := Nat.mod_lt _ (by norm_num)
  interval_cases hk : k%3 <;> simp [Nat.pow_mod, hk]

theorem card_mod (C : Finset ℕ) (h : C.card%3 = 2) : ¬ 3 ∣ C.card := by
  omega

example (n : ℤ) (h : n%2 = 1) : Odd n := by
  exact Int.odd_iff.mpr h
