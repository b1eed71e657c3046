"""`jig compile FILE.tex`: the `compile` verifier on a LaTeX paper.

Builds the paper's root document (shell escape off) and prints one line per diagnostic
(`path:line: <mark> <message>`), then the verdict in the verifier's words with its evidence,
the log. `--json` prints one document:

    {"verifier": "compile", "document", "verdict", "status", "diagnostics": [{"file", "line",
     "severity", "message"}], "engine", "pdf", "log", "evidence"}

plus `"changed"` (the sources that differ) for `stale`, and `"failure": {"why", "words",
"detail"}` with `"verdict": null` when the build could not answer at all (no engine, killed,
out of time) — a failure is never a verdict. A diagnostic's `line` is null only when neither
the log nor the source names one. Exit 0 only for `compiled`.

`--watch` rebuilds on every settled edit of a source the last build read, showing one running
line with a clock (on stderr) and then the result; with `--json` it prints one compact JSON
document per line: `compiling` when a rebuild starts, then its result. Ctrl-C ends it, with the
last result's exit code.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jigcli.console import emit_json, err, out, show, shown_path
from jigcli.errors import UsageError
from jigcli.latex.compile import (
    BuildResult,
    build,
    check,
    choose_engine,
    from_record,
    up_to_date,
)
from jigcli.latex.diagnostic import Diagnostic
from jigcli.latex.root import find_root, source_files
from jigcli.latex.state import load as load_state
from jigcli.latex.state import state_path
from jigcli.verifiers.registry import failure_words, verdict_words, verifier_status

# rich (through jigcli.verifiers.render) is imported only for human output: `--json` on a
# paper that has not changed answers without it.

VERIFIER = "compile"


def run(file: Path, *, as_json: bool, watch: bool, no_build: bool, engine: str | None) -> int:
    if watch and no_build:
        raise UsageError("--watch rebuilds and --no-build never builds; pass one of them.")
    root = find_root(file)
    chosen = choose_engine(root, engine)
    if watch:
        return _watch(root, chosen.engine, as_json=as_json)
    result = check(root, chosen.engine) if no_build else _build(root, chosen.engine)
    result.engine_from = chosen.source
    if as_json:
        emit_json(to_json(result))
    else:
        _print(result)
    return exit_code(result)


def exit_code(result: BuildResult) -> int:
    return 0 if result.verdict == "compiled" else 1


# -- the JSON document -------------------------------------------------------------------------


def _evidence(result: BuildResult) -> Path:
    if result.verdict == "stale":
        record = state_path(result.root)
        return record if record.is_file() else result.root
    return result.log


def to_json(result: BuildResult) -> dict[str, Any]:
    document: dict[str, Any] = {
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
        document["changed"] = result.changed
    if result.failure is not None:
        document["failure"] = {
            "why": result.failure.why,
            "words": failure_words(VERIFIER, result.failure.why),
            "detail": result.failure.detail,
        }
    return document


# -- human output ------------------------------------------------------------------------------

_ORDER = {"error": 0, "warning": 1, "info": 2}


def _print(result: BuildResult) -> None:
    for diagnostic in sorted(result.diagnostics, key=lambda d: _ORDER[d.severity]):
        show(_diagnostic_line(result.root, diagnostic))
    show(_summary_line(result))


def _diagnostic_line(root: Path, diagnostic: Diagnostic) -> str:
    from jigcli.verifiers.render import escape, place, result_line

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
    from jigcli.verifiers.render import failure_line, result_line

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


def _build(root: Path, engine: str) -> BuildResult:
    """The last build's result when nothing changed, else a build with a running line."""
    last = up_to_date(root, engine)
    if last is not None:
        return from_record(root, last)
    with _running_line(root):
        return build(root, engine)


@contextmanager
def _running_line(root: Path) -> Iterator[None]:
    """One line on stderr with a clock while TeX runs (only on a terminal)."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.live import Live
    from rich.text import Text

    from jigcli.verifiers.render import mark

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


# -- --watch -----------------------------------------------------------------------------------


def _watched(root: Path) -> set[Path]:
    """The files whose edit should rebuild: what the last build read, what it missed."""
    files = set(source_files(root))
    last = load_state(root)
    if last is not None:
        files.update(last.project_files())
        for name in last.result.missing_files:
            files.add((root.parent / name.strip('"')).resolve())
            files.add((root.parent / (name.strip('"') + ".tex")).resolve())
    return files


def _emit_line(result: BuildResult) -> None:
    sys.stdout.write(json.dumps(to_json(result), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _watch(root: Path, engine: str, *, as_json: bool) -> int:
    from jigcli.watch import Checked, check_on_every_edit

    def rebuild(first: bool) -> Checked | None:
        if not first and up_to_date(root, engine) is not None:
            return None  # touched, not changed
        if as_json:
            _emit_line(BuildResult(root, engine, "compiling"))
        elif not first:
            out().print(f"[dim]{time.strftime('%H:%M:%S')} · rebuilding[/]")
        result = _build(root, engine)
        return Checked(exit_code(result), lambda: _emit_line(result) if as_json else _print(result))

    return check_on_every_edit(rebuild, lambda: _watched(root))
