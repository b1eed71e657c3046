/- Attack: file IO through `System.FilePath`, a name with neither `IO` nor `BaseIO` in it. -/
-- refused by: System
import Mathlib

def probe := System.FilePath.pathExists "build"
