"""`jig policy`: not built yet (issue #2)."""

from __future__ import annotations

from typing import Any

from jigcli.commands._unbuilt import refuse


def run(*args: Any, **kwargs: Any) -> int:
    refuse("policy", 2)
