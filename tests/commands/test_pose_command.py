"""`jig pose lean|certificate|check` through the real command line, in a temporary git repo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import git
import pytest

from ..conftest import seeded_git_repo

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "pose"
SEED = ("lakefile.toml", "lake-manifest.json", "lean-toolchain", "Statements/S001.lean")
PROP = "∀ n : ℕ, Even n → Even (n ^ 2)"
EVEN = "Mathlib.Algebra.Group.Nat.Even"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "verifier"
    seeded_git_repo(folder, SEED)
    return folder


def _jig(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jigcli", "pose", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _pose_s002(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return _jig(root, "lean", "S002", "--prop", PROP, "--import", EVEN, *extra)


def test_pose_lean_writes_commits_and_says_what_it_did(root):
    done = _pose_s002(
        root,
        *("--green", str(DATA / "lean" / "EvenSquare.lean")),
        *("--red", str(DATA / "lean" / "Weakened.lean"), "--red-reason", "restatement"),
        "--commit",
    )
    assert done.returncode == 0, done.stderr
    assert "Statements/S002.lean: ● written" in done.stdout
    assert "Submissions/S002/Weakened.json: ● written · manifest of the red (restatement)" in (
        done.stdout
    )
    assert "committed " in done.stdout and '"Add canonical statement S002"' in done.stdout
    head = git.Repo(root).head.commit
    assert head.message.strip() == "Add canonical statement S002"
    assert len(head.stats.files) == 5


def test_a_refused_pose_exits_1_with_one_line_and_writes_nothing(root):
    done = _jig(root, "lean", "S003", "--prop", "True", "--import", "Mathlib")
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith("jig: bare `import Mathlib`")
    assert line.endswith("(nothing was written).")
    assert not (root / "Statements" / "S003.lean").exists()


def test_red_examples_without_matching_reasons_are_a_usage_error(root):
    done = _pose_s002(root, "--red", str(DATA / "lean" / "Weakened.lean"))
    assert done.returncode == 2
    assert "jig: 1 --red example(s) but 0 --red-reason(s)" in done.stderr


def _without_lean(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jigcli", "pose", "lean", "S002", "--prop", PROP, "--build", *extra],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        env={
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": str(root),
            "ELAN_HOME": str(root / "no-elan"),
        },
    )


def test_build_without_lean_says_so_plainly_and_exits_not_checked(root):
    done = _without_lean(root)
    assert done.returncode == 4, done.stderr
    assert "Statements/S002.lean: ○ not elaborated: no Lean toolchain here" in done.stdout
    assert "Lean never elaborated it" in done.stderr


def test_build_and_commit_without_lean_keeps_the_draft_and_commits_nothing(root):
    head = git.Repo(root).head.commit.hexsha
    done = _without_lean(root, "--commit")
    assert done.returncode == 4, done.stderr
    assert "committed" not in done.stdout
    assert done.stderr.startswith("jig: not committed: Statements/S002.lean is written")
    assert git.Repo(root).head.commit.hexsha == head
    assert (root / "Statements" / "S002.lean").is_file()  # the draft, to review and commit


def test_pose_lean_help_shows_a_complete_example():
    done = subprocess.run(
        [sys.executable, "-m", "jigcli", "pose", "lean", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"COLUMNS": "100", "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0
    assert f"--import {EVEN}" in done.stdout
    assert "--red-reason restatement" in done.stdout
    assert "namespace Submissions.S002.EvenSquare" in done.stdout
    assert "theorem proof" in done.stdout


def test_pose_check_json_passes_on_an_addition(root):
    assert _pose_s002(root, "--commit").returncode == 0
    done = _jig(root, "check", "--json")
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)  # exactly one document
    assert report["ok"] is True
    assert report["new_statements"] == ["Statements/S002.lean"]
    assert report["base"]["ref"] == "HEAD~1"


def test_pose_check_fails_on_an_edit_and_names_the_file(root):
    repo = git.Repo(root)
    base = repo.head.commit.hexsha
    statement = root / "Statements" / "S001.lean"
    statement.write_text(statement.read_text().replace("(n + 1)", "(n + 3)"))
    repo.git.commit("-am", "Change S001")
    done = _jig(root, "check", "--base", base)
    assert done.returncode == 1
    assert f"Statements/S001.lean: ● changed since {base[:7]}" in done.stdout
    assert "1 failure(s)" in done.stdout


def test_pose_check_with_a_base_that_does_not_resolve_exits_2(root):
    done = _jig(root, "check", "--base", "no-such-ref")
    assert done.returncode == 2
    assert "jig: 'no-such-ref' does not name a commit here" in done.stderr


def test_pose_certificate_refuses_a_green_witness_the_checker_rejects(root):
    certs = DATA / "certificates"
    done = _jig(
        root,
        *("certificate", "C100", "--title", "A square root of 49"),
        *("--statement", "Exhibit an integer whose square is 49."),
        *("--witness-format", "one decimal integer"),
        *("--checker", str(certs / "square_checker.py"), "--green", str(certs / "six.txt")),
    )
    assert done.returncode == 1
    assert "jig: the green witness six.txt does not come out green" in done.stderr
    assert not (root / "Certificates").exists()


def _next_command(stdout: str) -> list[str]:
    """The command inside the backticks of jig's `next:` line, as a person would type it."""
    import re
    import shlex

    (line,) = [line for line in stdout.splitlines() if line.startswith("next:")]
    found = re.search(r"`(jig [^`]+)`", line)
    assert found, line
    return shlex.split(found.group(1))


