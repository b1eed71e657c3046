"""The built-in verifiers, with exactly the contract's verdict words and mappings (§2).

`compile` is built in (no bundle) for `.tex`; `lean` and `audit` are switched on by a bundle
that declares `verifies: [lean, audit]`. `submission` is the verifier behind `jig verify`: its
verdict words are the verdict's own (`green`, `red`, as in `conject.verdict.v1`), so the
registry and the verdict file never disagree; *why* a red is red is the verdict's reason, which
rides along as detail rather than as a verdict word of its own.
"""

from __future__ import annotations

from jigcli.verifiers.contract import VerifierSpec

COMPILE = VerifierSpec(
    id="compile",
    label="Compile LaTeX",
    subject="document",
    trigger="auto",
    verdicts={
        "compiled": "ok",
        "warning": "warn",
        "error": "error",
        "stale": "warn",
        "compiling": "pending",
    },
    says={
        "compiled": "No LaTeX problems · PDF up to date",
        "warning": "Compiled with warnings",
        "error": "LaTeX errors",
        "stale": "The PDF no longer matches the source",
        "compiling": "Building the PDF…",
    },
    failed={
        "unreachable": "The TeX run was stopped before it finished; try again.",
        "too_big": "The build ran past its time limit.",
        "not_set_up": "TeX isn't set up here yet: install TeX Live (latexmk and pdflatex).",
        "refused": "TeX refused to build this document.",
    },
    evidence="the TeX log beside the root document (<root>.log)",
    bundle=None,
    pitch="Builds the PDF with shell escape off and names every error and warning by its line.",
    speed="A few seconds",
    documents=(".tex",),
    glyph_rank=2,
)

LEAN = VerifierSpec(
    id="lean",
    label="Check with Lean",
    subject="statement",
    trigger="auto",
    verdicts={
        "proved": "ok",
        "conditional": "conditional",
        "sorry": "warn",
        "error": "error",
        "assumed": "ok",
        "pending": "pending",
        "refuted": "error",
    },
    says={
        "proved": "Proved",
        "conditional": "Proved modulo an open lemma",
        "sorry": "Not proved yet",
        "error": "Lean reports an error",
        "assumed": "Assumed",
        "pending": "Not checked yet",
        "refuted": "It's false",
    },
    failed={
        "unreachable": "Couldn't reach Lean; try again.",
        "too_big": "Too big for Lean to check within the time limit.",
        "not_set_up": (
            "Lean isn't set up here yet: put the paper in a Lake project that requires "
            "Mathlib, install elan, then run lake exe cache get there."
        ),
        "refused": "Lean refused to check this file.",
    },
    evidence="the Lean compiler's real output, and the declaration in the sibling .lean",
    bundle="lean-blueprint",
    pitch="Checks each theorem against a Lean 4 proof.",
    speed="A few minutes",
    documents=(".tex", ".lean"),
    glyph_rank=3,
)

AUDIT = VerifierSpec(
    id="audit",
    label="Matches the paper?",
    subject="link",
    trigger="agent",
    verdicts={
        "faithful": "ok",
        "partial": "warn",
        "mismatch": "error",
        "unstated": "error",
        "refuted": "error",
    },
    says={
        "faithful": "Matches the paper",
        "partial": "Matches in part",
        "mismatch": "Says something different",
        "unstated": "Not in the paper",
        "refuted": "It's false",
    },
    failed={
        "unreachable": "Couldn't reach the reader; try again.",
        "too_big": "Too big to read back within the time limit.",
        "not_set_up": "No reader is set up here yet: pass --reader CMD or --review.",
        "refused": "The reader refused to judge this pair.",
    },
    evidence="<stem>.audit.json: each judgement with the SHA-256 of the .tex and .lean it read",
    bundle="lean-blueprint",
    pitch="Checks that each Lean declaration says what its statement in the paper says.",
    speed="A few minutes",
    documents=(".tex", ".lean"),
    glyph_rank=1,
)

SUBMISSION = VerifierSpec(
    id="submission",
    label="Verify a submission",
    subject="statement",
    trigger="manual",
    verdicts={"green": "ok", "red": "error"},
    says={
        "green": "Green · proves the canonical statement",
        "red": "Red · does not prove the canonical statement",
    },
    failed={
        "unreachable": "The verifier was stopped before it finished; try again.",
        "too_big": "The verification ran past its wall budget.",
        "not_set_up": "Lean isn't set up here yet: install elan, then run lake exe cache get.",
        "refused": "The verifier refused this submission.",
    },
    evidence="the verdict JSON (--out) with every check's output",
    bundle=None,
    pitch="Decides whether a submitted proof or witness proves its canonical statement.",
    speed="A few minutes",
    documents=(".json",),
    glyph_rank=0,
)

BUILTINS = (COMPILE, LEAN, AUDIT, SUBMISSION)
