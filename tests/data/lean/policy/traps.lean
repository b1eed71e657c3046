/-
Copyright (c) 2025. Every forbidden word in this file is inside a comment, a string, a char
literal, a «name» that needs its escape, a name literal or a longer identifier, so the policy
finds nothing:
sorry, axiom, native_decide, unsafe, partial, #eval, macro, set_option debug.skipKernelTC.
/- a nested comment: sorry /- and a deeper one: axiom -/ still nested: admit -/
-/
import Mathlib.Algebra.BigOperators.Group.Finset.Basic
import Mathlib.Tactic.Ring
import Batteries.Data.List.Basic
import Commons.Basic

/-!
# Traps
A module doc mentioning `native_decide` and `decide +native`.
-/

open Finset

namespace Traps

/-- A docstring: this lemma avoids `sorry` and `axiom` on purpose. -/
theorem partial_sum_nonneg (f : ℕ → ℕ) (n : ℕ) : 0 ≤ ∑ i ∈ range n, f i := by
  -- sorry: not here
  positivity

def messages : List String :=
  ["sorry", "escaped \" axiom \" quote", "backslash \\", r"raw unsafe", r#"hash "quoted" sorry"#,
   r##"two "# hashes sorry"##, "gap \
    native_decide", s!"braces hold code: {1 + 1} and {partial_sum}"]

def quote : Char := '"'
def newline : Char := '\n'

theorem «sorry, but true» : True := trivial

theorem sorry_free (h' : 1 = 1) : h'.symm = h'.symm := rfl

theorem uses_names : True := by
  have h'' := Nat.sorry_lemma_does_not_exist_but_is_just_a_name
  trivial

example := [`sorry, `axiom, `native_decide]

example : 2 + 2 = 4 := by decide

example : Decidable.decide (1 = 1) = true := rfl

example : (10 : ℕ) ∣ 100 := by decide (config := { kernel := true })

example (s : Set ℕ) (f : ℕ → ℕ) : f '' s = f '' s := rfl

example (f : ℕ → ℝ) : ∑' i, f i = ∑' i, f i := rfl

set_option maxHeartbeats 400000 in
theorem heavy : 1 + 1 = 2 := by norm_num

opaque hidden : ℕ

@[simp, norm_cast] theorem cast_ok (n : ℕ) : ((n : ℤ) : ℤ) = n := rfl

attribute [local simp] Nat.succ_le_iff

end Traps
