"""Checking again on every settled edit: the one loop behind `jig compile --watch` and
`jig lean-check --watch`.

The folders watched (recursively) are those of the files the first check read, a folder below
another left out (the document's own folder holds most of them). A batch of changes counts
only when it touches a file the last check read; it is held back until the edits settle
(`SETTLE_MS` of quiet), never longer than `DEBOUNCE_MS`, and edits made while a check runs
wait in the watcher's queue. Ctrl-C ends the loop, wherever it comes, with the exit code of
the last check. Both commands say the same on stderr: how many files are watched, then
`HH:MM:SS · rebuilding` / `re-checking` before each check after the first (`announce`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

DEBOUNCE_MS = 1600  # the most a burst of changes is held back
SETTLE_MS = 150  # quiet this long after a change and the edit counts as settled


@dataclass(frozen=True)
class Checked:
    """One check done: its exit code, and how to show it."""

    exit_code: int
    show: Callable[[], None]


def check_on_every_edit(
    check: Callable[[bool], Checked | None], watched: Callable[[], Iterable[Path]]
) -> int:
    """`check(first=True)`, then `check(False)` after each settled edit of a file `watched()`
    names (asked again after each check); `check` returns None when it found nothing to do.
    Returns the exit code of the last check done."""
    from watchfiles import watch

    last = 1
    try:
        done = check(True)
        if done is not None:
            last = done.exit_code  # set before showing: Ctrl-C can come anywhere
            done.show()
        files = _resolved(watched())
        _say(f"watching {len(files)} file(s) for edits; Ctrl-C stops")
        for batch in watch(*_folders(files), debounce=DEBOUNCE_MS, step=SETTLE_MS):
            if not _resolved(path for _, path in batch) & files:
                continue
            done = check(False)
            if done is None:
                continue
            last = done.exit_code
            done.show()
            files = _resolved(watched())
    except KeyboardInterrupt:
        pass
    return last


def announce(doing: str) -> None:
    """`12:03:04 · rebuilding` on stderr: the one line both watch modes print before each
    check after the first (stdout stays the results', one JSON document per line with --json)."""
    _say(f"{time.strftime('%H:%M:%S')} · {doing}")


def _say(words: str) -> None:
    from jigcli.console import err

    err().print(words, style="dim", markup=False)


def _resolved(paths: Iterable[Path | str]) -> set[Path]:
    return {Path(path).resolve() for path in paths}


def _folders(files: set[Path]) -> list[Path]:
    """The folders holding `files`, none below another (a watch is recursive)."""
    parents = {path.parent for path in files if path.parent.is_dir()}
    return sorted(p for p in parents if not any(p != q and p.is_relative_to(q) for q in parents))
