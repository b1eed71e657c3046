"""The one generated check file per submission, and reading Lean's answers to it.

`generate(plan)` writes a Lean file that imports the submission module, `Statements.<id>`
(and `Statements.<refutes>`) and `Verify.Guard`, then runs one command per check. Each
command fails or reports on its own, so one `lean --json` run answers all of them:

- `#jig_provenance` (twice): which module declared the canonical statement and the decl;
- `#jig_module_axioms`: every `axiom` the submitted module declares;
- `#jig_types`: the submitted type and the canonical statement, pretty-printed;
- `example : Statements.<id>.statement := @<decl>`: the anti-restatement bridge, under a
  raised but finite elaboration budget;
- `#print axioms <decl>`: the transitive axiom set, in Lean's own words;
- `#jig_term` (twice): the normalized term serialization of the decl and of the statement,
  written to a file whose SHA-256 is the `elaborated_term_hash` / `statement_hash`;
- `#jig_refutation` (only with `refutes`): `Statements.<id>.statement ↔ ¬ Statements.<refutes>
  .statement` by `Iff.rfl`, at shared universe parameters.

The `#jig_*` commands live in `Verify/Guard.lean` and report `JIG:<check>:<json>` info
messages; the plain Lean commands are attributed to their check by line number.
`read_results` turns the messages back into one `CheckResults`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from jigcli.lean.messages import (
    AxiomReport,
    ImportConflict,
    LeanMessage,
    LeanOutput,
    Marker,
    axioms_of,
    budget_exhausted,
    import_conflict,
    marker,
)
from jigcli.verdict import ALLOWED_AXIOMS

# The bridge gets ten times Lean's default heartbeats: the default is a limit on patience,
# not a fact about the submission. The wall budget is the real bound.
BRIDGE_HEARTBEATS = 2_000_000
BRIDGE_REC_DEPTH = 8000

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


def lean_ident(name: str) -> str:
    """A dotted name as a Lean identifier, every component in «» so no keyword can break it."""
    return ".".join(f"«{part}»" for part in name.split("."))


def lean_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@dataclass(frozen=True)
class CheckPlan:
    statement_id: str
    module: str
    decl: str
    work_dir: Path
    refutes: str | None = None

    @property
    def statement_module(self) -> str:
        return f"Statements.{self.statement_id}"

    @property
    def statement_const(self) -> str:
        return f"{self.statement_module}.statement"

    @property
    def refutes_const(self) -> str | None:
        return f"Statements.{self.refutes}.statement" if self.refutes else None

    @property
    def term_file(self) -> Path:
        return self.work_dir / "term.txt"

    @property
    def statement_term_file(self) -> Path:
        return self.work_dir / "statement-term.txt"

    @property
    def check_file(self) -> Path:
        return self.work_dir / "Check.lean"

    @property
    def build_targets(self) -> list[str]:
        targets = [self.module, self.statement_module, "Verify.Guard"]
        if self.refutes and f"Statements.{self.refutes}" not in targets:
            targets.append(f"Statements.{self.refutes}")
        return targets


@dataclass
class CheckFile:
    plan: CheckPlan
    text: str
    spans: dict[str, tuple[int, int]]  # check → first and last line (1-based, inclusive)

    def check_at(self, line: int) -> str | None:
        for check, (first, last) in self.spans.items():
            if first <= line <= last:
                return check
        return None

    def write(self) -> Path:
        path = self.plan.check_file
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text, encoding="utf-8")
        return path


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.spans: dict[str, tuple[int, int]] = {}

    def add(self, check: str | None, *lines: str) -> None:
        first = len(self.lines) + 1
        self.lines.extend(lines)
        if check is not None:
            self.spans[check] = (first, len(self.lines))


def generate(plan: CheckPlan) -> CheckFile:
    w = _Writer()
    imports = [plan.statement_module, plan.module, "Verify.Guard"]
    if plan.refutes and f"Statements.{plan.refutes}" not in imports:
        imports.append(f"Statements.{plan.refutes}")
    w.add("imports", *(f"import {m}" for m in imports))
    decl, stmt = lean_ident(plan.decl), lean_ident(plan.statement_const)
    w.add(
        None,
        "",
        f"/-! Generated by jig for {plan.decl} ({plan.statement_id}). Each command below",
        "    answers one check on its own; do not edit, it is rewritten on every run. -/",
        "",
    )
    w.add(
        "provenance_statement",
        f"#jig_provenance {stmt} {lean_string(plan.statement_module)}",
    )
    w.add("provenance_decl", f"#jig_provenance {decl} {lean_string(plan.module)}")
    w.add("module_axioms", f"#jig_module_axioms {lean_string(plan.module)}")
    w.add("types", f"#jig_types {decl} {stmt}")
    w.add(
        "anti_restatement",
        f"set_option maxHeartbeats {BRIDGE_HEARTBEATS} in",
        f"set_option maxRecDepth {BRIDGE_REC_DEPTH} in",
        f"example : {stmt} := @{decl}",
    )
    w.add("axioms", f"#print axioms {decl}")
    w.add(
        "term_hash",
        f"#jig_term {decl} {lean_string(plan.module)} {lean_string(str(plan.term_file))}",
    )
    w.add(
        "statement_hash",
        f"#jig_term {stmt} {lean_string(plan.statement_module)} "
        f"{lean_string(str(plan.statement_term_file))}",
    )
    if plan.refutes_const:
        w.add(
            "refutation",
            f"set_option maxHeartbeats {BRIDGE_HEARTBEATS} in",
            f"#jig_refutation {stmt} {lean_ident(plan.refutes_const)}",
        )
    return CheckFile(plan, "\n".join(w.lines) + "\n", w.spans)


# -- reading the answers ----------------------------------------------------------------------


@dataclass
class CheckResults:
    import_conflict: ImportConflict | None = None
    import_errors: list[LeanMessage] = field(default_factory=list)
    provenance_statement: Marker | None = None
    provenance_decl: Marker | None = None
    module_axioms: Marker | None = None
    types: Marker | None = None
    axiom_report: AxiomReport | None = None
    term: Marker | None = None
    statement_term: Marker | None = None
    refutation: Marker | None = None
    errors: dict[str, list[LeanMessage]] = field(default_factory=dict)

    @property
    def imports_failed(self) -> bool:
        return self.import_conflict is not None or bool(self.import_errors)

    def errors_of(self, check: str) -> list[LeanMessage]:
        return self.errors.get(check, [])

    def budget_exhausted(self, check: str) -> LeanMessage | None:
        """The error showing `check` ran out of elaboration budget, if one did."""
        for message in self.errors_of(check):
            if message.kind == "runtime.maxHeartbeats" or budget_exhausted(message.data):
                return message
        return None


def read_results(check_file: CheckFile, output: LeanOutput) -> CheckResults:
    plan = check_file.plan
    results = CheckResults()
    for message in output.errors:
        check = check_file.check_at(message.line) or "other"
        if check == "imports":
            conflict = import_conflict(message.data)
            if conflict is not None and results.import_conflict is None:
                results.import_conflict = conflict
            else:
                results.import_errors.append(message)
            continue
        results.errors.setdefault(check, []).append(message)
    results.provenance_statement = marker(output, "provenance", decl=plan.statement_const)
    results.provenance_decl = marker(output, "provenance", decl=plan.decl)
    results.module_axioms = marker(output, "module_axioms", module=plan.module)
    results.types = marker(output, "types")
    results.axiom_report = axioms_of(output, plan.decl)
    results.term = marker(output, "term", decl=plan.decl)
    results.statement_term = marker(output, "term", decl=plan.statement_const)
    if plan.refutes_const:
        results.refutation = marker(output, "refutation")
    return results


_MISMATCH_RE = re.compile(
    r"has type\s*\n(?P<submitted>.*?)\n\s*but is expected to have type\s*\n(?P<expected>.*)",
    re.IGNORECASE | re.DOTALL,
)


def mismatch_types(message: LeanMessage) -> tuple[str, str] | None:
    """(submitted, expected) out of Lean's "Type mismatch … has type … but is expected to
    have type …" message, whitespace collapsed; None for any other error."""
    match = _MISMATCH_RE.search(message.data)
    if match is None:
        return None
    return (" ".join(match.group("submitted").split()), " ".join(match.group("expected").split()))
