"""The environment a sandboxed program gets: built from scratch, nothing of the caller's
(no `$HOME`, no tokens, no proxies), plus what the caller's job adds."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

SYSTEM_PATH = "/usr/bin:/bin"


def environment(scratch: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The whole environment of a run whose scratch folder is `scratch` (as it sees it)."""
    return {
        "PATH": SYSTEM_PATH,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": str(scratch),
        **extra,
    }
