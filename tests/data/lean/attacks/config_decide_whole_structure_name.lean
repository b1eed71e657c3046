/- Attack: a whole `decide` configuration given by name; evaluating it runs whatever the
definition computes. -/
-- refused by: (config := …)
import Mathlib

def cfg : Lean.Parser.Tactic.DecideConfig := {}

example : 2 ∣ 4 := by decide (config := cfg)
