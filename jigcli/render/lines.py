"""One rendering kit for every command: a status mark, verdict words, one line per place.

Per the contract's colours (§5): filled marks for ok / warn / error, hollow for conditional
and pending; green, orange, red, stone. The words are always printed next to the mark, so no
meaning rests on colour (which rich drops when stdout is not a TTY or `NO_COLOR` is set).

Words come from the registry in the verifier's own voice (`verdict_words`, `failure_words`),
never from a string a command keeps for itself, and every result names its evidence.
"""

from __future__ import annotations

import re

from jigcli.display import one_line
from jigcli.verifiers.contract import STATUSES, Why
from jigcli.verifiers.registry import failure_words

MARKS = {"ok": "●", "conditional": "○", "warn": "●", "error": "●", "pending": "○"}
COLOURS = {
    "ok": "green",
    "conditional": "green",
    "warn": "dark_orange",
    "error": "red",
    "pending": "grey50",
}
assert set(MARKS) == set(COLOURS) == set(STATUSES)


# rich's markup tags (`rich.markup.RE_TAGS`) and its escaping of text that would read as one,
# kept here so that building a line never imports rich: a command that prints plain text (no
# terminal) starts without it.
_TAG_LIKE = re.compile(r"(\\*)(\[[a-z#/@][^[]*?])")


def escape(text: str) -> str:
    """`text` as rich markup that shows it verbatim (what `rich.markup.escape` returns)."""
    escaped = _TAG_LIKE.sub(lambda m: f"{m.group(1)}{m.group(1)}\\{m.group(2)}", text)
    if escaped.endswith("\\") and not escaped.endswith("\\\\"):
        return escaped + "\\"
    return escaped


def mark(status: str) -> str:
    """The status mark as rich markup (a coloured dot or ring)."""
    return f"[{COLOURS[status]}]{MARKS[status]}[/]"


def place(path: str, line: int | None) -> str:
    """`path:line:` for editors to jump to; `path:` when the line is unknown."""
    return f"{path}:{line}:" if line is not None else f"{path}:"


def heading(kind: str, number: str | None, title: str | None) -> str:
    """A statement as the PDF names it: `Theorem 2.1 (Main)`."""
    head = f"{kind.capitalize()} {number or ''}".strip()
    return f"{head} ({title})" if title else head


def result_line(
    path: str, line: int | None, status: str, words: str, *, evidence: str | None = None
) -> str:
    """`path:line: <mark> <words>` as rich markup, the words escaped (markup, and control
    characters a tool may have printed: `jigcli.display`); `(see <evidence>)` after."""
    text = f"{escape(one_line(place(path, line)))} {mark(status)} {escape(one_line(words, 10_000))}"
    if evidence:
        text += f" [dim]{escape(f'(see {evidence})')}[/]"
    return text


def failure_line(
    path: str, verifier: str, why: Why, *, detail: str = "", evidence: str | None = None
) -> str:
    """A run that gave no verdict, in the failure's words: a hollow pending mark when it could
    not answer (not set up, unreachable, too big), a filled error mark when it was refused
    (what it was given is not allowed: that is the user's to fix, not a wait)."""
    words = failure_words(verifier, why, detail=detail)
    status = "error" if why == "refused" else "pending"
    return result_line(path, None, status, words, evidence=evidence)
