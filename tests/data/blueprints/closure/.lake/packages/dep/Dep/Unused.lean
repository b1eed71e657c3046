-- Part of the package, imported by nothing the project builds.
theorem Dep.unused : True := trivial
