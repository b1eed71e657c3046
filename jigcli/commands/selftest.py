"""`jig selftest`: not built yet (issue #4)."""

from __future__ import annotations

from typing import Any

from jigcli.commands._unbuilt import refuse


def run(*args: Any, **kwargs: Any) -> int:
    refuse("selftest", 4)
