"""What the policy's tests share: a five-line preamble that puts each construct on line 6,
so a wrong line count shows, and the scan's findings as (line, construct) pairs."""

from __future__ import annotations

from pathlib import Path

from jigcli.lean.policy import scan

DATA = Path(__file__).resolve().parents[2] / "data"
REPO = Path(__file__).resolve().parents[3]

# Five lines of ordinary code, with a comment and a string over two lines each, so every
# construct below sits on line 6 and a wrong line count shows.
PREAMBLE = (
    'import Mathlib\n/- a comment\n   over two lines -/\ndef s := "a string\nover two lines"\n'
)
LINE = 6


def found(text: str, home: str | None = None) -> set[tuple[int, str]]:
    return {(v.line, v.construct) for v in scan(text, home)}


def on_line_6(source: str) -> set[tuple[int, str]]:
    return found(PREAMBLE + source + "\n")
