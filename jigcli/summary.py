"""The GitHub job summary: Markdown appended to `$GITHUB_STEP_SUMMARY` when Actions set it.

Shared by `jig verify` (one verdict: `verdict_markdown`), `jig selftest` (its table is built
in `jigcli.selftest.report` from `table`) and the CI fallback script, which runs before jig
may be installed — so this module needs only the standard library. Everything a tool said
arrives here as data: one line, its control characters shown escaped (`jigcli.display`).
A summary that cannot be written is a warning on stderr, never a failure.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any

from jigcli.display import one_line

MARKS = {"ok": "✅ ok", "failed": "❌ failed", "not run": "⏭️ not run"}
VERDICT_MARKS = {"green": "✅ green", "red": "❌ red"}


def cell(text: str) -> str:
    """Text that stays inside one table cell: one safe line (`jigcli.display`), pipes
    escaped."""
    return one_line(text).replace("|", "\\|")


def code(text: str | None) -> str:
    """Inline code, or nothing for nothing; a backquote in it cannot end the code span."""
    if not text:
        return ""
    quoted = one_line(text).replace("`", "'")
    return f"`{quoted}`"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """The lines of a Markdown table; every cell goes through `cell`."""
    lines = [_row(header), "|" + "---|" * len(header)]
    lines += [_row(row) for row in rows]
    return lines


def _row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell(text) for text in cells) + " |"


def append_step_summary(markdown: str) -> None:
    """Append `markdown` to `$GITHUB_STEP_SUMMARY`; nothing when it is not set."""
    target = os.environ.get("GITHUB_STEP_SUMMARY")
    if not target:
        return
    try:
        with open(target, "a", encoding="utf-8") as summary:
            summary.write(markdown)
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
                code(document.get("submission")),
                document.get("statement_id") or "—",
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
        lines += [f"**Next:** {_line(document.get('next'))}"]
    return "\n".join(lines) + "\n\n"


def _check(check: dict[str, Any]) -> tuple[str, str]:
    """(result, one-line detail) for a check: ok, failed or not run."""
    detail = _line(check.get("detail"))
    ok = check.get("ok")
    if ok is None:
        return MARKS["not run"], detail.removeprefix("not run: ")
    return MARKS["ok" if ok else "failed"], detail


def _line(text: Any) -> str:
    """The first line of a detail, made safe, `…` when more follows (a compiler's output
    belongs in the artifact, not here)."""
    first, _, rest = str(text or "").strip().partition("\n")
    return one_line(first) + (" …" if rest.strip() else "")
