/- Attack: the process API reached by its last components after an `open`. -/
-- refused by: IO
import Mathlib

open IO in
def run := Process.output { cmd := "id" }
