/- Attack: a token ending in `/` placed so that `run_cmd` looks commented out. -/
-- refused by: "q/"
-- refused by: run_cmd
import Mathlib

local notation "q/" => (2 : ℕ)

def two := q/-
run_cmd Lean.logInfo "ran"
-/ 2
