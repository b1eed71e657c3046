"""`--format github`: findings as GitHub Actions annotations, `::error file=…,line=…::…`.

GitHub turns such a line in a step's log into an annotation on the pull request's diff, as it
does ruff's and mypy's. jig prints its usual text, then one annotation per finding. It is the
default when `GITHUB_ACTIONS` is `true` and no `--format` is given; `--json` prints its one
document and no annotation.

A workflow command is any log line that starts with `::`, so a checker, a compiler or a
manifest that jig quotes could otherwise set outputs, mask values or forge annotations. While
the command runs, workflow commands are switched off with `::stop-commands::TOKEN`, the token
random and printed by nothing else, and switched back on with `::TOKEN::` just before jig's own
annotations. Inside an annotation, untrusted text is one line (`jigcli.display.one_line`) with
`%`, CR and LF escaped as the runner expects (and `:` and `,` too in a property), so it cannot
end the command or start another. Format from actions/toolkit's `packages/core/src/command.ts`
(`escapeData`, `escapeProperty`) and the workflow-commands documentation.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple

from jigcli.display import one_line
from jigcli.errors import UsageError

TEXT, GITHUB = "text", "github"
FORMATS = (TEXT, GITHUB)
LEVELS = ("error", "warning", "notice")
MESSAGE_LIMIT = 1000  # characters of one annotation's message


def chosen(requested: str | None) -> str:
    """The format to print in: the one asked for, else `github` under GitHub Actions."""
    if requested is None:
        return GITHUB if os.environ.get("GITHUB_ACTIONS") == "true" else TEXT
    if requested not in FORMATS:
        raise UsageError(f"--format {requested!r} is not a format; use text or github.")
    return requested


class Annotation(NamedTuple):
    """One finding: where (a repo-relative file and line, when known) and what."""

    path: str | None
    line: int | None
    message: str
    level: str = "error"
    title: str = "jig"

    def command(self) -> str:
        properties = [f"title={escape_property(self.title)}"]
        if self.path:
            properties.insert(0, f"file={escape_property(self.path)}")
            if self.line is not None and self.line > 0:
                properties.insert(1, f"line={self.line}")
        message = escape_data(one_line(self.message, limit=MESSAGE_LIMIT))
        return f"::{self.level} {','.join(properties)}::{message}"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(one_line(text)).replace(":", "%3A").replace(",", "%2C")


@contextmanager
def annotating(output_format: str, *, as_json: bool = False) -> Iterator[list[Annotation]]:
    """Collect a command's annotations while it prints; in the github format, with workflow
    commands switched off until it is done, then print them. A command that fails part-way
    still switches them back on."""
    annotations: list[Annotation] = []
    if output_format != GITHUB or as_json:
        yield annotations
        return
    token = os.urandom(16).hex()  # what secrets.token_hex does, without its imports
    _say(f"::stop-commands::{token}")
    try:
        yield annotations
    finally:
        _say(f"::{token}::")
        for annotation in annotations:
            _say(annotation.command())


def _say(line: str) -> None:
    sys.stderr.flush()
    print(line, flush=True)
