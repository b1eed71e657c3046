"""The numbers LaTeX wrote in a paper's `.aux`, which win over computed ones while current."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

_NEWLABEL = re.compile(r"\\newlabel\{([^{}]+)\}\{\{((?:[^{}]|\{[^{}]*\})*)\}")


def aux_numbers(aux: Path) -> dict[str, str]:
    """`label → number` from `\\newlabel` in `aux` and the `.aux` files it `\\@input`s."""
    numbers: dict[str, str] = {}
    for path in _aux_files(aux):
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _NEWLABEL.finditer(text):
            if not m.group(1).endswith("@cref"):
                numbers[m.group(1)] = m.group(2).strip()
    return numbers


def _aux_files(aux: Path) -> Iterator[Path]:
    seen: set[Path] = set()
    todo = [aux]
    while todo:
        path = todo.pop(0)
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        yield path
        text = path.read_text(encoding="utf-8", errors="replace")
        todo.extend(aux.parent / name for name in re.findall(r"\\@input\{([^{}]+)\}", text))


def aux_is_current(aux: Path, sources: list[Path]) -> bool:
    """True when `aux` exists and is newer than every source the statements were read from."""
    if not aux.is_file():
        return False
    written = aux.stat().st_mtime_ns
    return all(written > source.stat().st_mtime_ns for source in sources if source.is_file())
