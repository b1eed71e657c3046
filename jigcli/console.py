"""Where output goes: human text through rich (colour only on a TTY, `NO_COLOR` honoured,
both decided by rich itself), machine output as exactly one JSON document on stdout.

rich is imported on first use so that `--json` paths and quick commands start light.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


@cache
def out() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


@cache
def err() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def emit_json(document: Any) -> None:
    """Print one JSON document on stdout and nothing else."""
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def say_error(message: str) -> None:
    """One line on stderr, `jig: <message>`, never markup-interpreted, its control characters
    (a tool's words inside it) shown escaped."""
    from jigcli.display import one_line

    sys.stderr.write(f"jig: {one_line(message, 10_000)}\n")
    sys.stderr.flush()
