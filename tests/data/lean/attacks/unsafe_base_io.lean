/- Attack: `unsafeBaseIO` runs IO from pure code; evaluated in a configuration it reads or
writes files at build time. The word `unsafe` alone is not written anywhere. -/
-- refused by: unsafeBaseIO
import Mathlib

def leak : ℕ := unsafeBaseIO (pure 3)
