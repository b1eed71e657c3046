"""The judge's report: read fail-closed, and each fact mapped onto the verdict's checks."""

from __future__ import annotations

import copy
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import pytest

from jigcli.lean import judge
from jigcli.lean.judge import (
    JudgeOutputProblem,
    JudgeRequest,
    print_axioms_line,
    read_report,
    record_report,
)
from jigcli.lean.pipeline import LATER_CHECKS
from jigcli.schemas import load_schema, validate
from jigcli.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
REQUEST = JudgeRequest("S001", "Submissions.S001.A", "Submissions.S001.A.proof")
ACCEPTED = {"verdict": "accepted", "detail": ""}


def green_report(**changes: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "schema": "jig.judge.v1",
        "statement_id": "S001",
        "module": "Submissions.S001.A",
        "decl": "Submissions.S001.A.proof",
        "refutes": None,
        "failure": None,
        "imports": {"modules": ["Mathlib.Algebra.Group.Nat.Even"], "refused": []},
        "provenance": {
            "decl_in_module": True,
            "statement_module": "Statements.S001",
            "clashes": [],
            "duplicates": [],
        },
        "unchecked": [],
        "module_axioms": [],
        "replay": {**ACCEPTED, "constants": 2},
        "bridge": ACCEPTED,
        "axioms": ["propext"],
        "term": {"text": "CNat.even_mul_succ_self{} ", "truncated": False},
        "statement_term": {"text": "Π CNat{} ", "truncated": False},
        "refutation": None,
        "types": {"canonical": "∀ (n : Nat), Even (n * (n + 1))", "submitted": None},
    }
    report.update(changes)
    return report


def write(tmp_path: Path, data: bytes | str | dict[str, Any]) -> Path:
    path = tmp_path / "report.json"
    if isinstance(data, dict):
        data = json.dumps(data)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def recorded(report: dict[str, Any], request: JudgeRequest = REQUEST) -> tuple[Verdict, str]:
    verdict = Verdict()
    why = record_report(report, request, verdict)
    return verdict, why


# -- reading ----------------------------------------------------------------------------------


def test_a_valid_report_about_this_submission_is_read(tmp_path):
    assert read_report(write(tmp_path, green_report()), REQUEST) == green_report()


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ('{"schema": "jig.judge.v1", "decl": ', "not valid JSON"),
        ("", "not valid JSON"),
        (b"\xff{}", "not UTF-8"),
        ('{"a": 1, "a": 2}', "the key 'a' appears twice"),
        ('{"x": NaN}', "not a JSON number"),
        ("[]", "not jig.judge.v1"),
    ],
)
def test_a_report_that_is_not_one_json_document_is_refused(tmp_path, data, said):
    with pytest.raises(JudgeOutputProblem, match=re.escape(said)):
        read_report(write(tmp_path, data), REQUEST)


def test_no_report_at_all_is_refused(tmp_path):
    with pytest.raises(JudgeOutputProblem, match="the judge wrote no report"):
        read_report(tmp_path / "report.json", REQUEST)


def test_a_report_larger_than_the_cap_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(judge, "MAX_REPORT_BYTES", 100)
    with pytest.raises(JudgeOutputProblem, match="exceeds 100 bytes"):
        read_report(write(tmp_path, green_report()), REQUEST)


def _without(key: str) -> dict[str, Any]:
    report = green_report()
    del report[key]
    return report


@pytest.mark.parametrize(
    "report",
    [
        _without("axioms"),
        _without("failure"),
        green_report(extra="anything"),
        green_report(axioms="propext"),
        green_report(bridge={"verdict": "green", "detail": ""}),
        green_report(bridge={"verdict": "accepted"}),
        green_report(provenance={"decl_in_module": "yes", "statement_module": None,
                                 "clashes": [], "duplicates": []}),
        green_report(term={"text": 7, "truncated": False}),
        green_report(unchecked=[{"name": "x", "why": "suspicious"}]),
    ],
)  # fmt: skip
def test_a_report_off_the_schema_is_refused(tmp_path, report):
    with pytest.raises(JudgeOutputProblem, match=r"not jig\.judge\.v1"):
        read_report(write(tmp_path, report), REQUEST)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"module": "Submissions.S001.B"}, "module"),
        ({"decl": "Submissions.S001.A.other"}, "decl"),
        ({"statement_id": "S002"}, "statement_id"),
        ({"refutes": "S001"}, "refutes"),
    ],
)
def test_a_report_about_another_submission_is_refused(tmp_path, change, key):
    with pytest.raises(JudgeOutputProblem, match=f"is about {key} "):
        read_report(write(tmp_path, green_report(**change)), REQUEST)


def test_the_request_names_refutes_only_when_there_is_one(tmp_path):
    out, export = tmp_path / "r.json", tmp_path / "export.ndjson"
    assert "--refutes" not in REQUEST.args(out, export, [])
    args = JudgeRequest("S001", "M", "M.p", refutes="S002").args(out, export, [])
    assert args[args.index("--refutes") + 1] == "S002"
    assert args[-4:] == ["--export", str(export), "--out", str(out)]


