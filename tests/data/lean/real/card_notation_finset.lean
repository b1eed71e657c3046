/-
Copyright (c) 2026 A. Solver. All rights reserved.
Released under Apache 2.0 license as described in the file LICENSE.
-/
import Mathlib

/-!
# A counting lemma with `open Finset` notation

`#s` is `Finset.card s` and `∑ x ∈ s, f x` the sum over `s`; both come with `open Finset`.
-/

open Finset

namespace CardNotation

variable {α : Type*} [DecidableEq α]

theorem card_union_add_card_inter' (s t : Finset α) :
    #(s ∪ t) + #(s ∩ t) = #s + #t := by
  exact card_union_add_card_inter s t

theorem card_filter_le_card (s : Finset ℕ) (p : ℕ → Prop) [DecidablePred p] :
    #(s.filter p) ≤ #s := card_filter_le s p

theorem sum_const_card (S : Finset ℕ) (c : ℕ) : ∑ _x ∈ S, c = #S * c := by
  rw [sum_const, smul_eq_mul]

example (hf : Set.Finite {n : ℕ | n < 3}) : #hf.toFinset = 3 := by
  simp [Set.Finite.toFinset_setOf]
  rfl

theorem two_le_card (s : Finset ℕ) (h₁ : 0 ∈ s) (h₂ : 1 ∈ s) : 2 ≤ #s := by
  have : ({0, 1} : Finset ℕ) ⊆ s := by
    intro x hx
    simp only [mem_insert, mem_singleton] at hx
    rcases hx with rfl | rfl <;> assumption
  simpa using card_le_card this

end CardNotation
