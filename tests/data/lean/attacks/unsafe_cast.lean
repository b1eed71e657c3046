/- Attack: `unsafeCast` turns any value into any type, so compiled code sees a lie the kernel
never checks. -/
-- refused by: unsafeCast
import Mathlib

def lie : ℕ := unsafeCast "not a number"
