"""Every `--json` document carries its answer at the top: a script reads `status` (and
`exit_code`, where the command decides) without knowing each command's own fields.

Run as a user runs them, on a copy of this repo in a machine without Lean, so the statuses
seen are the ones a fresh clone gives: green, red and "not checked here" alike.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.verdict import status_for_exit
from jigcli.verifiers.contract import STATUSES

ROOT = Path(__file__).resolve().parents[2]
GREEN = "Certificates/C001/submissions/booker-sutherland.json"
RED = "Certificates/C001/submissions/off-by-one.json"
LEAN = "Submissions/S001/AliceDirect.json"


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("json") / "repo"
    for folder in ("Certificates", "Statements", "Submissions", "Commons", "examples"):
        shutil.copytree(ROOT / folder, root / folder, ignore=shutil.ignore_patterns(".lake"))
    for name in ("lakefile.toml", "lake-manifest.json", "lean-toolchain"):
        shutil.copy2(ROOT / name, root / name)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for step in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "clone"]):
        subprocess.run([*git, *step], cwd=root, check=True, capture_output=True)
    return root


def _jig(root: Path, *args: str) -> tuple[int, dict]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "JIG_"))}
    env.update(
        NO_COLOR="1",
        PATH="/usr/local/bin:/usr/bin:/bin",  # no lake, no lean: "not checked here" is reachable
        ELAN_HOME=str(root.parent / "no-elan"),
        JIG_CACHE_DIR=str(root.parent / "cache"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "jigcli", *args, "--json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    return done.returncode, json.loads(done.stdout)  # exactly one document, or this fails


def _agrees(code: int, document: dict) -> None:
    assert document["status"] in STATUSES
    assert document["status"] == status_for_exit(code)
    assert document["exit_code"] == code


@pytest.mark.parametrize(
    ("args", "exit_code"),
    [
        (("verify", GREEN, RED), 1),
        (("verify", GREEN, LEAN), 4),
        (("verify", GREEN), None),  # one verdict: conject.verdict.v1, read below
        (("selftest", "Certificates"), 0),
        (("policy", "Submissions/S001/AliceDirect.lean"), 0),
        (("doctor",), None),  # 0, 1 or 4 as this machine allows
        (("pose", "check", "--base", "HEAD"), 0),
    ],
    ids=["batch-red", "batch-not-checked", "single", "selftest", "policy", "doctor", "pose"],
)
def test_each_document_says_its_status_and_exit_at_the_top(
    clone: Path, args: tuple[str, ...], exit_code: int | None
) -> None:
    code, document = _jig(clone, *args)
    if exit_code is not None:
        assert code == exit_code
    if args == ("verify", GREEN):
        assert code == 0 and document["verdict"] == "green"  # the shared verdict's own word
        return
    _agrees(code, document)


def test_a_red_batch_is_an_error_and_a_not_checked_one_is_pending(clone: Path) -> None:
    assert _jig(clone, "verify", GREEN, RED)[1]["status"] == "error"
    assert _jig(clone, "verify", GREEN, LEAN)[1]["status"] == "pending"


def test_a_policy_violation_is_an_error_at_the_top(clone: Path) -> None:
    dirty = clone / "Dirty.lean"
    dirty.write_text("theorem t : 1 + 1 = 2 := by\n  sorry\n", encoding="utf-8")
    code, document = _jig(clone, "policy", "Dirty.lean")
    assert code == 1 and document["status"] == "error" and not document["files"][0]["ok"]


def test_the_registry_is_an_object_with_its_verifiers_inside(clone: Path) -> None:
    code, document = _jig(clone, "verifiers")
    assert code == 0 and document["status"] == "ok"
    assert {"compile", "lean", "audit", "submission"} <= {v["id"] for v in document["verifiers"]}


def test_paper_commands_carry_a_status_too(clone: Path) -> None:
    code, document = _jig(clone, "lean-check", "examples/paper/paper.tex")
    _agrees(code, document)
    code, document = _jig(clone, "audit", "examples/paper/paper.tex")
    _agrees(code, document)


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="no pdflatex here")
def test_compile_carries_a_status(clone: Path) -> None:
    code, document = _jig(clone, "compile", "examples/paper/paper.tex")
    assert document["status"] in STATUSES
    assert (code == 0) == (document["status"] == "ok")
