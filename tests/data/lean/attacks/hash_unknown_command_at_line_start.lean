/- Attack: a `#` command an import could add that the token table does not list; standing
where a command stands, it is refused rather than read as `#` notation. -/
-- refused by: #run_now
import Mathlib

#run_now IO.println "hello"
