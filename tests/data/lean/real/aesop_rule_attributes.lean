import Mathlib

/-! Aesop rules on the file's own proved lemmas, and Aesop's `unsafe` phase with and without a
success probability. -/

namespace AesopRules

def Even' (n : ℕ) : Prop := ∃ k, n = 2 * k

@[aesop safe apply]
theorem even'_zero : Even' 0 := ⟨0, rfl⟩

@[aesop unsafe 50% apply]
theorem even'_add_two {n : ℕ} (h : Even' n) : Even' (n + 2) := by
  obtain ⟨k, rfl⟩ := h
  exact ⟨k + 1, by ring⟩

@[aesop norm simp]
theorem even'_iff (n : ℕ) : Even' n ↔ ∃ k, n = 2 * k := Iff.rfl

example : Even' 4 := by
  aesop

example : Even' 6 := by
  aesop (add unsafe even'_add_two)

example : Even' 2 := by
  aesop (add safe even'_zero, unsafe 30% even'_add_two)

example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by
  aesop (add norm simp and_comm)

end AesopRules
