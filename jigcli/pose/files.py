"""Writing a pose's new files: all of them or none.

A pose never overwrites anything: each file is created exclusively, and when one cannot be
written, the files and folders this call already made are removed again, so a failed pose
leaves the tree as it found it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from jigcli.errors import JigError
from jigcli.pose import PoseRefused


class WriteFailed(JigError):
    """The file system refused a write; what was written was taken back."""

    exit_code = 1


def json_bytes(document: Any) -> bytes:
    """A JSON file as the repo keeps them: two-space indent, UTF-8, a final newline."""
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def first_taken(root: Path, paths: Iterable[str]) -> str | None:
    """The first repo-relative path that already exists (a dangling link counts), if any."""
    for rel in paths:
        path = root / rel
        if path.exists() or path.is_symlink():
            return rel
    return None


def refuse_taken(root: Path, paths: Iterable[str]) -> None:
    taken = first_taken(root, paths)
    if taken is not None:
        raise PoseRefused(f"{taken} already exists, and a pose never overwrites a file")


def write_new(root: Path, files: Mapping[str, bytes]) -> list[str]:
    """Create every file (repo-relative POSIX path → bytes); return the paths, in order."""
    refuse_taken(root, files)
    made_files: list[Path] = []
    made_dirs: list[Path] = []
    current = ""
    try:
        for rel, data in files.items():
            current = rel
            path = root / rel
            made_dirs += _make_parents(path.parent)
            with path.open("xb") as handle:
                made_files.append(path)
                handle.write(data)
    except OSError as exc:
        for path in made_files:
            path.unlink(missing_ok=True)
        for folder in reversed(made_dirs):
            with contextlib.suppress(OSError):  # not empty: someone else wrote there meanwhile
                folder.rmdir()
        raise WriteFailed(
            f"could not write {current} ({exc.strerror or exc}); nothing was kept, "
            "fix the folder's permissions or free space and pose again."
        ) from exc
    return list(files)


def _make_parents(folder: Path) -> list[Path]:
    """Create `folder` and its missing parents; return the ones created, outermost first."""
    missing = []
    for candidate in (folder, *folder.parents):
        if candidate.exists():
            break
        missing.append(candidate)
    for candidate in reversed(missing):
        candidate.mkdir()
    return list(reversed(missing))
