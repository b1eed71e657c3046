"""Where jig keeps what it can always rebuild: `$JIG_CACHE_DIR`, else the platform's user cache
folder (`platformdirs.user_cache_dir("jig")`).

On Linux that folder is `$XDG_CACHE_HOME/jig`, else `~/.cache/jig` (the XDG base directory
rule platformdirs follows there); it is computed here without importing platformdirs, which a
rebuild with nothing changed would otherwise spend a good part of its time loading.

What a later process would rebuild the same way (a route's probe, the seccomp program, the
compiled schema validators) is kept as one file per `entry`: named by a digest of everything
it is made from, so any change to those is a miss, never a stale hit. `read_entry` and `keep`
never follow a link, and a cache that cannot be read or written is a miss, never an error.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from pathlib import Path

from jigcli.safefiles import Unreadable, read_file
from jigcli.safewrite import write_file


def default_cache_dir() -> Path:
    override = os.environ.get("JIG_CACHE_DIR")
    if override:
        return Path(override)
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
        return base / "jig"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("jig"))


def entry(kind: str, stamp: object, suffix: str) -> Path:
    """The file in the cache folder's `kind` folder for what `stamp` (everything it is made
    from, with a stable `repr`) determines."""
    digest = hashlib.sha256(repr(stamp).encode()).hexdigest()
    return default_cache_dir() / kind / f"{digest}{suffix}"


def read_entry(path: Path, cap: int) -> bytes | None:
    """What was kept at `path`; None when nothing usable is (absent, a link, not a regular
    file, over `cap` bytes, unreadable)."""
    try:
        return read_file(path, cap)
    except (Unreadable, OSError):
        return None


def keep(path: Path, data: bytes) -> None:
    """Keep `data` at `path` for later processes (atomically, through no link); a cache that
    cannot be written is skipped."""
    with contextlib.suppress(OSError, ValueError):
        write_file(path, data)


def forget(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
