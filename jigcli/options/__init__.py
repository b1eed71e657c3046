"""The options of the commands `jig` can start without typer, declared once.

An `Option` says how it is written (`flag`), the keyword it becomes in the command's `run`,
its default, its help, the environment variable that can set it, and how its value is read
(`read`; a flag has none). `jigcli.cli` declares its typer options from these tables and
`jigcli.fastpath` parses argv by walking them; `tests/test_options.py` holds typer's view of
each command to the table's.

- this module: `Option`, `Command`, what several commands share (`ROOT`, `JSON`, the
  `JIG_ALLOW_NO_NETNS` switch, the least number of seconds a budget may be);
- `compile`: `jig compile`'s table;
- `verify`: `jig verify`'s table. Its default timeout and its lanes live beside the pipelines
  (`jigcli.verify.context`, `jigcli.certificates.spec`), which `jig compile` need not import,
  hence a module of its own.

Nothing here imports typer, rich or pydantic: that is the point of the fast path.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, NamedTuple, TypeVar

T = TypeVar("T")

# Does what `--allow-no-netns` does when set to 1, true, yes, on, y or t (any case); 0, false,
# no, off, n, f or empty leave it off; any other value is a usage error. typer reads it.
ALLOW_NO_NETNS_ENV = "JIG_ALLOW_NO_NETNS"
# The shortest wall budget (`--timeout`, `--budget`) jig accepts, in seconds.
MIN_SECONDS = 1


class Option(NamedTuple, Generic[T]):
    """One command-line option. `read` turns its text into the value typer would pass, or
    None where typer would refuse it or its rules are too subtle to copy; None as `read`
    makes it a flag."""

    flag: str
    keyword: str
    default: T
    help: str
    read: Callable[[str], T | None] | None = None
    envvar: str | None = None

    @property
    def takes_value(self) -> bool:
        return self.read is not None


class Command(NamedTuple):
    """A command with one positional argument (which becomes `argument`) and its options;
    `several`: typer takes one or more of the argument and passes them as a list."""

    name: str
    argument: str
    options: tuple[Option[Any], ...]
    several: bool = False


def read_seconds(text: str) -> float | None:
    """A budget in seconds, as typer reads one with `min=MIN_SECONDS` and a finite check."""
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= MIN_SECONDS else None


ROOT: Option[Path | None] = Option(
    "--root", "root", None, "The verifier repo's root (default: found by walking up).", read=Path
)
JSON = Option("--json", "as_json", False, "Print exactly one JSON document.")
FORMAT: Option[str | None] = Option(
    "--format",
    "output_format",
    None,
    "text, or github: the text, then one ::error annotation per finding (the default when "
    "GITHUB_ACTIONS is true).",
    read=str,
)
