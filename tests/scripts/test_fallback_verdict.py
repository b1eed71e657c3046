import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.schemas import validate

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "timeout_verdict.py"


def fallback(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_writes_a_schema_valid_red_timeout_verdict_when_none_exists(tmp_path):
    target = tmp_path / "verdicts" / "verdict.json"
    done = fallback(tmp_path, str(target), "Submissions/S001/A.json", "S001")
    assert done.returncode == 0, done.stderr
    verdict = json.loads(target.read_text())
    assert validate(verdict, "verdict") == []
    assert (verdict["verdict"], verdict["reason"]) == ("red", "timeout")
    assert verdict["submission"] == "Submissions/S001/A.json"
    assert verdict["statement_id"] == "S001"
    assert "before jig wrote a verdict" in verdict["detail"]


def test_leaves_an_existing_verdict_alone(tmp_path):
    target = tmp_path / "verdict.json"
    target.write_text('{"verdict": "green", "reason": "ok"}\n')
    before = target.read_bytes()
    assert fallback(tmp_path, str(target), "Submissions/S001/A.json").returncode == 0
    assert target.read_bytes() == before


@pytest.mark.parametrize("cut_short", ["", '{"verdict": "gr'])
def test_a_verdict_cut_short_counts_as_none(tmp_path, cut_short):
    target = tmp_path / "verdict.json"
    target.write_text(cut_short)
    fallback(tmp_path, str(target), "Submissions/S001/A.json")
    assert json.loads(target.read_text())["reason"] == "timeout"


def test_the_statement_id_is_optional(tmp_path):
    target = tmp_path / "verdict.json"
    assert fallback(tmp_path, str(target), "Submissions/S001/A.json").returncode == 0
    assert json.loads(target.read_text())["statement_id"] is None


def test_a_certificate_submission_gets_a_certificate_verdict(tmp_path):
    manifest = tmp_path / "Certificates/C001/submissions/w.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"kind": "certificate", "statement_id": "C001"}))
    target = tmp_path / "verdict.json"
    fallback(tmp_path, str(target), "Certificates/C001/submissions/w.json", "C001")
    verdict = json.loads(target.read_text())
    assert verdict["kind"] == "certificate" and validate(verdict, "verdict") == []


def test_works_before_jig_is_installed(tmp_path):
    # The job may die before `pip install -e .`: the script finds jig in its own checkout.
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONNOUSERSITE": "1"}
    target = tmp_path / "verdict.json"
    done = subprocess.run(
        [sys.executable, "-S", str(SCRIPT), str(target), "Submissions/S001/A.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(target.read_text())["reason"] == "timeout"


def test_wrong_arguments_print_usage_and_exit_2(tmp_path):
    done = fallback(tmp_path, "only-one")
    assert done.returncode == 2 and "usage:" in done.stderr
