/- Attack: `Std.Internal` holds file-system and networking code under names without `IO`. -/
-- refused by: Internal
import Std

open Std.Internal in
def p := Parsec.pure 1
