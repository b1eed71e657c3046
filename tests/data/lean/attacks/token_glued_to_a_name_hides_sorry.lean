/- Attack: a token of symbol-then-letter: Lean splits `⊕qsorry` into `⊕q` and `sorry`, where a
reader without the token sees one name. -/
-- refused by: "⊕q"
-- refused by: sorry
import Mathlib

infixl:65 " ⊕q " => Nat.add

theorem t : (2 : ℕ) + 2 = 5 := by
  exact 0 ⊕qsorry
