/- Attack: the process API reached by its last components after an `open`. -/
-- refused by: IO
-- refused by: Process
import Mathlib

open IO in
def run := Process.output { cmd := "id" }
