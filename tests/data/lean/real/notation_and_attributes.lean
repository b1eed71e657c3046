import Mathlib

/-!
# Local notation, `mk_iff` and `grind` attributes on the file's own lemmas
-/

namespace Notations

/-- Divisibility by a fixed modulus, as a predicate. -/
inductive Good : ℕ → Prop
  | zero : Good 0
  | step {n : ℕ} : Good n → Good (n + 3)

attribute [mk_iff] Good

local notation "𝒢" => Good

local infixl:65 " ⊕ₘ " => fun a b => (a + b) % 7

@[grind →]
theorem Good.mod_three {n : ℕ} (h : 𝒢 n) : n % 3 = 0 := by
  induction h with
  | zero => rfl
  | step _ ih => omega

@[simp, grind =]
theorem add_mod_seven (a b : ℕ) : a ⊕ₘ b = (a + b) % 7 := rfl

notation3 "∑₃ "(...)", "r:67:(scoped f => Finset.sum (Finset.range 3) f) => r

example : ∑₃ i, i = 3 := by decide

theorem good_six : 𝒢 6 := by
  rw [good_iff]
  right
  exact ⟨3, .step .zero, rfl⟩

end Notations
