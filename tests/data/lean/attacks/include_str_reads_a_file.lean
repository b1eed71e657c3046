/- Attack: `include_str` reads a file while the file elaborates, and evaluates its path
argument (`elabIncludeStr`, lean4 src/Lean/Elab/BuiltinTerm.lean). -/
-- refused by: include_str
import Mathlib

def secret : String := include_str "../../.jig/verdict.json"
