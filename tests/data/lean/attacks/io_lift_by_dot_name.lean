/- Attack: an `IO` family member glued into a longer name (`toIO`, `BaseIO`). -/
-- refused by: toIO
-- refused by: BaseIO
import Mathlib

def lift (x : BaseIO ℕ) := x.toIO