def _run_as_printed(cwd: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jigcli", *command[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_next_line_after_posing_a_statement_runs_as_printed(root):
    done = _pose_s002(root, "--green", str(DATA / "lean" / "EvenSquare.lean"))
    assert done.returncode == 0, done.stderr
    command = _next_command(done.stdout)
    assert command == ["jig", "selftest", "Submissions/S002"]
    ran = _run_as_printed(root, command)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_statement_posed_without_examples_does_not_suggest_a_folder_that_is_not_there(root):
    done = _pose_s002(root)
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("next:")]
    assert "jig selftest Submissions/S002" not in line
    assert "no example yet" in line and not (root / "Submissions" / "S002").exists()


def test_the_next_line_after_posing_a_certificate_runs_as_printed(root):
    certs = DATA / "certificates"
    done = _jig(
        root,
        *("certificate", "C100", "--title", "A square root of 49"),
        *("--statement", "Exhibit an integer whose square is 49."),
        *("--witness-format", "one decimal integer"),
        *("--checker", str(certs / "square_checker.py"), "--green", str(certs / "seven.txt")),
        *("--red", str(certs / "six.txt")),
    )
    assert done.returncode == 0, done.stderr
    command = _next_command(done.stdout)
    assert command == ["jig", "selftest", "Certificates/C100"]
    ran = _run_as_printed(root, command)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "2 matched" in ran.stdout


def test_pose_check_format_github_annotates_each_failure_on_its_file(root):
    repo = git.Repo(root)
    base = repo.head.commit.hexsha
    statement = root / "Statements" / "S001.lean"
    statement.write_text(statement.read_text().replace("(n + 1)", "(n + 3)"))
    repo.git.commit("-am", "Change S001")
    done = _jig(root, "check", "--base", base, "--format", "github")
    assert done.returncode == 1
    assert done.stdout.splitlines()[-1] == (
        f"::error file=Statements/S001.lean,title=jig pose check::changed since {base[:7]}; "
        "posed files are write-once: restore it, and pose a different statement or problem "
        "under a new name"
    )


def test_pose_check_says_which_posed_files_are_not_committed(root):
    (root / "Statements" / "S009.lean").write_text("-- not committed yet\n")
    statement = root / "Statements" / "S001.lean"
    statement.write_text(statement.read_text() + "\n-- edited, not committed\n")
    (root / "Certificates" / "C009").mkdir(parents=True)
    (root / "Certificates" / "C009" / "spec.json").write_text("{}")
    done = _jig(root, "check", "--base", "HEAD")
    assert done.returncode == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "not committed" in line]
    assert line.startswith("○ 3 posed file(s) in the working tree are not committed")
    for rel in ("Certificates/C009/spec.json", "Statements/S001.lean", "Statements/S009.lean"):
        assert rel in line
    report = json.loads(_jig(root, "check", "--base", "HEAD", "--json").stdout)
    assert report["uncommitted"] == [
        "Certificates/C009/spec.json",
        "Statements/S001.lean",
        "Statements/S009.lean",
    ]


def test_pose_check_on_a_clean_tree_says_nothing_about_uncommitted_files(root):
    done = _jig(root, "check", "--base", "HEAD")
    assert done.returncode == 0 and "not committed" not in done.stdout
    assert json.loads(_jig(root, "check", "--base", "HEAD", "--json").stdout)["uncommitted"] == []
