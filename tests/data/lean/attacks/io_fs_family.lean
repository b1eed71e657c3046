/- Attack: the file-system family, `IO.FS`, by a name that is not `IO` alone. -/
-- refused by: IO
import Mathlib

def read := IO.FS.readFile "Verify/Judge.lean"
