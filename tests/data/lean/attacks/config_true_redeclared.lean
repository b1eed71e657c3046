/- Attack: `true` in a configuration resolves in the current namespace first, where the file
declared its own `true`. -/
-- refused by: (decide := …)
import Mathlib

namespace Evil

def true : Bool := Bool.true

example : (2 : ℕ) + 2 = 4 := by
  simp (decide := true)

end Evil
