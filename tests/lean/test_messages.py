from pathlib import Path

from jigcli.lean.messages import (
    build_diagnostics,
    lake_version,
    lean_version,
    parse_json_messages,
    parse_print_axioms,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "lean"


def recorded() -> str:
    return (DATA / "recorded-4.33.jsonl").read_text(encoding="utf-8")


def test_json_lines_become_messages_and_stray_lines_are_kept():
    output = parse_json_messages(recorded())
    assert [m.severity for m in output.messages] == ["warning", "error", "error", "information"]
    assert output.other_lines == ["Stack overflow detected. Aborting."]


def test_positions_are_one_based_lines_and_zero_based_columns():
    unknown = parse_json_messages(recorded()).messages[1]
    assert (unknown.line, unknown.column, unknown.end_line, unknown.end_column) == (2, 11, 2, 18)
    assert unknown.where("typo.lean") == "typo.lean:2:12:"
    assert unknown.kind == "lean.unknownIdentifier._namedError"


def test_a_message_without_kind_or_end_position_is_still_read():
    old = parse_json_messages(recorded()).messages[3]
    assert old.kind == "[anonymous]" and old.end_line is None


def test_multiline_message_data_is_kept_whole():
    guard = parse_json_messages(recorded()).messages[2]
    assert guard.data.splitlines()[-1] == "did not evaluate to `true`"
    assert guard.headline() == "Expression"


def test_matching_ignores_case_because_lean_changed_it():
    message = parse_json_messages(recorded()).messages[1]
    assert message.mentions("unknown identifier") and message.mentions("UNKNOWN IDENTIFIER")


def test_print_axioms_with_and_without_axioms():
    text = "'A.b' does not depend on any axioms\n'A.c' depends on axioms: [propext, sorryAx]"
    reports = parse_print_axioms(text)
    assert [(r.decl, r.axioms) for r in reports] == [("A.b", ()), ("A.c", ("propext", "sorryAx"))]


def test_print_axioms_wrapped_over_lines_in_any_order():
    (report,) = parse_print_axioms((DATA / "print-axioms-wrapped.txt").read_text())
    assert sorted(report.axioms) == [
        "Classical.choice",
        "Quot.sound",
        "count3264._native.native_decide.ax_1_1",
        "count446._native.native_decide.ax_1_1",
        "propext",
    ]
    assert "\n" not in report.text


def test_build_log_diagnostics_carry_their_place():
    log = (
        "✖ [989/989] Building Law46 (1.4s)\n"
        "error: ./equational_theories/Law46.lean:49:6: Type mismatch: After simplification, term\n"
        "  hh\n"
        "error: Lean exited with code 1\n"
        "Some required targets logged failures:\n- Law46\n"
    )
    (diag,) = build_diagnostics(log)
    assert diag.where() == "equational_theories/Law46.lean:49:7:"
    assert diag.message.startswith("Type mismatch")


def test_version_lines():
    assert (
        lean_version("Lean (version 4.33.0, x86_64-unknown-linux-gnu, commit d8b18978, Release)")
        == "4.33.0"
    )
    assert lake_version("Lake version 5.0.0-src+d8b1897 (Lean version 4.33.0)") == (
        "5.0.0-src+d8b1897",
        "4.33.0",
    )
    assert lean_version("elan 4.2.3") is None
