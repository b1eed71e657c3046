/- Attack: a `name%` elaborator missing from the token table, written as elaborators are
(a space after `%`): refused, since the table cannot be known complete. -/
-- refused by: run_io%
import Mathlib

def leak : ℕ := run_io% (pure 3)
