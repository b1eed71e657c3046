/- Attack: a notation token ending in `/` makes Lean read `x/- … -/` as the token, `-`, and
then code, where a reader without the token sees a block comment hiding `#eval`. -/
-- refused by: "x/"
-- refused by: #eval
import Mathlib

notation "x/" => (0 : ℕ)

example : ℕ := x/- 1
#eval IO.FS.writeFile "pwned" "1"
-/
