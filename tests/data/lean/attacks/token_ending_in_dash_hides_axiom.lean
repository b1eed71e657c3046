/- Attack: a notation token ending in `-`: Lean reads `⊞-` then `- …` as code, so the line a
reader takes for a comment declares an axiom. -/
-- refused by: "⊞-"
import Mathlib

notation "⊞-" => (1 : ℕ)

def one := ⊞-- 0
axiom cheat : False
