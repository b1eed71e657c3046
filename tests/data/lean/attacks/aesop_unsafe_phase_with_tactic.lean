/- Attack: use Aesop's `unsafe` phase (which is allowed) to carry a `tactic` rule. -/
-- refused by: tactic
import Mathlib

example (p : Prop) (hp : p) : p := by
  aesop (add unsafe 50% tactic (by exact hp))
