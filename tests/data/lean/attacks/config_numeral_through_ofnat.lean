/- Attack: a numeral in a configuration elaborates through `OfNat`; the file declares a
higher-priority instance, so evaluating the configuration runs the file's code. -/
-- refused by: (maxSteps := …)
import Mathlib

def payload : ℕ := 100000

instance (priority := high) evil (n : ℕ) : OfNat ℕ n := ⟨payload⟩

example : (2 : ℕ) + 2 = 4 := by
  simp (maxSteps := 5)
