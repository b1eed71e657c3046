/- Attack: Mathlib's own `→o` (OrderHom) with no notation in the file: Lean reads `→osorry` as
`→o` then `sorry`. The pinned table knows the token, so the scan reads the same. -/
-- refused by: sorry
import Mathlib

example : ℕ →o ℕ := by
  exact ℕ →osorry
