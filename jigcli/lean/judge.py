"""The trusted judge (`Verify/Judge.lean`, the `jig_judge` executable) from jig's side: what it
is asked, the one JSON document it writes (`jig.judge.v1`, `jigcli/schemas/judge.schema.json`),
and what each fact in that document means for the verdict.

After the build, a Lean verdict is decided from this document alone. Lean's messages, the build
log and the judge's own stderr are diagnostics shown to the user, never inputs to a decision: a
submission controls its macros, parsers, delaborators and every string it makes Lean print, and
none of them is live in the judge, which reads the module's export (`jigcli/lean/export.py`)
as data and replays it through the kernel.

`read_report` fails closed: no file, more than `MAX_REPORT_BYTES`, not UTF-8 or not JSON, a key
twice in one object, anything the schema refuses, or a report about another submission is a
`JudgeOutputProblem`, which the pipeline turns into a red `verifier_error`, never a green.

`record_report` turns the facts into checks, the reason each failure stands for in brackets:

- `failure` set: the judge could not decide (`verifier_error`);
- `provenance`: an import outside the allowed roots, the decl not declared in the module, the
  statement not from `Statements.<id>`, a constant of the module already in the trusted
  environment (`provenance`; `shadowed_statement` when it is a statement's constant);
- `no_unchecked_code`: an `unsafe` or `partial` declaration (`unchecked_code`; `implemented_by`
  and `extern` are not in an export, and change only compiled code, which the axiom audit
  catches wherever the kernel would trust it);
- `kernel_replay`: the kernel refused a constant of the module (`kernel_rejected`);
- `anti_restatement`: the kernel refused `theorem _ : Statements.<id>.statement := <decl>`
  (`restatement`);
- `no_new_axioms`, `axioms`: an axiom declared by the module, or one outside the trusted three
  in the decl's transitive set (`sorry`, `native_decide`, `disallowed_axiom`);
- `term_hash`: the normalized term, hashed into `elaborated_term_hash` (and the statement's into
  `statement_hash`);
- `refutation`: the kernel refused `Statements.<id>.statement ↔ ¬ Statements.<refutes>.statement`
  by `Iff.rfl` (`not_a_refutation`).

A kernel check that ran out of the kernel's own budget decided nothing: `timeout`, never a
rejection. A check the report leaves `null` is not recorded here; the pipeline marks it not run,
and a verdict with a check not run is never green.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.hashing import sha256_tagged
from jigcli.jsondoc import JsonProblem, parse_json
from jigcli.lean.axioms import ALLOWED_AXIOMS, axiom_reason
from jigcli.lean.policy import ALLOWED_IMPORT_ROOTS
from jigcli.schemas import validate
from jigcli.verdict import Verdict

REPORT_SCHEMA = "judge"
# The term serializations dominate a report; the judge bounds each by 5,000,000 nodes.
MAX_REPORT_BYTES = 512 * 1024 * 1024
# The verdict's `term_hash_kind` for a Lean proof: the judge's normalized term, hashed; a
# term too large to hash whole gets "-truncated" after it.
TERM_HASH_KIND = "jig-normalized-v1"
_DETAIL_MAX = 600


@dataclass(frozen=True)
class JudgeRequest:
    """What one judge run is asked: the same four facts the report must echo back."""

    statement_id: str
    module: str
    decl: str
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

    def args(self, out: Path, export: Path, imports: Sequence[str]) -> list[str]:
        """The judge's arguments: the report goes to `out`, the module's constants are read
        from `export` (lean4export's text format), its imports are `imports` (from its
        source's header, as jig read it)."""
        argv = ["--statement", self.statement_id, "--module", self.module, "--decl", self.decl]
        if self.refutes:
            argv += ["--refutes", self.refutes]
        for module in imports:
            argv += ["--import", module]
        return [*argv, "--export", str(export), "--out", str(out)]


class JudgeOutputProblem(Exception):
    """The judge's report cannot be used; `str()` is one sentence saying why."""


def read_report(path: Path, request: JudgeRequest) -> dict[str, Any]:
    """The report at `path`, valid against `jig.judge.v1` and about `request`'s submission."""
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_REPORT_BYTES + 1)
    except FileNotFoundError:
        raise JudgeOutputProblem("the judge wrote no report") from None
    except OSError as exc:
        raise JudgeOutputProblem(f"the judge's report cannot be read: {exc}") from exc
    if len(raw) > MAX_REPORT_BYTES:
        raise JudgeOutputProblem(f"the judge's report exceeds {MAX_REPORT_BYTES} bytes")
    try:
        document = parse_json(raw, "the judge's report", unique_keys=True)
    except JsonProblem as problem:
        raise JudgeOutputProblem(str(problem)) from problem
    errors = validate(document, REPORT_SCHEMA)
    if errors:
        raise JudgeOutputProblem(f"the judge's report is not jig.judge.v1: {errors[0]}")
    asked = {
        "statement_id": request.statement_id,
        "module": request.module,
        "decl": request.decl,
        "refutes": request.refutes,
    }
    for key, value in asked.items():
        if document[key] != value:
            raise JudgeOutputProblem(
                f"the judge's report is about {key} {document[key]!r}, not {value!r}"
            )
    report: dict[str, Any] = document
    return report


