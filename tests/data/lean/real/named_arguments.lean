import Mathlib

/-!
# Named arguments, in terms and in tactics
-/

open Finset

theorem sum_le_sum' (s : Finset ℕ) (f g : ℕ → ℕ) (h : ∀ i ∈ s, f i ≤ g i) :
    ∑ i ∈ s, f i ≤ ∑ i ∈ s, g i :=
  sum_le_sum (f := f) (g := g) h

theorem le_trans_example {a b c : ℝ} (h₁ : a ≤ b) (h₂ : b ≤ c) : a ≤ c := by
  exact le_trans (b := b) h₁ h₂

theorem degree_bound (p : Polynomial ℝ) (hp : p ≠ 0) :
    (p.natDegree : WithBot ℕ) = p.degree := by
  have := Polynomial.degree_eq_natDegree (p := p) hp
  exact this.symm

#check Finset.sum_le_sum (f := fun i : ℕ => i)

example (n : ℕ) (h : 0 < n) : 1 ≤ n := by
  refine Nat.succ_le_of_lt ?_
  exact
    lt_of_lt_of_le (b := n) h le_rfl
