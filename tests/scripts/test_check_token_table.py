"""scripts/check_token_table.py against printouts shaped as scripts/token_table.lean prints."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_token_table.py"


def check(tmp_path: Path, tokens: list[str]) -> subprocess.CompletedProcess[str]:
    printout = tmp_path / "table.txt"
    printout.write_text("".join(f"token: {t}\n" for t in tokens), encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(printout)], capture_output=True, text=True, check=False
    )


def test_a_table_the_policy_knows_passes(tmp_path: Path):
    result = check(tmp_path, ["(", "<;>", "→o", "''", "#check", "eval%", "simp", "∘"])
    assert result.returncode == 0, result.stdout


def test_a_token_that_changes_reading_and_is_missing_fails_naming_it(tmp_path: Path):
    result = check(tmp_path, ["(", "⊕q", "#frobnicate", "mystery%", "∘"])
    assert result.returncode == 1
    assert "symbols: missing '⊕q'" in result.stdout
    assert "hash_commands: missing '#frobnicate'" in result.stdout
    assert "percent_tokens: missing 'mystery%'" in result.stdout
    assert "'∘'" not in result.stdout


def test_a_printout_without_tokens_is_a_usage_error(tmp_path: Path):
    result = check(tmp_path, [])
    assert result.returncode == 2
    assert "run scripts/token_table.lean" in result.stderr


def test_a_missing_printout_is_one_sentence_not_a_traceback(tmp_path: Path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "absent.txt")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert "cannot read" in result.stderr and "Traceback" not in result.stderr
