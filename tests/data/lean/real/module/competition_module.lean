module

public import Mathlib

/-!
# Competition problem, module-system style
-/

public section

open Finset

namespace Problem

private lemma aux (n : ℕ) : ∑ i ∈ range (n + 1), i = n * (n + 1) / 2 := by
  induction n with
  | zero => rfl
  | succ k ih =>
    rw [sum_range_succ, ih]
    have : k * (k + 1) % 2 = 0 := by
      rcases Nat.even_or_odd k with ⟨m, rfl⟩ | ⟨m, rfl⟩ <;> ring_nf <;> omega
    omega

theorem gauss (n : ℕ) : 2 * ∑ i ∈ range (n + 1), i = n * (n + 1) := by
  rw [aux]
  have : n * (n + 1) % 2 = 0 := by
    rcases Nat.even_or_odd n with ⟨m, rfl⟩ | ⟨m, rfl⟩ <;> ring_nf <;> omega
  omega

end Problem

end
