/- Attack: `unsafeIO`, the `EIO`-returning sibling. -/
-- refused by: unsafeIO
import Mathlib

def leak : ℕ := match unsafeIO (pure 3) with
  | .ok n => n
  | .error _ => 0
