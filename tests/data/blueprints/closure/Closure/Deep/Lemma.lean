module

/- A module-system header: `public import`, a comment between the imports. -/
public import Closure.Deep.Core -- the core facts
import all Closure.Basic

namespace Closure

theorem deep_lemma (n : Nat) : n + 0 = n := core_fact n

end Closure
