"""`jig lean-check FILE.tex|FILE.lean [--json] [--watch] [--graph FILE]`: the `lean` verifier,
per statement (`jigcli.paper.lean_check`).

One line per statement (`path:line: <mark> <Kind number> · <words>`), after any missing input,
any lakefile field read as Lake's default, then the stray `\\lean{…}` and dangling `\\uses`,
the summary and the engine with its evidence. `--json` prints `jigcli.paper.documents`'
document; `--graph FILE` writes the dependency graph (DOT, or JSON for a `.json` name).
`--watch` checks again each time the paper's sources or its Lean files settle; Ctrl-C ends it,
with the last check's exit code. Exit 0 only when every statement is ok.
"""

from __future__ import annotations

from pathlib import Path

from jigcli.console import emit_json, err, out, say_error, shown_path
from jigcli.errors import UsageError
from jigcli.latex.statements.model import missing_words
from jigcli.paper.documents import lean_check_json, write_graph
from jigcli.paper.lean_check import Report, check, watched_files


def run(file: Path, *, as_json: bool, watch: bool, graph: Path | None = None) -> int:
    if watch and as_json:
        raise UsageError("--watch reports for people as you edit; drop --json or --watch.")
    if watch:
        return _watch(file, graph)
    report = check(file)
    _show(report, as_json)
    if graph is not None:
        write_graph(report, graph)
    return 0 if report.ok else 1


def _show(report: Report, as_json: bool) -> None:
    for note in report.notes:
        say_error(note)
    if as_json:
        emit_json(lean_check_json(report))
        return
    from jigcli.verifiers.render import escape, heading, mark, result_line

    console = out()
    for place in report.missing:
        console.print(
            result_line(shown_path(place.file), place.line, "error", missing_words(place))
        )
    project = report.paper.project
    if project is not None:
        for field in project.guessed:
            words = f"{field} is computed by code: read as Lake's default"
            console.print(result_line(shown_path(project.lakefile), None, "pending", words))
    for row in report.rows:
        statement = row.statement
        words = f"{heading(statement.kind, statement.number, statement.title)} · {row.words}"
        console.print(result_line(shown_path(statement.file), statement.line, row.status, words))
    for place in report.paper.document.stray_lean:
        words = f"\\lean{{{', '.join(place.names)}}} is outside every statement: nothing checks it"
        console.print(result_line(shown_path(place.file), place.line, "warn", words))
    for statement, label, place in report.paper.document.dangling_uses():
        title = heading(statement.kind, statement.number, statement.title)
        words = f"{title} uses {label}, which no \\label defines"
        console.print(result_line(shown_path(place.file), place.line, "warn", words))
    console.print(f"{mark(report.worst_status)} {escape(report.summary)}")
    if report.engine:
        shown = ", ".join(shown_path(path) for path in report.evidence)
        console.print(escape(report.engine) + (f" [dim](see {escape(shown)})[/]" if shown else ""))


def _watch(file: Path, graph: Path | None) -> int:
    """Check, then check again each time the paper's sources or its Lean files settle
    (`jigcli.watch`)."""
    from jigcli.watch import Checked, check_on_every_edit

    latest: list[Report] = []  # the last report: what the next check depends on

    def recheck(first: bool) -> Checked:
        if not first:
            err().print("Re-checking…", style="dim")
        report = check(file)
        latest[:] = [report]
        return Checked(0 if report.ok else 1, lambda: _show_and_graph(report, graph))

    return check_on_every_edit(recheck, lambda: watched_files(latest[0]))


def _show_and_graph(report: Report, graph: Path | None) -> None:
    _show(report, as_json=False)
    if graph is not None:
        write_graph(report, graph)
