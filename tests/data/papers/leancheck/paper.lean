import Mathlib

namespace Check

theorem proved : 0 = 0 := rfl

lemma «open» : 1 = 1 := by
  sorry

theorem conditional : 1 = 1 := «open»

theorem broken : 2 = 2 := by
  exact rfl rfl

axiom choice_principle : ∀ p : Prop, p ∨ ¬p

theorem assumed (p : Prop) : p ∨ ¬p := choice_principle p

end Check
