"""What a job's view may show: never a home folder, nor a folder that holds one.

A view names the folders a program needs (an interpreter's library folders, a toolchain);
binding a prefix that happens to be, or to contain, someone's home would show their keys and
tokens to the program. Homes are the invoker's `$HOME` and the home folders of root and of
every login user (uid 1000 and up, nobody excepted).
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Iterable
from pathlib import Path

from jigcli.sandbox.job import View

_FIRST_LOGIN_UID = 1000
_NOBODY = 65534


def homes() -> set[Path]:
    """The home folders on this machine that a view must never show; read again whenever
    `$HOME` or the password file changes (every run checks its view: a batch of a hundred
    would otherwise read every account a hundred times)."""
    stamp = (os.environ.get("HOME"), _passwd_stamp())
    known = _known.get(stamp)
    if known is None:
        found = {Path(os.path.realpath(home)) for home in _home_names()}
        known = frozenset(home for home in found if home != Path("/"))
        _known.clear()
        _known[stamp] = known
    return set(known)


_known: dict[tuple[str | None, tuple[int, ...] | None], frozenset[Path]] = {}


def _passwd_stamp() -> tuple[int, ...] | None:
    try:
        seen = os.stat("/etc/passwd")
    except OSError:
        return None
    return (seen.st_ino, seen.st_size, seen.st_mtime_ns, seen.st_ctime_ns)


def _home_names() -> Iterable[str]:
    if os.environ.get("HOME"):
        yield os.environ["HOME"]
    for entry in pwd.getpwall():
        if entry.pw_uid == 0 or _FIRST_LOGIN_UID <= entry.pw_uid != _NOBODY:
            yield entry.pw_dir


def check_view(view: View) -> str | None:
    """Why `view` must not be shown to a program, else None."""
    mounted = [path for pair in view.mounted for path in pair]
    every = (*view.read_only, *view.writable, *view.hidden, *mounted)
    for path in every:
        if not path.is_absolute() or "\0" in str(path):
            return f"the sandbox view names {str(path)!r}, which is not an absolute path"
    sources = [source for source, _ in view.mounted]
    shown = [Path(os.path.realpath(p)) for p in (*view.read_only, *view.writable, *sources)]
    for home in homes():
        for path in shown:
            if home == path or home.is_relative_to(path):
                return (
                    f"the sandbox view would show {path}, which holds the home folder {home}; "
                    "bind only the folders the program needs"
                )
    return None
