/- Attack: declare a definition in a tactic's configuration namespace, so that `.evil`
in a configuration resolves to it. -/
-- refused by: Mathlib.Tactic
import Mathlib

def Mathlib.Tactic.Linarith.LinarithConfig.evil : Mathlib.Tactic.Linarith.LinarithConfig := {}
