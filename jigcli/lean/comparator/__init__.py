"""comparator, the Lean FRO's judge, as jig runs it (`leanprover/comparator` at `v4.33.0`).

- `project`: the per-submission run folder jig writes from trusted text only: the challenge,
  the solution, comparator's configuration, a Lake project around them;
- `landrun`: jig's `$COMPARATOR_LANDRUN`, which runs each build, export and second kernel
  comparator asks for in jig's bubblewrap sandbox, and nothing else;
- `run`: comparator itself, and jig's own sandboxed steps that explain a red.
"""
