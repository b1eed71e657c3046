"""Posing: adding a canonical statement or a certificate problem, and keeping both write-once.

A statement is the whole contract (what a green verdict means), so a pose is curated: it is
refused, with nothing written, whenever it breaks a rule a reviewer would otherwise have to
catch by eye; and once merged, `pose check` keeps CI from editing or deleting it.

    statement.py     the rules for Statements/<label>.lean, and the text `pose lean` writes
    examples.py      Lean example submissions copied beside a new statement
    lean.py          `jig pose lean`
    certificate.py   `jig pose certificate`
    check.py         `jig pose check` (CI: write-once and the Mathlib pin, base against HEAD)
    history.py       the git side (gitpython, imported on first use)
    files.py         writing new files all-or-nothing
"""

from __future__ import annotations

from jigcli.errors import JigError


class PoseRefused(JigError):
    """A pose that breaks a rule. Nothing was written; exit 1."""

    exit_code = 1

    def __init__(self, sentence: str) -> None:
        super().__init__(f"{sentence} (nothing was written).")
        self.sentence = sentence
