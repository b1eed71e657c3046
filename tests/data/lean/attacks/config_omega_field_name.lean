/- Attack: a bare name is no literal: `b` is a submission definition the interpreter runs. -/
-- refused by: (splitDisjunctions := …)
import Mathlib

def b : Bool := true

example (x : ℕ) (h : x < 3) : x ≤ 2 := by omega (splitDisjunctions := b)
