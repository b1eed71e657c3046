/- Attack: grind's `on_failure` clause runs a term as meta code when grind fails. -/
-- refused by: on_failure
import Mathlib

def handler := fun _ => pure ()

example (p : Prop) (hp : p) : p := by grind on_failure handler
