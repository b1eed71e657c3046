/- Attack: a leading-dot name resolves in the namespace of the expected type, which the file
extends with a name of the same spelling. -/
-- refused by: (transparency := …)
import Mathlib

def Linarith.reducible : ℕ := 0

namespace Other
def reducible : ℕ := 1
end Other

example : (2 : ℕ) + 2 = 4 := by
  simp (transparency := .reducible)
