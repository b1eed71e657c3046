"""Where jig keeps what it can always rebuild: `$JIG_CACHE_DIR`, else the platform's user cache
folder (`platformdirs.user_cache_dir("jig")`, `~/.cache/jig` on Linux)."""

from __future__ import annotations

import os
from pathlib import Path


def default_cache_dir() -> Path:
    override = os.environ.get("JIG_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("jig"))