# -- what the facts mean ----------------------------------------------------------------------


def record_report(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> str:
    """Record every check the report answers; return why the others did not run."""
    failure = report["failure"]
    stopped = _record_checks(report, request, verdict)
    if failure is not None:
        detail = f"the judge could not decide: {failure}"
        verdict.record("judge", False, _short(detail), failure)
        verdict.fail("verifier_error", _short(detail))
        return detail
    return stopped or "the judge did not answer it"


def _record_checks(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> str | None:
    """The checks in the judge's order; the reason the first refusal stopped the rest."""
    types = report["types"] or {}
    if types.get("canonical"):
        verdict.canonical_statement = types["canonical"]
    if not _provenance(report, request, verdict):
        return "provenance failed"
    if not _unchecked(report, request, verdict):
        return f"{request.module} declares code the kernel does not check"
    _declared_axioms(report, request, verdict)
    if not _replay(report, request, verdict):
        return "the kernel replay did not accept the module"
    _bridge(report, request, verdict, types)
    _axioms(report, request, verdict)
    _terms(report, verdict)
    if request.refutes:
        _refutation(report, request, verdict)
    return None


def _provenance(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> bool:
    imports, facts = report["imports"], report["provenance"]
    if imports is not None and imports["refused"]:
        detail = (
            f"{request.module} imports {', '.join(imports['refused'])}, outside the allowed "
            f"roots ({', '.join(ALLOWED_IMPORT_ROOTS)}); the judge imported nothing"
        )
        verdict.record("provenance", False, _short(detail))
        verdict.fail("provenance", _short(detail))
        return False
    if facts is None:
        return False
    problems = _provenance_problems(facts, request)
    if problems:
        detail = "; ".join(text for _, text in problems)
        verdict.record("provenance", False, _short(detail))
        for reason, text in problems:
            verdict.fail(reason, _short(text))
        return False
    detail = (
        f"{request.statement_const} from {request.statement_module}; "
        f"{request.decl} from {request.module}"
    )
    if facts["duplicates"]:
        same = ", ".join(facts["duplicates"])
        detail += f" (identical to trusted theorems, not replayed: {same})"
    verdict.record("provenance", True, _short(detail))
    return True


def _provenance_problems(facts: dict[str, Any], request: JudgeRequest) -> list[tuple[str, str]]:
    problems = []
    found = facts["statement_module"]
    if found != request.statement_module:
        problems.append(
            (
                "provenance",
                f"{request.statement_const} is declared in {found or 'no imported module'}, "
                f"not in {request.statement_module}",
            )
        )
    if not facts["decl_in_module"]:
        problems.append(("provenance", f"{request.decl} is not declared in {request.module}"))
    statements = {request.statement_const, request.refutes_const}
    for clash in facts["clashes"]:
        origin = clash["module"]
        shadows = clash["name"] in statements or (origin or "").startswith("Statements.")
        where = f"already declared in {origin}" if origin else "a name the judge reserves"
        problems.append(
            (
                "shadowed_statement" if shadows else "provenance",
                f"{request.module} redeclares '{clash['name']}', {where}",
            )
        )
    return problems


def _unchecked(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> bool:
    found = report["unchecked"]
    if found is None:
        return False
    if not found:
        verdict.record("no_unchecked_code", True, "no unsafe or partial code")
        return True
    said = [
        f"{item['name']} is {item['why']}" if item["name"] else f"it uses {item['why']}"
        for item in found
    ]
    detail = f"{request.module} declares code the kernel does not check: {'; '.join(said)}"
    verdict.record("no_unchecked_code", False, _short(detail))
    verdict.fail("unchecked_code", _short(detail))
    return False


def _declared_axioms(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> None:
    declared = report["module_axioms"]
    if declared is None:
        return
    if not declared:
        verdict.record("no_new_axioms", True, f"{request.module} declares no axiom")
        return
    detail = f"{request.module} declares axioms: {', '.join(declared)}"
    verdict.record("no_new_axioms", False, _short(detail))
    for reason in sorted({axiom_reason(name) or "disallowed_axiom" for name in declared}):
        verdict.fail(reason, _short(detail))


def _replay(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> bool:
    replay = report["replay"]
    if replay is None:
        return False
    count = replay.get("constants")
    constants = f"{count} constants" if count is not None else "the constants"
    claim = f"the replay of {constants} of {request.module} into the statement's environment"
    _kernel_check(verdict, "kernel_replay", replay, "kernel_rejected", claim)
    return bool(replay["verdict"] == "accepted")


def _bridge(
    report: dict[str, Any], request: JudgeRequest, verdict: Verdict, types: dict[str, Any]
) -> None:
    bridge = report["bridge"]
    if bridge is not None and bridge["verdict"] == "rejected":
        verdict.submitted_type = types.get("submitted")
    claim = f"theorem : {request.statement_const} := @{request.decl}"
    _kernel_check(verdict, "anti_restatement", bridge, "restatement", claim)


def _kernel_check(
    verdict: Verdict, check: str, outcome: dict[str, Any] | None, reason: str, claim: str
) -> None:
    """Record a claim the kernel was asked to accept: accepted, refused (`reason`), or not
    decided because the kernel's budget ran out (`timeout`)."""
    if outcome is None:
        return
    if outcome["verdict"] == "accepted":
        verdict.record(check, True, f"{claim}, checked by the kernel")
        return
    said = outcome["detail"]
    if outcome["verdict"] == "budget":
        detail = (
            f"step={check}: the kernel ran out of its budget before deciding anything "
            f"({_short(said)}); this is not a refusal"
        )
        verdict.record(check, False, _short(detail), said or None)
        verdict.fail("timeout", _short(detail))
        return
    detail = f"the kernel refused {claim}: {said}" if said else f"the kernel refused {claim}"
    verdict.record(check, False, _short(detail), said or None)
    verdict.fail(reason, _short(detail))


def _axioms(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> None:
    axioms = report["axioms"]
    if axioms is None:
        return
    verdict.axioms = sorted(axioms)
    verdict.print_axioms = print_axioms_line(request.decl, verdict.axioms)
    bad = {name: reason for name in axioms if (reason := axiom_reason(name))}
    if not bad:
        verdict.record("axioms", True, f"{verdict.axioms} ⊆ {sorted(ALLOWED_AXIOMS)}")
        return
    detail = f"axioms outside the trusted base: {', '.join(sorted(bad))}"
    verdict.record("axioms", False, _short(detail), verdict.print_axioms)
    for reason in sorted(set(bad.values())):
        verdict.fail(reason, _short(detail))


def print_axioms_line(decl: str, axioms: list[str]) -> str:
    """The judge's axiom set in the words of Lean's `#print axioms` (`src/Lean/Elab/Print.lean`),
    kept in the verdict's `print_axioms` for readers used to it."""
    if not axioms:
        return f"'{decl}' does not depend on any axioms"
    return f"'{decl}' depends on axioms: [{', '.join(axioms)}]"


def _terms(report: dict[str, Any], verdict: Verdict) -> None:
    term, statement_term = report["term"], report["statement_term"]
    if term is not None:
        verdict.elaborated_term_hash = sha256_tagged(term["text"])
        truncated = term["truncated"]
        verdict.term_hash_kind = TERM_HASH_KIND + ("-truncated" if truncated else "")
        size = len(term["text"].encode("utf-8"))
        note = " (truncated)" if truncated else ""
        verdict.record("term_hash", True, f"{size} bytes of normalized term{note}")
    if statement_term is not None:
        verdict.statement_hash = sha256_tagged(statement_term["text"])


def _refutation(report: dict[str, Any], request: JudgeRequest, verdict: Verdict) -> None:
    claim = f"{request.statement_const} ↔ ¬ {request.refutes_const} by Iff.rfl"
    _kernel_check(verdict, "refutation", report["refutation"], "not_a_refutation", claim)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"
