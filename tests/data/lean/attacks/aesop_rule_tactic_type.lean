/- Attack: a rule typed as an Aesop rule tactic, handed to `aesop` without a builder (the
default builder for a tactic-typed constant is `tactic`), reaching meta code by dot notation
(`goal.admit`) without writing `Lean`. -/
-- refused by: Aesop
import Mathlib

def r : Aesop.SingleRuleTac := fun input => do
  input.goal.admit
  return (#[], none, none)

example : False := by aesop (add safe r)
