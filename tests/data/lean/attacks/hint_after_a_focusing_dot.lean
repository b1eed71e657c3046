/- Attack: the goal-admitting `hint` tactic after a focusing dot, where a name would never
stand. -/
-- refused by: hint
import Mathlib

example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by
  constructor
  · hint
  · exact hq
