/-
Copyright (c) 2026 The Contributors. All rights reserved.
Released under Apache 2.0 license as described in the file LICENSE.
-/
import Mathlib

/-!
# Olympiad 2026, Problem 2

Find all positive integers `n` such that `n ∣ 2 ^ n - 1`. Answer: `n = 1`.
-/

namespace Olympiad2026P2

/-- The least prime factor `p` of `n > 1` cannot divide `2 ^ n - 1`. -/
lemma not_dvd_of_minFac {n : ℕ} (hn : 1 < n) : ¬ n ∣ 2 ^ n - 1 := by
  intro h
  set p := n.minFac with hp
  have hprime : p.Prime := Nat.minFac_prime (by omega)
  have hpn : p ∣ n := Nat.minFac_dvd n
  have hodd : p ≠ 2 := by
    rintro hp2
    have : 2 ∣ 2 ^ n - 1 := hp2 ▸ hpn.trans h
    have hpos : 0 < 2 ^ n := by positivity
    omega
  have hcop : Nat.Coprime 2 p := (Nat.coprime_primes Nat.prime_two hprime).mpr hodd.symm
  obtain ⟨k, hk⟩ := hpn
  have key : 2 ^ n ≡ 1 [MOD p] := by
    rw [Nat.modEq_iff_dvd' (Nat.one_le_two_pow)]
    exact (Nat.dvd_trans ⟨k, hk⟩ h)
  have hord := orderOf_dvd_of_pow_eq_one (G := ZMod p) (x := 2) (n := n) (by
    simpa [← ZMod.natCast_eq_natCast_iff'] using key)
  have hlt : orderOf (2 : ZMod p) < p := by
    haveI := Fact.mk hprime
    exact lt_of_le_of_lt (orderOf_le_card_univ) (by simp [ZMod.card])
  have h1 : orderOf (2 : ZMod p) = 1 := by
    by_contra hne
    have hpos : 0 < orderOf (2 : ZMod p) := Nat.pos_of_ne_zero (by
      intro h0; simp_all)
    have := Nat.minFac_le_of_dvd (by omega) (hord)
    omega
  rw [orderOf_eq_one_iff] at h1
  have : ((2 : ℕ) : ZMod p) = ((1 : ℕ) : ZMod p) := by simpa using h1
  rw [ZMod.natCast_eq_natCast_iff'] at this
  have : p ∣ 1 := by
    have h2 := Nat.mod_eq_of_lt (a := 1) hprime.one_lt
    omega
  exact hprime.one_lt.ne' (Nat.dvd_one.mp this)

theorem solution (n : ℕ) (hn : 0 < n) : n ∣ 2 ^ n - 1 ↔ n = 1 := by
  constructor
  · intro h
    by_contra hne
    exact not_dvd_of_minFac (by omega) h
  · rintro rfl
    norm_num

end Olympiad2026P2
