/- Attack: `unsafeEIO`, reached through a dotted name. -/
-- refused by: unsafeEIO
import Mathlib

def leak : ℕ := (_root_.unsafeEIO (pure 3 : EIO Unit ℕ)).toOption.getD 0
