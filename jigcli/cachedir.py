"""Where jig keeps what it can always rebuild: `$JIG_CACHE_DIR`, else the platform's user cache
folder (`platformdirs.user_cache_dir("jig")`).

On Linux that folder is `$XDG_CACHE_HOME/jig`, else `~/.cache/jig` (the XDG base directory
rule platformdirs follows there); it is computed here without importing platformdirs, which a
rebuild with nothing changed would otherwise spend a good part of its time loading.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


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
