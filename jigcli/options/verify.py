"""`jig verify`'s options (`jigcli.commands.verify.run`'s keywords)."""

from __future__ import annotations

from pathlib import Path

from jigcli.certificates.spec import DEFAULT_LANE, LANES
from jigcli.options import (
    ALLOW_NO_NETNS_ENV,
    FORMAT,
    JSON,
    ROOT,
    Command,
    Option,
    read_seconds,
)
from jigcli.verify.context import DEFAULT_TIMEOUT_SEC

STATEMENT: Option[str | None] = Option(
    "--statement", "statement_id", None, "Refuse unless the manifest names this id.", read=str
)
OUT: Option[Path | None] = Option(
    "--out",
    "out",
    None,
    "Also write the verdict to this file (with several manifests: to a file per manifest in "
    "this folder).",
    read=Path,
)
TIMEOUT = Option(
    "--timeout", "timeout", DEFAULT_TIMEOUT_SEC, "Total wall budget in seconds.", read=read_seconds
)
LANE = Option(
    "--lane", "lane", DEFAULT_LANE, f"Certificate resource lane: {' or '.join(LANES)}.", read=str
)
ALLOW_NO_NETNS = Option(
    "--allow-no-netns",
    "allow_no_netns",
    False,
    "Where no sandbox works, run certificate checkers and Lean builds without one "
    "(local development only; the verdict records isolation: none).",
    envvar=ALLOW_NO_NETNS_ENV,
)


def read_jobs(text: str) -> int | None:
    """A number of parallel verifications, as typer reads one with `min=1`."""
    return int(text) if text.isdigit() and int(text) >= 1 else None


JOBS: Option[int | None] = Option(
    "--jobs", "jobs", None, "Verifications at once (default: the CPUs here).", read=read_jobs
)

VERIFY = Command(
    "verify",
    "manifest",
    (STATEMENT, OUT, JSON, FORMAT, TIMEOUT, LANE, ALLOW_NO_NETNS, JOBS, ROOT),
    several=True,
)
