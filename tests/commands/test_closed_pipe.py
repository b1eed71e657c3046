"""A reader that goes away (`jig verify green.json | head -1`, a closed stderr) is the reader's
choice, not a verdict: the exit code stays the verdict's, and the verdict file is written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

GREEN = "Certificates/C001/submissions/booker-sutherland.json"
RED = "Certificates/C001/submissions/off-by-one.json"


@pytest.fixture
def repo(copy_repo, sandboxed):
    return copy_repo("Certificates")


def _closed(repo: Path, *args: str, stream: str = "stdout") -> int:
    """jig's exit code when `stream` is a pipe whose reader has already gone: every write to
    it fails with EPIPE, as after `| head -1` once head has exited."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    streams = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, stream: write_end}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "jigcli", *args],
            cwd=repo,
            env={**os.environ, "NO_COLOR": "1"},
            stdout=streams["stdout"],
            stderr=streams["stderr"],
            timeout=300,
        )
    finally:
        os.close(write_end)
    return done.returncode


@pytest.mark.parametrize("as_json", [False, True])
def test_a_green_read_by_nobody_is_still_green(repo: Path, as_json: bool) -> None:
    flags = ["--json"] if as_json else []
    out = repo / "green.verdict.json"
    assert _closed(repo, "verify", *flags, GREEN, "--out", str(out)) == 0
    assert json.loads(out.read_text())["verdict"] == "green"


def test_a_red_read_by_nobody_is_still_red(repo: Path) -> None:
    assert _closed(repo, "verify", RED) == 1


def test_a_closed_stderr_changes_nothing(repo: Path) -> None:
    assert _closed(repo, "verify", GREEN, stream="stderr") == 0
    assert _closed(repo, "verify", "Certificates/nope.json", stream="stderr") == 2


def test_a_batch_keeps_its_worst_exit_code(repo: Path) -> None:
    assert _closed(repo, "verify", GREEN, RED) == 1
    assert _closed(repo, "verify", GREEN, GREEN) == 0