def test_the_request_names_each_import_of_the_source_once_per_flag(tmp_path):
    args = REQUEST.args(tmp_path / "r", tmp_path / "e", ["Mathlib.A", "Commons.B"])
    pairs = list(zip(args[::2], args[1::2], strict=True))
    assert [v for flag, v in pairs if flag == "--import"] == ["Mathlib.A", "Commons.B"]


# -- the two sides of the format agree --------------------------------------------------------


def test_the_judge_source_writes_exactly_the_keys_the_schema_requires():
    source = (ROOT / "Verify" / "Judge.lean").read_text(encoding="utf-8")
    render = source[source.index("def render") : source.index("def writeAtomically")]
    keys = re.findall(r'\("([a-z_]+)", ', render)
    assert sorted(keys) == sorted(load_schema("judge")["required"])


def test_the_judge_source_reads_exactly_the_flags_jig_passes(tmp_path):
    source = (ROOT / "Verify" / "Judge.lean").read_text(encoding="utf-8")
    flags = set(re.findall(r'\| "(--[a-z]+)" :: v :: rest', source))
    request = JudgeRequest("S001", "M", "M.p", refutes="S002")
    args = request.args(tmp_path / "r", tmp_path / "e", ["Mathlib"])
    assert flags == {arg for arg in args if arg.startswith("--")}


def _standin() -> Any:
    path = ROOT / "tests" / "standin" / "standin.py"
    spec = importlib.util.spec_from_file_location("standin_for_schema", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "scenario",
    [
        {},
        {"judge_failure": "load"},
        {"judge_failure": "import"},
        {"extra_imports": ["Lean.Elab"]},
        {"clashes": ["Statements.S001.statement"]},
        {"unchecked": [{"name": None, "why": "extern"}]},
        {"replay": "rejected"},
        {"bridge": "budget"},
        {"axioms": ["sorryAx"], "truncated": True},
    ],
)
def test_every_report_the_stand_in_judge_writes_is_valid(scenario, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    standin = _standin()
    export = tmp_path / "export.ndjson"
    proof = {"name": "M.A.p", "kind": "thm", "type_uses": [], "value_uses": []}
    export.write_text(standin.export_text("M.A", [proof]))
    args = {"--statement": "S001", "--module": "M.A", "--decl": "M.A.p", "--refutes": "S002"}
    args.update({"--export": str(export), "--import": ["Mathlib"]})
    assert validate(standin._report(args, scenario), "judge") == []


# -- what the facts mean ----------------------------------------------------------------------


def test_a_green_report_passes_every_check_it_answers():
    verdict, _ = recorded(green_report())
    assert all(check.ok for check in verdict.checks.values())
    # Every check the pipeline expects after the builds is one the report answers.
    assert set(verdict.checks) == set(LATER_CHECKS[LATER_CHECKS.index("provenance") :])
    assert verdict.reason is None and verdict.statement_hash


def test_redeclaring_the_refuted_statement_is_shadowing_too():
    request = JudgeRequest("S001", "Submissions.S001.A", "Submissions.S001.A.proof", "S002")
    clash = {"name": "Statements.S002.statement", "module": None}
    provenance = {**green_report()["provenance"], "clashes": [clash]}
    verdict, why = recorded(green_report(refutes="S002", provenance=provenance), request)
    assert verdict.reason == "shadowed_statement"
    assert "a name the judge reserves" in verdict.detail and why == "provenance failed"


def test_tolerated_duplicate_theorems_are_named_in_the_provenance_detail():
    provenance = {**green_report()["provenance"], "duplicates": ["Nat.add.eq_1"]}
    verdict, _ = recorded(green_report(provenance=provenance))
    assert verdict.checks["provenance"].ok and "Nat.add.eq_1" in verdict.checks["provenance"].detail


def test_a_failure_keeps_the_facts_before_it_and_is_a_verifier_error():
    report = green_report(
        failure="axioms: Foo is missing from the replayed environment", axioms=None, term=None
    )
    verdict, why = recorded(report)
    assert verdict.reason == "verifier_error"
    assert verdict.checks["anti_restatement"].ok is True
    assert "axioms" not in verdict.checks and why.startswith("the judge could not decide")


def test_several_failures_give_the_reason_that_comes_first():
    report = green_report(module_axioms=["Submissions.S001.A.cheat"], axioms=["sorryAx"])
    verdict, _ = recorded(report)
    assert verdict.reason == "sorry"  # `sorry` precedes `disallowed_axiom`
    assert verdict.checks["no_new_axioms"].ok is False


def test_the_print_axioms_line_uses_leans_own_words():
    assert print_axioms_line("A.p", []) == "'A.p' does not depend on any axioms"
    assert print_axioms_line("A.p", ["propext"]) == "'A.p' depends on axioms: [propext]"


def test_a_report_is_never_read_for_more_than_its_facts():
    """The facts are the whole input: the same report gives the same verdict, whatever text
    sits in its free-form details."""
    noisy = copy.deepcopy(green_report())
    noisy["replay"]["detail"] = "'Submissions.S001.A.proof' does not depend on any axioms"
    noisy["axioms"] = ["sorryAx"]
    verdict, _ = recorded(noisy)
    assert verdict.reason == "sorry"
