import Closure.Basic
import Closure.Deep.Lemma
