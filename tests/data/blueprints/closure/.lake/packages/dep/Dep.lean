import Dep.Algebra
