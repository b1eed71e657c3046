"""jigcli/ownsource.py: every verdict names the jig that wrote it, commit included, read from
the checkout's own git files (a branch, a detached HEAD, packed refs, a worktree)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from jigcli.ownsource import checkout_commit, identity
from jigcli.schemas import validate
from jigcli.verdict import Verdict


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def repo(tmp_path: Path) -> tuple[Path, str]:
    root = tmp_path / "jig"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "f").write_text("x")
    git(root, "add", "f")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "c")
    return root, git(root, "rev-parse", "HEAD")


def test_a_branch_checkout_names_its_commit(tmp_path):
    root, commit = repo(tmp_path)
    assert checkout_commit(root) == commit


def test_a_detached_head_as_actions_checkout_leaves_it(tmp_path):
    root, commit = repo(tmp_path)
    git(root, "checkout", "-q", "--detach")
    assert checkout_commit(root) == commit


def test_packed_refs_are_read(tmp_path):
    root, commit = repo(tmp_path)
    git(root, "pack-refs", "--all")
    assert not (root / ".git/refs/heads/main").exists()
    assert checkout_commit(root) == commit


def test_a_worktree_reads_its_own_head_and_the_shared_refs(tmp_path):
    root, commit = repo(tmp_path)
    git(root, "worktree", "add", "-q", "-b", "other", str(tmp_path / "wt"))
    assert checkout_commit(tmp_path / "wt") == commit


def test_no_checkout_is_no_commit(tmp_path):
    assert checkout_commit(tmp_path) is None
    (tmp_path / ".git").write_text("gitdir: /nowhere\n")
    assert checkout_commit(tmp_path) is None


def test_every_verdict_records_the_verifier_and_stays_schema_valid():
    verdict = Verdict(submission="Submissions/S001/A.json", statement_id="S001")
    verdict.fail("sorry", "x")
    document = verdict.finish().to_json()
    assert document["verifier"] == identity()
    assert set(document["verifier"]) == {"version", "commit"}
    assert validate(document, "verdict") == []
