from pathlib import Path

from jigcli.lean.checkfile import (
    CheckPlan,
    axiom_reason,
    generate,
    lean_ident,
    lean_string,
    mismatch_types,
    read_results,
)
from jigcli.lean.messages import LeanMessage, parse_json_messages


def plan(tmp_path: Path, refutes: str | None = None) -> CheckPlan:
    return CheckPlan("S001", "Submissions.S001.A", "Submissions.S001.A.proof", tmp_path, refutes)


def test_the_check_file_imports_statement_submission_and_guard(tmp_path):
    text = generate(plan(tmp_path)).text
    assert text.splitlines()[:3] == [
        "import Statements.S001",
        "import Submissions.S001.A",
        "import Verify.Guard",
    ]


def test_the_bridge_resolves_the_canonical_statement_by_name_with_at(tmp_path):
    text = generate(plan(tmp_path)).text
    assert "example : «Statements».«S001».«statement» := @«Submissions».«S001».«A».«proof»" in text
    assert "set_option maxHeartbeats 2000000 in" in text


def test_every_check_has_its_own_lines(tmp_path):
    check_file = generate(plan(tmp_path))
    lines = check_file.text.splitlines()
    last = check_file.spans["anti_restatement"][1]
    assert lines[last - 1].startswith("example :")
    assert check_file.check_at(last) == "anti_restatement"
    axioms_line = check_file.spans["axioms"][0]
    assert lines[axioms_line - 1].startswith("#print axioms")
    assert "refutation" not in check_file.spans


def test_refutes_adds_an_import_a_build_target_and_the_link(tmp_path):
    the_plan = plan(tmp_path, refutes="S002")
    check_file = generate(the_plan)
    assert "import Statements.S002" in check_file.text
    assert the_plan.build_targets[-1] == "Statements.S002"
    last = check_file.spans["refutation"][1]
    line = check_file.text.splitlines()[last - 1]
    assert line == "#jig_refutation «Statements».«S001».«statement» «Statements».«S002».«statement»"


def test_names_and_strings_are_quoted_for_lean():
    assert lean_ident("A.def") == "«A».«def»"
    assert lean_string('a"b\\c') == '"a\\"b\\\\c"'


def test_axioms_map_to_reasons():
    assert axiom_reason("propext") is None
    assert axiom_reason("sorryAx") == "sorry"
    assert axiom_reason("M.proof._native.native_decide.ax_1_1") == "native_decide"
    assert axiom_reason("M.t._native.bv_decide.ax_2_7") == "native_decide"
    assert axiom_reason("Lean.ofReduceBool") == "native_decide"
    assert axiom_reason("Lean.trustCompiler") == "native_decide"
    assert axiom_reason("M.cheat") == "disallowed_axiom"
    assert axiom_reason("M.native_sum_ax") == "disallowed_axiom"


def test_errors_are_attributed_to_the_check_on_their_line(tmp_path):
    check_file = generate(plan(tmp_path))
    line = check_file.spans["anti_restatement"][1]
    out = parse_json_messages(
        f'{{"severity":"error","pos":{{"line":{line},"column":40}},"fileName":"Check.lean",'
        '"data":"Type mismatch","caption":""}'
    )
    results = read_results(check_file, out)
    assert [m.data for m in results.errors_of("anti_restatement")] == ["Type mismatch"]
    assert not results.imports_failed


def test_an_import_conflict_on_the_header_is_recognised(tmp_path):
    check_file = generate(plan(tmp_path))
    out = parse_json_messages(
        '{"severity":"error","pos":{"line":1,"column":0},"fileName":"Check.lean","data":'
        '"import Submissions.S001.A failed, environment already contains '
        '\'Statements.S001.statement\' from Statements.S001","caption":""}'
    )
    results = read_results(check_file, out)
    assert results.import_conflict is not None
    assert results.import_conflict.constant == "Statements.S001.statement"


def test_mismatch_types_reads_both_sides():
    message = LeanMessage(
        "Check.lean",
        9,
        0,
        "error",
        "Type mismatch\n  @A.proof\nhas type\n  ∀ (n : ℕ), Even n →\n    Even (n * (n + 1))\n"
        "but is expected to have type\n  Statements.S001.statement",
    )
    assert mismatch_types(message) == (
        "∀ (n : ℕ), Even n → Even (n * (n + 1))",
        "Statements.S001.statement",
    )
