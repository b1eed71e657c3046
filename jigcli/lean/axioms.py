"""Which verdict reason an axiom in a transitive axiom set stands for: shared by `jig verify`
(the judge's axiom audit) and `jig lean-check` (a paper's `#print axioms`)."""

from __future__ import annotations

import re

# The three axioms a verified proof may rest on (PRODUCT.md §3, the axiom audit).
ALLOWED_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})

# In Lean 4.33 `native_decide`, `decide +native` and `bv_decide` add one axiom per
# computation named `<decl>._native.<tactic>.ax_<i>_<j>` (lean4 `src/Lean/Meta/Native.lean`,
# `nativeEqTrue`: `mkAuxDeclName (`_native ++ tacticName ++ `ax)`); older toolchains used these.
_NATIVE_AXIOM_RE = re.compile(r"(?:^|\.)_native\.[^.]+\.ax(?:_\d+)+$")
LEGACY_NATIVE_AXIOMS = frozenset({"Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler"})
SORRY_AXIOM = "sorryAx"


def axiom_reason(name: str) -> str | None:
    """The verdict reason an axiom in the transitive set stands for (None: allowed)."""
    if name in ALLOWED_AXIOMS:
        return None
    if name == SORRY_AXIOM:
        return "sorry"
    if name in LEGACY_NATIVE_AXIOMS or _NATIVE_AXIOM_RE.search(name):
        return "native_decide"
    return "disallowed_axiom"
