import Lake
open Lake DSL

-- A Lake project with two libraries: the blueprint names declarations in both.
package «two_libs» where
  leanOptions := #[⟨`autoImplicit, false⟩]

require mathlib from git
  "https://github.com/leanprover-community/mathlib4.git" @ "v4.33.0"

@[default_target]
lean_lib «Alpha» where
  globs := #[.andSubmodules `Alpha]

lean_lib Beta where
  srcDir := "beta"
  roots := #[`Beta.Main]
