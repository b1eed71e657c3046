"""Shared test helpers."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _pid_alive(pid: int) -> bool:
    """True while `pid` runs. A zombie is dead: PID 1 here may never reap orphans."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((line for line in status.splitlines() if line.startswith("State:")), "")
    return "Z" not in state.split(":", 1)[-1].split()[:1]


@pytest.fixture
def pid_alive() -> Callable[[int], bool]:
    return _pid_alive
