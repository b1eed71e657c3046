import Mathlib

/-!
# An AM-GM style inequality, the way competition solutions prove it
-/

theorem amgm_three (a b c : ℝ) (ha : 0 ≤ a) (hb : 0 ≤ b) (hc : 0 ≤ c) :
    a * b * c ≤ ((a + b + c) / 3) ^ 3 := by
  nlinarith [sq_nonneg (a - b), sq_nonneg (b - c), sq_nonneg (a - c),
    mul_nonneg ha hb, mul_nonneg hb hc, mul_nonneg ha hc,
    mul_nonneg (mul_nonneg ha hb) hc, sq_nonneg (a + b - 2 * c)]

theorem cauchy_two (x y u v : ℝ) : (x * u + y * v) ^ 2 ≤ (x ^ 2 + y ^ 2) * (u ^ 2 + v ^ 2) := by
  nlinarith [sq_nonneg (x * v - y * u)]

example (x : ℝ) (hx : 1 < x) : Real.log x > 0 := Real.log_pos hx

theorem sqrt_bound (x : ℝ) (hx : 0 ≤ x) : Real.sqrt x ≤ (x + 1) / 2 := by
  have h := Real.sq_sqrt hx
  nlinarith [sq_nonneg (Real.sqrt x - 1), Real.sqrt_nonneg x]

example {a b : ℝ} (hab : a ≤ b) (c : ℝ) : a + c ≤ b + c := by
  gcongr

example (f : ℕ → ℝ) (hf : ∀ n, 0 ≤ f n) (N : ℕ) :
    0 ≤ ∑ n ∈ Finset.range N, f n := Finset.sum_nonneg fun n _ => hf n
