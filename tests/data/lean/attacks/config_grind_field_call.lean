/- Attack: `grind` takes the same configuration items as every `optConfig` tactic. -/
-- refused by: (splits := …)
import Mathlib

def g (n : ℕ) : ℕ := n

example (p q : Prop) (hp : p) (hq : q) : p ∧ q := by
  grind +ring (splits := g 8)
