/- Attack: `simp`'s configuration is evaluated by Lean's interpreter while the file elaborates
(`declare_config_elab`, lean4 src/Lean/Elab/Tactic/Config.lean), so `f 100` runs the
submission's own `f` at build time. -/
-- refused by: (maxSteps := …)
import Mathlib

def f (n : ℕ) : ℕ := n * 1000

theorem t (n : ℕ) : n + 0 = n := by
  simp (maxSteps := f 100)
