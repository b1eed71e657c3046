"""scripts/pull_request.py: a pull request is judged by the base's jig, and the self-test takes
from its head only submissions to the base's statements and new certificate problems, so a head
that also rewrites a statement, a checker, the judge, jig or the workflow is tested against the
base's, and a new statement (which the trusted build would compile outside the sandbox) waits
for review."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "pull_request.py"

BASE_FILES = {
    "Statements/S001.lean": "abbrev statement : Prop := True\n",
    "Verify/Judge.lean": "-- the reviewed judge\n",
    "jigcli/pose/check.py": "# the reviewed guard\n",
    ".github/workflows/verify.yml": "name: verify\n",
    "Certificates/C001/checker.py": "print('reviewed')\n",
    "Certificates/C001/spec.json": "{}\n",
    "Certificates/C001/submissions/old.json": "{}\n",
    "Submissions/S001/Old.json": "{}\n",
    "Submissions/S001/Gone.json": "{}\n",
}
HEAD_CHANGES = {
    "Statements/S001.lean": "abbrev statement : Prop := False\n",  # loosened: never taken
    "Statements/S002.lean": "abbrev statement : Prop := 1 = 1\n",  # new: left until merged
    "Verify/Judge.lean": "-- says green\n",
    "jigcli/pose/check.py": "def _is_protected(path): return False\n",
    ".github/workflows/verify.yml": "name: green\n",
    "Certificates/C001/checker.py": "print('accept')\n",
    "Certificates/C001/submissions/new.json": '{"new": 1}\n',  # taken
    "Certificates/C009/checker.py": "print('new problem')\n",  # a new problem: taken
    "Certificates/C009/spec.json": '{"id": "C009"}\n',
    "Submissions/S001/Old.json": '{"changed": 1}\n',  # taken
    "Submissions/S002/New.lean": "-- a proof\n",  # of the new S002: left until merged
    "Submissions/S001/New.lean": "-- a proof of S001\n",  # taken
}
TAKEN = {
    "Certificates/C001/submissions/new.json",
    "Certificates/C009/checker.py",
    "Certificates/C009/spec.json",
    "Submissions/S001/Old.json",
    "Submissions/S001/New.lean",
    "Submissions/S001/Gone.json",  # deleted by the head: removed
}
# The trusted build compiles statements outside the sandbox: a new one waits for review.
LEFT = {"Statements/S002.lean", "Submissions/S002/New.lean"}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def write_all(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, SCRIPT, *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def pr(tmp_path: Path) -> tuple[Path, str, str]:
    """(the head's clone, the base commit, the head commit): main holds the reviewed files; the
    pull request's branch submits proofs and rewrites the trusted side too."""
    head = tmp_path / "head"
    head.mkdir()
    git(head, "init", "-q", "-b", "main")
    git(head, "config", "user.email", "t@example.com")
    git(head, "config", "user.name", "t")
    write_all(head, BASE_FILES)
    git(head, "add", "-A")
    git(head, "commit", "-q", "-m", "reviewed")
    base = git(head, "rev-parse", "HEAD")
    git(head, "checkout", "-q", "-b", "attack")
    write_all(head, HEAD_CHANGES)
    (head / "Submissions/S001/Gone.json").unlink()
    git(head, "add", "-A")
    git(head, "commit", "-q", "-m", "proofs, and a guard of my own")
    return head, base, git(head, "rev-parse", "HEAD")


def base_checkout(tmp_path: Path) -> Path:
    into = tmp_path / "base"
    write_all(into, BASE_FILES)
    return into


def test_take_copies_submissions_and_new_problems_and_leaves_new_statements(pr, tmp_path):
    head, base, _ = pr
    into = base_checkout(tmp_path)
    done = run("take", "--head", head, "--base", base, "--into", into, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    took = {line.removeprefix("took ") for line in lines if line.startswith("took ")}
    assert took == TAKEN
    left = {line.removeprefix("left ").split(":")[0] for line in lines if line.startswith("left ")}
    assert left == LEFT
    assert "outside the sandbox" in done.stdout
    for rel in LEFT:
        assert not (into / rel).exists(), f"{rel} must wait for review"
    for rel, text in BASE_FILES.items():
        if rel not in TAKEN:
            assert (into / rel).read_text() == text, f"{rel} must stay the base's"
    assert not (into / "Submissions/S001/Gone.json").exists()
    for rel in TAKEN - {"Submissions/S001/Gone.json"}:
        assert (into / rel).read_text() == HEAD_CHANGES[rel]


def test_take_refuses_a_link_among_the_submissions(pr, tmp_path):
    head, base, _ = pr
    (head / "Submissions/S001/Out.json").symlink_to("/etc/passwd")
    git(head, "add", "-A")
    git(head, "commit", "-q", "-m", "a link out")
    into = base_checkout(tmp_path)
    done = run("take", "--head", head, "--base", base, "--into", into, cwd=tmp_path)
    assert done.returncode == 2
    assert "Submissions/S001/Out.json is a link or a submodule" in done.stderr
    assert not (into / "Submissions/S001/New.lean").exists()  # refused before any write


def test_take_never_writes_through_a_link_in_the_base_checkout(pr, tmp_path):
    head, base, _ = pr
    into = base_checkout(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (into / "Certificates/C009").symlink_to(elsewhere)  # where the new problem would go
    done = run("take", "--head", head, "--base", base, "--into", into, cwd=tmp_path)
    assert done.returncode == 2 and "is a link" in done.stderr
    assert list(elsewhere.iterdir()) == []
    assert (into / "Submissions/S001/Gone.json").exists()  # nothing was applied


def test_take_refuses_a_hidden_name(pr, tmp_path):
    head, base, _ = pr
    write_all(head, {"Submissions/S001/.hidden.json": "{}\n"})
    git(head, "add", "-A")
    git(head, "commit", "-q", "-m", "hidden")
    into = base_checkout(tmp_path)
    done = run("take", "--head", head, "--base", base, "--into", into, cwd=tmp_path)
    assert done.returncode == 2 and "not a plain path" in done.stderr


def test_base_is_the_merge_base_so_statements_added_to_main_later_are_not_deletions(pr, tmp_path):
    head, base, head_commit = pr
    git(head, "checkout", "-q", "main")
    write_all(head, {"Statements/S003.lean": "abbrev statement : Prop := True\n"})
    git(head, "add", "-A")
    git(head, "commit", "-q", "-m", "S003 on main, after the branch")
    main = git(head, "rev-parse", "HEAD")
    git(head, "checkout", "-q", head_commit)
    done = run("base", "--head", head, "--base", main, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == base


@pytest.mark.parametrize("commit", ["main", "-x", "HEAD~1", "0" * 39, "--output=/tmp/x"])
def test_anything_but_a_full_commit_id_is_refused(pr, tmp_path, commit):
    head, _, _ = pr
    done = run("base", "--head", head, "--base=" + commit, cwd=tmp_path)
    assert done.returncode == 2 and "is not a full commit id" in done.stderr
    assert done.stdout == ""


def test_a_commit_the_head_does_not_know_is_a_git_failure(pr, tmp_path):
    head, _, _ = pr
    done = run("base", "--head", head, "--base", "f" * 40, cwd=tmp_path)
    assert done.returncode == 1 and done.stderr.startswith("pull_request: git failed")


def test_the_script_needs_only_the_standard_library(tmp_path):
    # It runs before jig is installed: copied alone, with no site-packages, it still starts.
    shutil.copy(SCRIPT, tmp_path / "pull_request.py")
    done = subprocess.run(
        [sys.executable, "-S", "-I", tmp_path / "pull_request.py", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": os.environ["PATH"]},
        check=False,
    )
    assert done.returncode == 0 and "base" in done.stdout
