/- Attack: a leading-dot value resolves in the configuration type's namespace, where the
submission might have declared it; only Lean's own enum constructors are accepted. -/
-- refused by: (transparency := …)
import Mathlib

example (n : ℕ) : n = n := by
  simp (transparency := .evil)
