/- Attack: a configuration inside an attribute (`@[simps (config := …)]`), evaluated by the
interpreter when the attribute runs. -/
-- refused by: (config := …)
import Mathlib

def cfg : ℕ := 1

structure P where
  x : ℕ

@[simps (config := { fullyApplied := cfg == 1 })]
def p : P := ⟨1⟩
