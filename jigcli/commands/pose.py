"""`jig pose`: not built yet (issue #5)."""

from __future__ import annotations

from typing import Any

from jigcli.commands._unbuilt import refuse


def run_lean(*args: Any, **kwargs: Any) -> int:
    refuse("pose lean", 5)


def run_certificate(*args: Any, **kwargs: Any) -> int:
    refuse("pose certificate", 5)


def run_check(*args: Any, **kwargs: Any) -> int:
    refuse("pose check", 5)
