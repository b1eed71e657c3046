import Mathlib

/-!
# Pigeonhole, case analysis and `fin_cases`
-/

open Finset

theorem exists_ne_map_eq_of_card_lt' {α β : Type*} [DecidableEq β] (s : Finset α)
    (t : Finset β) (hc : #t < #s) (f : α → β) (hf : ∀ a ∈ s, f a ∈ t) :
    ∃ x ∈ s, ∃ y ∈ s, x ≠ y ∧ f x = f y :=
  exists_ne_map_eq_of_card_lt_of_maps_to hc hf

example (i : Fin 3) : i.val < 3 := by
  fin_cases i <;> simp

theorem two_of_five (f : Fin 5 → Fin 2) : ∃ a b, a ≠ b ∧ f a = f b := by
  by_contra! h
  have := Fintype.card_le_of_injective f (fun a b hab => by
    by_contra hne
    exact h a b hne hab)
  simp at this

example (n : ℕ) (h : n < 4) (h' : n ≠ 0) : n = 1 ∨ n = 2 ∨ n = 3 := by
  interval_cases n <;> simp
