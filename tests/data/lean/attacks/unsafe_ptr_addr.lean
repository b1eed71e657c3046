/- Attack: `ptrAddrUnsafe` exposes a heap address, breaking referential transparency. -/
-- refused by: ptrAddrUnsafe
import Mathlib

def addr (n : ℕ) : USize := ptrAddrUnsafe n
