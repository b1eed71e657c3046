/-
Copyright (c) 2026 B. Maintainer. All rights reserved.
Released under Apache 2.0 license as described in the file LICENSE.
-/
import Mathlib.Data.Finset.Card
import Mathlib.Algebra.Order.Ring.Lemmas

/-!
# Maintenance as Mathlib writes it

Deprecated aliases, a deprecated module, `#s` opening a continuation line, named arguments on
continuation lines and in patterns, an `export`, a `@[csimp]` equation, adaptation notes and
names that need guillemets.
-/

deprecated_module (since := "2026-01-15")

open Finset

namespace Maintenance

variable {α : Type*} [DecidableEq α]

theorem card_le_of_sub {s t : Finset α} (h : s ⊆ t) : #s ≤ #t := card_le_card h

@[deprecated (since := "2026-02-01")] alias card_mono := card_le_of_sub

@[deprecated card_le_of_sub (since := "2026-02-01")]
theorem card_mono' {s t : Finset α} (h : s ⊆ t) : #s ≤ #t := card_le_of_sub h

theorem card_sdiff_add {s t : Finset α} (h : s ⊆ t) :
    #(t \ s) + #s = #t := by
  rw [card_sdiff_add_card_eq_card h]

theorem card_inter_le (s t : Finset α) :
    #(s ∩ t)
      ≤ #s := card_le_card inter_subset_left

theorem pow_le_pow_of_le {a b : ℕ} (n : ℕ) (h : a ≤ b) : a ^ n ≤ b ^ n :=
  Nat.pow_le_pow_left h n

theorem named_on_continuation {a b : ℕ} (m : ℕ) (h : a ≤ b) : a ^ m ≤ b ^ m :=
  pow_le_pow_of_le
    (n := m) h

theorem le_succ_of_le' {n m : ℕ} (h : n ≤ m) : n ≤ m + 1 := by
  cases h with
  | refl => exact Nat.le_succ n
  | step (m := k) hk => exact Nat.le_succ_of_le (Nat.le_succ_of_le hk)

example (p : ℕ) (hp : p.Prime) (h2 : p ≠ 2) : Odd p := by
  obtain ⟨k, hk⟩ | h := hp.eq_two_or_odd'.symm.imp id id
  · exact ⟨k, hk⟩
  · exact absurd h h2

theorem odd_of_prime (p : ℕ) (hp : p.Prime) (h2 : p ≠ 2) : Odd p :=
  hp.odd_of_ne_two (p := p)
    h2

/-- Counting one more time. -/
def count (n : ℕ) : ℕ := n

/-- A faster `count`, proved equal to it. -/
def countFast (n : ℕ) : ℕ := n + 0

@[csimp] theorem count_eq_countFast : @count = @countFast := by
  funext n
  simp [count, countFast]

#adaptation_note /-- `omega` needed a hint here before the toolchain bump. -/

theorem «end» : True := trivial

theorem «exists» (n : ℕ) : ∃ m, m = n := ⟨n, rfl⟩

/-- A file system of the puzzle, not of the computer. -/
structure FS where
  files : ℕ
  folders : ℕ

/-- A process of the puzzle. -/
structure Process where
  steps : List ℕ

theorem Process.steps_length (p : Process) : p.steps.length = p.steps.length := rfl

theorem FS.files_le (f : FS) (h : f.files ≤ f.folders) : f.files ≤ f.folders := h

end Maintenance

namespace Maintenance.Export

theorem key : 1 + 1 = 2 := rfl

end Maintenance.Export

export Maintenance.Export (key)

example : 1 + 1 = 2 := key
