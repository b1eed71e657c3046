"""The GitHub job summary: Markdown appended to `$GITHUB_STEP_SUMMARY` when Actions set it.

Shared by `jig verify`, `jig selftest` (its table is built in `jigcli.selftest.report` from
`table`) and the CI fallback script, which runs before jig may be installed — so this module
needs only the standard library. A summary that cannot be written is a warning on stderr, never
a failure.

Everything a tool, a checker, a manifest or a dispatch input said arrives here as data, and is
shown as data: one line (`jigcli.display`: control characters shown escaped, so no newline
starts a line of its own), inside an inline code span (`code`) whose fence is longer than any
backtick run in it, so GitHub's Markdown renders it as the literal text — no heading, link,
image, emphasis or HTML, and nothing that looks like jig's own lines, which are the only text
outside code spans. In a table, pipes are escaped too (`cell`), which GFM undoes inside code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from jigcli.display import one_line
from jigcli.verdict import REASONS

MARKS = {"ok": "✅ ok", "failed": "❌ failed", "not run": "⏭️ not run"}
VERDICT_MARKS = {"green": "✅ green", "red": "❌ red"}


def cell(text: str) -> str:
    """Text that stays inside one table cell: one safe line (`jigcli.display`), pipes
    escaped."""
    return one_line(text).replace("|", "\\|")


def code(text: object) -> str:
    """`text` as an inline code span that renders as exactly that one safe line; nothing for
    nothing. The fence is one backtick longer than the longest run inside, and a space pads
    content that starts or ends with a backtick (or with spaces on both sides, which CommonMark
    would strip), so the text can neither close the span nor lose a character."""
    if text is None or text == "":
        return ""
    shown = one_line(text)
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    edges = shown.startswith("`") or shown.endswith("`")
    pad = " " if edges or (shown.startswith(" ") and shown.endswith(" ")) else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; every cell goes through `cell`."""
    lines = [_row(header), "|" + "---|" * len(header)]
    lines += [_row(row) for row in rows]
    return lines


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell(text) for text in cells) + " |"


def append_step_summary(markdown: Callable[[], str]) -> None:
    """Append what `markdown` renders to `$GITHUB_STEP_SUMMARY`; when it is not set, nothing,
    and nothing is rendered."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8") as summary:
            summary.write(markdown())
    except OSError as error:
        from jigcli.console import say_error

        say_error(
            f"warning: could not append to GITHUB_STEP_SUMMARY ({target}): "
            f"{error.strerror or error}"
        )


def verdict_markdown(document: dict[str, Any]) -> str:
    """One verdict: what was verified and how it ended, then each check and what it said."""
    verdict, reason = str(document.get("verdict")), str(document.get("reason"))
    headline = VERDICT_MARKS.get(verdict, verdict)
    if reason != "ok":
        headline += f" `{reason}`"
    lines = [f"### jig verify — {headline}", ""]
    lines += table(
        ("submission", "statement", "verdict", "reason", "term hash"),
        [
            (
                code(document.get("submission")) or "—",
                code(document.get("statement_id")) or "—",
                verdict,
                reason,
                code(document.get("elaborated_term_hash")) or "—",
            )
        ],
    )
    checks = document.get("checks") or {}
    if checks:
        lines.append("")
        lines += table(
            ("check", "result", "detail"),
            [(name, *_check(check)) for name, check in checks.items()],
        )
    if reason != "ok":
        lines += ["", f"**Why:** {_line(document.get('detail'))}"]
        lines += [f"**Next:** {one_line(REASONS[reason].next) if reason in REASONS else '—'}"]
    return "\n".join(lines) + "\n\n"


def _check(check: dict[str, Any]) -> tuple[str, str]:
    """(result, one-line detail) for a check: ok, failed or not run."""
    ok = check.get("ok")
    if ok is None:
        return MARKS["not run"], _line(str(check.get("detail") or "").removeprefix("not run: "))
    return MARKS["ok" if ok else "failed"], _line(check.get("detail"))


def _line(text: Any) -> str:
    """The first line of a detail as a code span, `…` after it when more follows (a compiler's
    output belongs in the artifact, not here); `—` for nothing."""
    first, _, rest = str(text or "").strip().partition("\n")
    return (code(first) or "—") + (" …" if rest.strip() else "")
