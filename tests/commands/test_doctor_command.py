import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

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
    assert result.returncode == report["exit_code"]
    assert report["exit_code"] == 0 if report["ready"] else report["exit_code"] in (1, 4)
    routes = {row["name"] for row in report["sandbox"]["routes"]}
    assert "bubblewrap" in routes


def test_doctor_names_what_is_missing_and_how_to_get_lean():
    report = json.loads(doctor("--json").stdout)
    if shutil.which("lake") is None:
        assert any(p.startswith("Lean:") and "elan" in p for p in report["problems"])


def by_id(report):
    return {row["id"]: row for row in report["verifiers"]}


@pytest.mark.skipif(shutil.which("lake") is not None, reason="Lean is installed here")
def test_without_lean_doctor_is_not_ready_and_says_which_kind_is_not_checked_here():
    done = doctor("--json")
    report = json.loads(done.stdout)
    submission = by_id(report)["submission"]
    assert submission["kinds"] == {"certificate": True, "lean": False}
    assert submission["runs"] and "Lean proofs:" in submission["needs"]
    # this repo switches on the built-ins only: TeX and a sandbox are here, Lean is not, so a
    # Lean proof cannot be checked: not "ready", and the exit is jig verify's for it (4)
    assert report["asked"] == ["compile", "submission"]
    assert report["not_checked_here"] == ["submission (lean)"]
    assert (report["ready"], done.returncode) == (False, 4)
    text = doctor(env={**os.environ, "NO_COLOR": "1"})
    assert text.returncode == 4
    assert "Ready for" not in text.stdout
    assert "not checked here: submission (lean)." in " ".join(text.stdout.split())


@pytest.mark.skipif(shutil.which("latexmk") is None, reason="TeX is not installed here")
def test_doctor_asked_only_about_what_runs_here_is_ready():
    done = doctor("compile", "--json")
    report = json.loads(done.stdout)
    assert (report["ready"], report["not_checked_here"], done.returncode) == (True, [], 0)


@pytest.mark.skipif(shutil.which("lake") is not None, reason="Lean is installed here")
def test_doctor_asked_about_lean_exits_one_without_it_and_says_not_checked_here():
    done = doctor("lean", env={**os.environ, "NO_COLOR": "1"})
    assert done.returncode == 1
    assert "○ lean             off for this repo; cannot run here (see Missing)" in done.stdout
    assert "Missing: Lean:" in done.stdout


def test_doctor_for_a_repo_that_switches_lean_on_needs_lean(copy_repo):
    repo = copy_repo()
    (repo / "jig.yaml").write_text("modules: [lean-blueprint]\n")
    report = json.loads(doctor("--json", cwd=repo).stdout)
    assert set(report["asked"]) == {"compile", "lean", "audit", "submission"}
    assert report["ready"] == (shutil.which("lake") is not None and by_id(report)["lean"]["runs"])


def test_doctor_refuses_an_unknown_verifier_in_one_line():
    done = doctor("lean-check")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "jig: 'lean-check' is not a verifier; name one of compile, lean, audit, submission "
        "(or none).\n"
    )


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


def test_doctor_says_whether_a_submissions_build_can_be_sandboxed_here():
    report = json.loads(doctor("--json").stdout)
    build = report["lean_build"]
    assert set(build) == {"probed_with", "route", "why", "memory", "processes"}
    assert (build["route"] is None) is (build["why"] is not None)
    assert build["route"] in (None, "bubblewrap")  # the one route that confines its files
    lines = doctor(env={"NO_COLOR": "1", "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    at = lines.index("Sandbox (Lean builds: the submission's code)")
    if build["route"] is not None:
        assert lines[at + 1].split()[1:3] == ["bubblewrap", "confines"]


def test_doctor_probes_the_build_sandbox_with_the_repos_own_lean(standin, copy_repo):
    report = json.loads(doctor("--json", cwd=copy_repo()).stdout)
    build = report["lean_build"]
    if build["route"] is None:
        pytest.skip(f"no sandbox confines a build here: {build['why']}")
    assert build["probed_with"] == "lean"


def test_doctor_without_a_sandbox_says_no_submission_can_be_built(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    report = json.loads(doctor("--json", env={"PATH": str(empty)}).stdout)
    assert report["lean_build"]["route"] is None
    assert "bubblewrap: bwrap is not installed" in report["lean_build"]["why"]
    (said,) = [p for p in report["problems"] if p.startswith("Lean builds:")]
    assert "install bubblewrap" in said and not report["ready"]


def test_doctor_reports_the_pinned_judge_and_whether_the_trusted_build_made_it(copy_repo):
    root = copy_repo()
    report = json.loads(doctor("--json", cwd=root).stdout)
    judge = report["lean"]["judge"]
    assert judge["comparator"]["rev"] == "3927ad383f208ae977c340a91c48ac9b497d2097"
    assert judge["lean4export"]["rev"] == "15f6055e299ad5b89345e533cc2192f4cc00f659"
    assert judge["comparator"]["built"] is False
    program = root / judge["comparator"]["path"]
    program.parent.mkdir(parents=True)
    program.write_text("#!/bin/sh\n")
    again = json.loads(doctor("--json", cwd=root).stdout)["lean"]["judge"]
    assert again["comparator"]["built"] is True and again["lean4export"]["built"] is False
    shown = doctor(cwd=root, env={**os.environ, "COLUMNS": "120"}).stdout
    assert "comparator       3927ad383f20 · built" in shown
    assert "lean4export      15f6055e299a · not built yet" in shown


def test_at_80_columns_every_paragraph_hangs_under_its_own_words(monkeypatch):
    """The report of this machine, drawn on an 80-column terminal: no line is wider, and a
    guard's long reason (a cgroup path, a probe's error) continues under the guard's words."""
    import io

    from rich.console import Console

    from jigcli.commands import doctor as command

    report = command.gather(REPO)
    for route in report["sandbox"]["routes"]:  # the longest reason a route can give
        if route["ok"]:
            route["memory"]["why"] = (
                "a memory cgroup in /sys/fs/cgroup/"
                + "a1b2c3d4" * 8
                + (
                    ": the limits around jig bind the run too; cgroup v1: kernel memory is not "
                    "charged to the limit here"
                )
            )
    screen = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    monkeypatch.setattr(command, "out", lambda: screen)
    command._show(report)
    lines = screen.file.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines)
    memory = [i for i, line in enumerate(lines) if line.startswith(" " * 21 + "memory    capped:")]
    if not memory:
        pytest.skip("no working sandbox route here")
    assert lines[memory[0] + 1].startswith(" " * 31) and lines[memory[0] + 1][31] != " "
