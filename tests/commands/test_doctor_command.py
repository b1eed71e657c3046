import json
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def doctor(*args, cwd=REPO, env=None):
    return subprocess.run(
        [sys.executable, "-m", "jigcli", "doctor", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_doctor_json_reports_every_section_and_is_one_document():
    result = doctor("--json")
    report = json.loads(result.stdout)
    assert set(report) >= {"lean", "sandbox", "tex", "ready", "problems"}
    assert report["lean"]["pins"]["lean_toolchain"] == "leanprover/lean4:v4.33.0"
    assert result.returncode == (0 if report["ready"] else 1)
    routes = {row["name"] for row in report["sandbox"]["routes"]}
    assert "bubblewrap" in routes


def test_doctor_names_what_is_missing_and_how_to_get_lean():
    report = json.loads(doctor("--json").stdout)
    if shutil.which("lake") is None:
        assert not report["ready"]
        assert any(p.startswith("Lean:") and "elan" in p for p in report["problems"])


def test_doctor_outside_a_repo_still_reports_the_machine(tmp_path):
    report = json.loads(doctor("--json", cwd=tmp_path).stdout)
    assert report["lean"]["repo"] is None
    assert any("--root" in p for p in report["problems"])
    assert report["tex"]["programs"]["pdflatex"]["path"] is not None


def test_doctor_outside_a_repo_says_so_under_lean(tmp_path):
    lines = doctor(cwd=tmp_path, env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    at = lines.index("Lean")
    assert "no verifier repo here" in lines[at + 1] and "--root" in lines[at + 1]


def test_doctor_says_whether_each_working_route_caps_a_checkers_processes():
    report = json.loads(doctor("--json").stdout)
    working = [row for row in report["sandbox"]["routes"] if row["ok"]]
    lines = doctor(env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    said = [line.strip() for line in lines if line.strip().startswith("processes ")]
    for row, line in zip(working, said, strict=True):
        assert line.startswith(
            "processes capped:" if row["processes"]["capped"] else "processes NOT"
        )
