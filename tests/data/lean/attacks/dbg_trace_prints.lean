/- Attack: `dbgTrace` prints from pure code while the interpreter evaluates it. -/
-- refused by: dbgTrace
import Mathlib

def loud (n : ℕ) : ℕ := dbgTrace "evaluated at build time" fun _ => n
