import json

import pytest

from jigcli.schemas import validate
from jigcli.verdict import REASONS, Verdict


def test_a_verdict_with_no_checks_is_never_green():
    verdict = Verdict().finish()
    assert verdict.verdict == "red" and verdict.reason == "verifier_error"


def test_a_skipped_check_keeps_the_verdict_red():
    verdict = Verdict()
    verdict.record("policy", True, "clean")
    verdict.skip("build", "no toolchain")
    assert verdict.finish().verdict == "red"


def test_green_only_when_every_check_passed():
    verdict = Verdict()
    verdict.record("policy", True, "clean")
    verdict.record("build", True, "built")
    assert verdict.finish().verdict == "green" and verdict.reason == "ok"


def test_the_earliest_reason_in_precedence_wins_whatever_the_order():
    verdict = Verdict()
    verdict.fail("disallowed_axiom", "extra axiom")
    verdict.fail("restatement", "different type")
    verdict.fail("timeout", "late")
    assert verdict.finish().reason == "restatement"
    assert verdict.detail == "different type"


def test_unknown_reason_is_a_bug():
    with pytest.raises(ValueError):
        Verdict().fail("nonsense", "")


@pytest.mark.parametrize("reason", [r for r in REASONS if r != "ok"])
def test_every_reason_yields_a_schema_valid_verdict_with_advice(reason):
    verdict = Verdict(submission="Submissions/S001/A.json", statement_id="S001")
    verdict.record("manifest", True, "valid")
    verdict.fail(reason, "detail")
    document = json.loads(verdict.finish().dumps())
    assert validate(document, "verdict") == []
    assert document["next"] and document["reason"] == reason


def test_green_verdict_is_schema_valid():
    verdict = Verdict()
    verdict.elaborated_term_hash = "sha256:" + "0" * 64
    verdict.record("build", True, "ok")
    assert validate(verdict.finish().to_json(), "verdict") == []


def test_a_write_that_fails_leaves_no_temporary_file_behind(tmp_path):
    target = tmp_path / "taken"
    target.mkdir()
    verdict = Verdict()
    verdict.fail("verifier_error", "x")
    with pytest.raises(OSError):
        verdict.write(target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
