import Lake
open Lake DSL

-- The library's default globs name only its root `Closure`, a list of imports: Lake still
-- builds every module those imports reach, and a blueprint names declarations in them.
package closure where
  leanOptions := #[⟨`autoImplicit, false⟩]

require dep from git
  "https://example.invalid/dep.git" @ "main"

@[default_target]
lean_lib Closure

-- Lake's glob macro: `Extras.+` is every submodule of Extras (there is no Extras.lean).
lean_lib Extras where
  globs := #[`Extras.+]
