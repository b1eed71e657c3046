"""One diagnostic of a TeX build, as the log reader finds it and the build record keeps it.

Its own module, so that answering from the record (a rebuild with nothing changed) never loads
the log reader and its patterns.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Diagnostic:
    file: str  # relative to the root document's folder, POSIX separators
    line: int | None
    severity: Severity
    message: str

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "severity": self.severity,
            "message": self.message,
        }


def file_name(path: Path, folder: Path) -> str:
    """How a diagnostic names `path`: relative to the root document's `folder` when inside it,
    else as it is."""
    try:
        return path.relative_to(folder).as_posix()
    except ValueError:
        return path.as_posix()
