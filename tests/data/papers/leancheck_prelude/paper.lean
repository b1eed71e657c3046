prelude
import JigBase

/-! The paper of ../leancheck in what Lean 4.35 can elaborate with no `Init`: each
declaration stands for one verdict of `jig lean-check`. -/

namespace Check

theorem proved : Eq Nat.zero Nat.zero := Eq.refl

theorem «open» : True := sorry

theorem conditional : True := «open»

theorem broken : True := True.intro True.intro

axiom choice_principle : False

theorem assumed : False := choice_principle

end Check
