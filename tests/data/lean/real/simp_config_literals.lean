import Mathlib

/-! An IMO-style solution that writes its simp configuration out in full, as some provers do,
with `Bool.true`, numbers, enumeration constructors and `+flag` shorthands. -/

open Finset

theorem imo_sum_config (n : ℕ) : ∑ i ∈ range (n + 1), (i : ℕ) = n * (n + 1) / 2 := by
  induction n with
  | zero => simp (config := { decide := Bool.true })
  | succ k ih =>
    rw [sum_range_succ, ih]
    simp (config := { decide := Bool.true }) only [Nat.succ_eq_add_one]
    have h : k * (k + 1) % 2 = 0 := by
      simp (config := { decide := Bool.true }) [Nat.mul_mod, Nat.add_mod, Nat.mod_two_eq_zero_or_one]
      rcases Nat.mod_two_eq_zero_or_one k with h | h <;> simp [h]
    omega

example (a b : ℕ) (h : a = b) : b = a := by
  simp (config := { decide := true, maxSteps := 200000 }) [h]

example (x : ℕ) (h : x = 2) : x + x = 4 := by
  simp +decide [h]

example (x : ℕ) (h : 2 = x) : x * 2 = 4 := by
  subst h
  simp (config := { zeta := false, beta := true }) -contextual

example (l : List ℕ) : l.reverse.reverse = l := by
  simp (maxDischargeDepth := 3) (config := { arith := false })

example (a : ℤ) : a + 0 = a := by
  simp (config := { iota := Bool.false })

example (n : ℕ) (h : n = 3) : n ^ 2 = 9 := by
  norm_num (config := { decide := Bool.true }) [h]

example (p : ℕ) (hp : p = 5) : p + 1 = 6 := by
  unfold_let at *
  omega (config := { splitDisjunctions := true })

example (n : ℕ) : n = n := by
  rw (occs := .pos [1]) [show n = n from rfl]

example (a b : ℕ) (h : a ≤ b) : a < b + 1 := by
  grind (splits := 4)
