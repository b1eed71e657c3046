/- A prover's competition output: `tactic.hygienic false` heads the file, searches that found
their proof are left in, and the proofs are long `nlinarith`/`omega` chains. -/
import Mathlib
import Aesop

set_option maxHeartbeats 400000
set_option tactic.hygienic false
set_option synthInstance.checkSynthOrder false

open BigOperators Real Nat Topology Rat

/-- The sum of two odd squares is even. -/
theorem mathd_numbertheory_odd_squares (a b : ℤ) (ha : Odd a) (hb : Odd b) :
    Even (a ^ 2 + b ^ 2) := by
  obtain ⟨k, rfl⟩ := ha
  obtain ⟨m, rfl⟩ := hb
  exact ⟨2 * k ^ 2 + 2 * k + 2 * m ^ 2 + 2 * m + 1, by ring⟩

theorem amc12_2001_p5 (x : ℝ) (h₀ : 0 < x) (h₁ : x ^ 2 = 4) : x = 2 := by
  have h₂ : (x - 2) * (x + 2) = 0 := by nlinarith
  rcases mul_eq_zero.mp h₂ with h | h
  · linarith
  · nlinarith

theorem imo_style_bound (n : ℕ) (h₀ : 3 ≤ n) : 2 * n + 1 < 2 ^ n := by
  induction n, h₀ using Nat.le_induction with
  | base => norm_num
  | succ k hk ih =>
    rw [pow_succ]
    omega

theorem mathd_algebra_search (a : ℝ) (h : 0 ≤ a) : Real.sqrt (a ^ 2) = a := by
  exact?

theorem induction_divisibility (n : ℕ) : 3 ∣ n ^ 3 + 2 * n := by
  induction n with
  | zero => simp
  | succ k ih =>
    have : (k + 1) ^ 3 + 2 * (k + 1) = (k ^ 3 + 2 * k) + 3 * (k ^ 2 + k + 1) := by ring
    rw [this]
    exact dvd_add ih (dvd_mul_right 3 _)

theorem hygienic_names (x y : ℕ) (h : x = y) : y = x := by
  cases h
  rfl

theorem case_split_mod (n : ℕ) : n ^ 2 % 4 = 0 ∨ n ^ 2 % 4 = 1 := by
  have h := Nat.mod_lt n (show 4 > 0 by norm_num)
  have : n % 4 = 0 ∨ n % 4 = 1 ∨ n % 4 = 2 ∨ n % 4 = 3 := by omega
  rcases this with h1 | h1 | h1 | h1 <;>
    simp [pow_two, Nat.mul_mod, h1]

theorem chained_positivity (a b c : ℝ) (ha : 0 < a) (hb : 0 < b) (hc : 0 < c) :
    a * b * c > 0 := by
  positivity

theorem exists_witness : ∃ n : ℕ, n * n = 49 := by
  exact ⟨7, by norm_num⟩
