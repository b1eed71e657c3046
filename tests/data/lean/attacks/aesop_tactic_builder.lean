/- Attack: Aesop's `tactic` rule builder runs a submission-written tactic program. -/
-- refused by: tactic
import Mathlib

example (p : Prop) (hp : p) : p := by
  aesop (add safe tactic (by exact hp))
