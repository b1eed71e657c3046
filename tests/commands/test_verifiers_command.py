from __future__ import annotations

import json

import pytest

from jigcli.commands import verifiers


def test_json_lists_every_verifier_with_its_words_and_statuses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert verifiers.run(as_json=True) == 0
    listed = json.loads(capsys.readouterr().out)
    by_id = {entry["id"]: entry for entry in listed}
    assert {"compile", "lean", "audit", "submission"} <= set(by_id)
    for entry in listed:
        assert set(entry) == {
            "id", "label", "subject", "trigger", "verdicts", "module", "documents"
        }  # fmt: skip
    assert by_id["compile"]["verdicts"]["stale"] == "warn"
    assert by_id["compile"]["module"] is None
    assert by_id["lean"]["module"] == "lean-blueprint"
    assert by_id["lean"]["documents"] == [".tex", ".lean"]


def test_the_table_names_each_verdict_with_its_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert verifiers.run(as_json=False) == 0
    text = capsys.readouterr().out
    assert "compiled ok" in text and "conditional conditional" in text
    assert "Check with Lean" in text and "built in" in text
