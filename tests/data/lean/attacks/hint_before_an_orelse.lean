/- Attack: `hint <|> rfl`: `hint` admits the goal when it finds nothing, and the `<|>` made a
reader take `hint` for a name. -/
-- refused by: hint
import Mathlib

theorem t : (1 : ℕ) = 2 := by
  hint <|> rfl
