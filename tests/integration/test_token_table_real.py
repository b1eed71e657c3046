"""The policy's token table against the one Lean prints for an environment importing Mathlib
(scripts/token_table.lean, checked by scripts/check_token_table.py). Runs only where `lake`
and the Mathlib cache are present, as the shipped workflow has them; skipped otherwise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.lean import backend
from jigcli.repo import Repo

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.lean


def test_the_policy_knows_every_token_of_leans_table_that_changes_reading(tmp_path: Path):
    lake = backend.find_program("lake")
    if lake is None or not backend.mathlib_cache(Repo(ROOT)).is_dir():
        pytest.skip("needs `lake` and the Mathlib cache (`lake exe cache get`)")
    printed = subprocess.run(
        [str(lake), "env", "lean", "scripts/token_table.lean"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    table = tmp_path / "token-table.txt"
    table.write_text(printed.stdout, encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "scripts/check_token_table.py", str(table)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
