"""One rendering kit for every command: a status mark, verdict words, one line per place.

Per the contract's colours (§5): filled marks for ok / warn / error, hollow for conditional
and pending; green, orange, red, stone. The words are always printed next to the mark, so no
meaning rests on colour (which rich drops when stdout is not a TTY or `NO_COLOR` is set).
"""

from __future__ import annotations

from rich.markup import escape

STATUSES = ("ok", "conditional", "warn", "error", "pending")

MARKS = {"ok": "●", "conditional": "○", "warn": "●", "error": "●", "pending": "○"}
COLOURS = {
    "ok": "green",
    "conditional": "green",
    "warn": "dark_orange",
    "error": "red",
    "pending": "grey50",
}


def mark(status: str) -> str:
    """The status mark as rich markup (a coloured dot or ring)."""
    return f"[{COLOURS[status]}]{MARKS[status]}[/]"


def place(path: str, line: int | None) -> str:
    """`path:line:` for editors to jump to; `path:` when the line is unknown."""
    return f"{path}:{line}:" if line is not None else f"{path}:"


def result_line(path: str, line: int | None, status: str, words: str) -> str:
    """`path:line: <mark> <words>` as rich markup, the words escaped."""
    return f"{escape(place(path, line))} {mark(status)} {escape(words)}"
