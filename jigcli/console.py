"""Where output goes: human text through rich (colour only on a TTY, `NO_COLOR` honoured,
both decided by rich itself), machine output as exactly one JSON document on stdout, and a
path as a person would type it (`shown_path`), in both.

rich is imported on first use so that `--json` paths and quick commands start light; `show`
prints a line of markup without importing rich at all when stdout is not a terminal (where
rich would print it plain anyway).
"""

from __future__ import annotations

import json
import os
import re
import sys
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console


@cache
def out() -> Console:
    return console(highlight=False, soft_wrap=True, emoji=False)


@cache
def err() -> Console:
    return console(stderr=True, highlight=False, soft_wrap=True, emoji=False)


def stderr_is_terminal() -> bool:
    """What `err().is_terminal` says, without importing rich where it would say no: stderr
    not a terminal and none of the variables that make rich treat it as one. For the typer-
    free `jig verify` batch; commands that go through typer have rich loaded already."""
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):  # replaced by an object without one, or closed
        tty = False
    if not tty and not {"FORCE_COLOR", "TTY_COMPATIBLE"} & set(os.environ):
        return False
    return err().is_terminal


def console(**options: Any) -> Console:
    """A rich Console that outlives a reader going away: rich's own answer to a closed pipe
    (`Console.on_broken_pipe`) is `SystemExit(1)`, the exit code of a red verdict, so
    `jig verify green.json | head -1` would say red. This one stops writing instead, and the
    command ends with its own exit code (its verdict files are written either way)."""
    from rich.console import Console

    class _PipeSafe(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            discard(self.file)

    return _PipeSafe(**options)


def discard(stream: Any) -> None:
    """Send what is still to be written to `stream` (whose reader has gone) nowhere, so that
    neither a later write nor the interpreter's last flush fails."""
    try:
        target = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, target)
    finally:
        os.close(devnull)


def shown_path(path: Path) -> str:
    """`path` as the person would type it: relative to the working directory when it lies
    below it, else as given. Its folder is compared as the system finds it (links resolved),
    its name as written: a link is shown where it stands, not where it leads."""
    here = _resolved(os.getcwd())
    try:
        return (path.parent.resolve() / path.name).relative_to(here).as_posix()
    except ValueError:
        return path.as_posix()


@lru_cache(maxsize=4)
def _resolved(folder: str) -> Path:
    # Resolving the working folder costs a system call per part; a report shows hundreds of
    # paths from one folder (keyed by the folder's name, so a chdir is seen).
    return Path(folder).resolve()


def shown_in_repo(root: Path, relative: str) -> str:
    """A repo-relative path (how verdicts name files) as the person would type it here."""
    return shown_path(root / relative)


def emit_json(document: Any) -> None:
    """Print one JSON document on stdout and nothing else."""
    _write(sys.stdout, json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _write(stream: Any, text: str) -> None:
    """`text` on `stream`, flushed; nothing more once its reader has gone (a closed pipe is
    the reader's choice, not a failure of the command)."""
    try:
        stream.write(text)
        stream.flush()
    except BrokenPipeError:
        discard(stream)


def say_error(message: str) -> None:
    """One line on stderr, `jig: <message>`, never markup-interpreted, its control characters
    (a tool's words inside it) shown escaped."""
    from jigcli.display import one_line

    _write(sys.stderr, f"jig: {one_line(message, 10_000)}\n")


# rich's markup tags, with the backslashes that may escape them (`rich.markup.RE_TAGS`).
_TAGS = re.compile(r"((\\*)\[([a-z#/@][^[]*?)])")


def plain(markup: str) -> str:
    """rich markup as rich prints it without a terminal: tags dropped, escapes undone."""

    def untag(match: re.Match[str]) -> str:
        backslashes, escaped = divmod(len(match.group(2)), 2)
        return "\\" * backslashes + (match.group(1)[len(match.group(2)) :] if escaped else "")

    return _TAGS.sub(untag, markup)


def show(markup: str) -> None:
    """One line of rich markup on stdout: through rich on a terminal, else as plain text."""
    if sys.stdout.isatty():
        out().print(markup)
    else:
        _write(sys.stdout, plain(markup) + "\n")


def hanging(console: Console, markup: str, indent: int) -> None:
    """One line of rich markup; on a terminal narrower than it, wrapped at spaces with every
    continuation line indented by `indent` columns (a word longer than a line is folded), so
    the eye finds where each entry starts. Off a terminal the line stays whole: a log or a
    pipe is read by tools that want one entry per line."""
    if not console.is_terminal:
        console.print(markup)
        return
    for line in hanging_lines(console, markup, indent):
        console.print(line, soft_wrap=True)


def hanging_lines(console: Console, markup: str, indent: int) -> list[Any]:
    """`markup` as rich `Text` lines within `console.width`, continuations indented."""
    from rich.text import Text

    width = console.width
    text = Text.from_markup(markup)
    if text.cell_len <= width:
        return [text]
    indent = min(indent, width // 2)  # a hanging indent that would leave no room is cut
    first = text.wrap(console, width, overflow="fold")[0]
    cut = len(first.plain)
    while cut < len(text.plain) and text.plain[cut] == " ":
        cut += 1
    first.rstrip()
    lines = [first]
    for rest in text[cut:].wrap(console, width - indent, overflow="fold"):
        rest.rstrip()
        lines.append(Text(" " * indent) + rest)
    return lines
