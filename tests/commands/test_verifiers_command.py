from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.commands import verifiers
from jigcli.errors import UsageError


def test_json_lists_every_verifier_with_its_words_and_statuses(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert verifiers.run(as_json=True, root=None) == 0
    listed = json.loads(capsys.readouterr().out)["verifiers"]
    by_id = {entry["id"]: entry for entry in listed}
    assert {"compile", "lean", "audit", "submission"} <= set(by_id)
    for entry in listed:
        assert set(entry) == {
            "id", "label", "subject", "trigger", "verdicts", "module", "documents", "enabled",
            "command",
        }  # fmt: skip
    assert by_id["compile"]["verdicts"]["stale"] == "warn"
    assert by_id["compile"]["module"] is None
    assert by_id["lean"]["module"] == "lean-blueprint"
    assert by_id["lean"]["documents"] == [".tex", ".lean"]
    assert by_id["lean"]["command"] == "jig lean-check"
    assert by_id["audit"]["command"] == "jig audit"


def test_the_table_names_each_verdict_with_its_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert verifiers.run(as_json=False, root=None) == 0
    text = capsys.readouterr().out
    assert "compiled ok" in text and "conditional conditional" in text
    assert "Check with Lean" in text and "built in" in text


def _enabled(capsys: pytest.CaptureFixture[str], root: Path | None) -> dict[str, object]:
    assert verifiers.run(as_json=True, root=root) == 0
    listed = json.loads(capsys.readouterr().out)["verifiers"]
    return {entry["id"]: entry["enabled"] for entry in listed}


def test_json_says_which_verifiers_the_repos_jig_yaml_turns_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jig.yaml").write_text("modules: [lean-blueprint]\n")
    on = _enabled(capsys, tmp_path)
    assert on["compile"] is True and on["lean"] is True and on["audit"] is True
    (tmp_path / "jig.yaml").write_text("modules: []\n")
    off = _enabled(capsys, tmp_path)
    assert off["compile"] is True and off["submission"] is True and off["lean"] is False


def test_the_repo_is_found_by_walking_up_and_outside_one_enabled_is_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "repo" / "papers").mkdir(parents=True)
    (tmp_path / "repo" / "jig.yaml").write_text("modules: [lean4]\n")
    monkeypatch.chdir(tmp_path / "repo" / "papers")
    assert _enabled(capsys, None)["lean"] is True
    monkeypatch.chdir(tmp_path)
    assert set(_enabled(capsys, None).values()) == {None}


def test_a_verifier_not_switched_on_still_says_it_runs_on_request_and_how_to_switch_it_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "jig.yaml").write_text("modules: []\n")
    assert verifiers.run(as_json=False, root=tmp_path) == 0
    lines = capsys.readouterr().out.splitlines()
    lean = next(line for line in lines if line.startswith("lean "))
    audit = next(line for line in lines if line.startswith("audit "))
    compile_ = next(line for line in lines if line.startswith("compile "))
    assert "runs on request (jig lean-check)" in lean and "off" not in lean
    assert "runs on request (jig audit)" in audit
    assert "lean-blueprint" in lean and "jig.yaml" in lean
    assert compile_.rstrip().endswith("on")


def test_a_root_that_is_not_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--root"):
        verifiers.run(as_json=True, root=tmp_path / "nowhere")
