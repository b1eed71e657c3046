"""What `jig compile` says: one line per diagnostic and the verdict for a person (`show`),
one JSON document for a program (`document`, and `json_line` for `--watch --json`), and a
running line with a clock while TeX runs (`running_line`).

rich, and the rendering kit (`jigcli.render.lines`), are imported only for human output:
`--json` on a paper that has not changed answers without them, and plain lines off a terminal
go through `jigcli.console.show` without rich too.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jigcli.console import err, shown_path
from jigcli.console import show as show_line
from jigcli.latex.compile import BuildResult
from jigcli.latex.diagnostic import Diagnostic
from jigcli.latex.state import state_path
from jigcli.verifiers.registry import failure_words, verdict_words, verifier_status

VERIFIER = "compile"

# -- for a program -----------------------------------------------------------------------------


def _evidence(result: BuildResult) -> Path:
    if result.verdict == "stale":
        record = state_path(result.root)
        return record if record.is_file() else result.root
    return result.log


def document(result: BuildResult) -> dict[str, Any]:
    """`jig compile --json`."""
    fields: dict[str, Any] = {
        "verifier": VERIFIER,
        "document": shown_path(result.root),
        "verdict": result.verdict,
        "status": verifier_status(VERIFIER, result.verdict),
        "diagnostics": [d.to_json() for d in result.diagnostics],
        "engine": result.engine_words,
        "engine_from": {"engine": result.engine, "from": result.engine_from or None},
        "pdf": shown_path(result.pdf) if result.pdf else None,
        "log": shown_path(result.log),
        "evidence": shown_path(_evidence(result)),
    }
    if result.verdict == "stale":
        fields["changed"] = result.changed
    if result.failure is not None:
        fields["failure"] = {
            "why": result.failure.why,
            "words": failure_words(VERIFIER, result.failure.why),
            "detail": result.failure.detail,
        }
    return fields


def json_line(result: BuildResult) -> None:
    """The document on one line, flushed: `--watch --json` prints one per build."""
    sys.stdout.write(json.dumps(document(result), ensure_ascii=False) + "\n")
    sys.stdout.flush()


# -- for a person ------------------------------------------------------------------------------

_ORDER = {"error": 0, "warning": 1, "info": 2}


def show(result: BuildResult) -> None:
    for diagnostic in in_reading_order(result.diagnostics):
        show_line(_diagnostic_line(result.root, diagnostic))
    show_line(_summary_line(result))


def in_reading_order(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Errors, then warnings, then notes, each by file and line; a diagnostic TeX repeated
    (the same place, severity and words, as a rerun pass prints it again) said once."""
    unique = list(dict.fromkeys(diagnostics))
    return sorted(unique, key=lambda d: (_ORDER[d.severity], d.file, d.line or 0))


def _diagnostic_line(root: Path, diagnostic: Diagnostic) -> str:
    from jigcli.render.lines import escape, place, result_line

    path = shown_path(root.parent / diagnostic.file)
    if diagnostic.severity == "info":
        note = escape("note: " + diagnostic.message)
        return f"{escape(place(path, diagnostic.line))} [dim]{note}[/]"
    status = verifier_status(VERIFIER, "error" if diagnostic.severity == "error" else "warning")
    # The severity in words too, as compilers print it: a warning and an error share one
    # filled mark, told apart only by colour, which a log or NO_COLOR does not show.
    return result_line(
        path, diagnostic.line, status, f"{diagnostic.severity}: {diagnostic.message}"
    )


def _summary_line(result: BuildResult) -> str:
    from jigcli.render.lines import failure_line, result_line

    document = shown_path(result.root)
    if result.failure is not None:
        evidence = shown_path(result.log) if result.log.is_file() else None
        return failure_line(
            document, VERIFIER, result.failure.why, detail=result.failure.detail, evidence=evidence
        )
    parts = [verdict_words(VERIFIER, result.verdict)]
    if result.verdict == "stale":
        parts.append("changed: " + ", ".join(result.changed))
    else:
        parts += _counts(result.diagnostics)
        if result.engine_words:
            parts.append(f"Built with {result.engine_words}")
        if result.engine_from and result.engine_from != "the default":
            parts.append(f"{result.engine} ({result.engine_from})")
        if not result.started_process:
            parts.append("nothing changed since the last build")
    status = verifier_status(VERIFIER, result.verdict)
    evidence = shown_path(_evidence(result))
    return result_line(document, None, status, " · ".join(parts), evidence=evidence)


def _counts(diagnostics: list[Diagnostic]) -> list[str]:
    counts = []
    for severity, one, many in (
        ("error", "error", "errors"),
        ("warning", "warning", "warnings"),
        ("info", "note", "notes"),
    ):
        n = sum(1 for d in diagnostics if d.severity == severity)
        if n:
            counts.append(f"{n} {one if n == 1 else many}")
    return [", ".join(counts)] if counts else []


@contextmanager
def running_line(root: Path) -> Iterator[None]:
    """One line on stderr with a clock while TeX runs (only on a terminal)."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.live import Live
    from rich.text import Text

    from jigcli.render.lines import mark

    console = err()

    words = verdict_words(VERIFIER, "compiling")
    where = shown_path(root)
    started = time.monotonic()

    class Clock:
        def __rich__(self) -> Text:
            elapsed = time.monotonic() - started
            return Text.from_markup(f"{mark('pending')} {where}: {words} {elapsed:.1f} s")

    with Live(Clock(), console=console, refresh_per_second=8, transient=True):
        yield
