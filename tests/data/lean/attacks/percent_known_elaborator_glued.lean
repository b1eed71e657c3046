/- Attack: `eval%` glued to its operand, hoping to pass as `eval % 3` (modulo); `eval%` is a
token of Mathlib's, so Lean reads the elaborator. -/
-- refused by: eval%
import Mathlib

def big : ℕ := eval%3
