import Mathlib

/-! Notations whose tokens hold `#`, `%` or `'`, Mathlib's term elaborators, attributes and
options honest authors use, and conv's `tactic =>`. -/

set_option quotPrecheck false

namespace NotationUse

/-- The derivative-like difference. -/
def diff (f : ℕ → ℕ) (n : ℕ) : ℕ := f (n + 1) - f n

local notation:max "df " D:max "% " h:max => diff D h
local notation:max "‖" x "‖#" => Nat.succ x
local notation:max "∂'" f => diff f
local notation:max x "].{" y "}" => x + y

example : df id% 3 = 1 := rfl
example : ‖(2 : ℕ)‖# = 3 := rfl
example : (∂' id) 4 = 1 := rfl
example : (1].{2}) = 3 := rfl

@[to_dual existing]
theorem le_refl' (n : ℕ) : n ≤ n := le_refl n

@[simp, stacks 09HQ]
theorem succ_pos' (n : ℕ) : 0 < n + 1 := Nat.succ_pos n

@[arith_mult]
theorem isMultiplicative_one : ArithmeticFunction.IsMultiplicative (1 : ArithmeticFunction ℕ) :=
  ArithmeticFunction.isMultiplicative_one

/-- A semigroup on ℕ, built with `fast_instance%`. -/
@[instance_reducible]
def natAddSemigroup : AddSemigroup ℕ := fast_instance% inferInstance

@[implicit_reducible]
def natOne : One ℕ := ⟨1⟩

example (a b : ℕ) (h : a = b) : b + 0 = a := by
  conv =>
    lhs
    tactic => simp
  exact h.symm

theorem mul_one_dsimp (n : ℕ) : n * 1 = n := by
  have := (dsimp% (Nat.mul_one n))
  exact this

initialize_simps_projections AddSemigroup (add → add')

end NotationUse
