/- Attack: file IO through `System.FilePath`, a name with neither `IO` nor `BaseIO` in it. -/
-- refused by: System
-- refused by: FilePath
import Mathlib

def probe := System.FilePath.pathExists "build"
