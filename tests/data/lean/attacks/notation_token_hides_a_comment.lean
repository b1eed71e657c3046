/- Attack: a notation token ending in `--` makes Lean read `a-- sorry` as the token then
code, where a reader that does not know the token sees a comment hiding `sorry`. -/
-- refused by: "a--"
import Mathlib

notation "a--" => (0 : ℕ)

theorem t : False := by
  exact absurd rfl (by simp : a-- sorry
    ≠ 0)
