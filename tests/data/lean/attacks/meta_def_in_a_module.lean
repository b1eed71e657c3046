/- Attack: with the module system accepted, `meta` marks a definition for compile-time
evaluation and `meta import` brings code in for it. -/
-- refused by: meta
module

public import Mathlib
meta import Mathlib.Tactic.Ring

public section

meta def budget : ℕ := 100

end
