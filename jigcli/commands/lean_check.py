"""`jig lean-check FILE.tex|FILE.lean [--json] [--watch] [--graph FILE]`: the `lean` verifier,
per statement (`jigcli.paper.lean_check`).

One line per statement, `--json` one document (`jigcli.render.lean_check` says what each
holds); `--graph FILE` writes the dependency graph, with a legend: DOT (`.dot`, `.gv`), JSON
(`.json`), or an image drawn by Graphviz's `dot` (`.svg`, `.png`, `.pdf`), and says where.
`--watch` checks again each time the paper's sources or its Lean files settle; Ctrl-C ends it,
with the last check's exit code. Exit 0 only when every statement is ok; 4 when Lean is not
set up here and nothing else is wrong ("not checked here"); 1 otherwise.
"""

from __future__ import annotations

import sys
from pathlib import Path

from rich.markup import escape

from jigcli.console import emit_json, say_error, show
from jigcli.errors import UsageError
from jigcli.paper.lean_check import Report, check, watched_files
from jigcli.render import lean_check as render


def run(file: Path, *, as_json: bool, watch: bool, graph: Path | None = None) -> int:
    if watch and as_json:
        raise UsageError("--watch reports for people as you edit; drop --json or --watch.")
    if graph is not None:
        render.graph_format(graph)  # a bad --graph is refused before the check, not after it
    if watch:
        return _watch(file, graph)
    report = check(file)
    _show(report, as_json)
    if graph is not None:
        _say_where(render.write_graph(report, graph), as_json)
    return report.exit_code


def _say_where(sentence: str, as_json: bool) -> None:
    """Where the graph went: on stdout for a person, on stderr beside `--json` (whose stdout
    is the one document)."""
    if as_json:
        print(sentence, file=sys.stderr)
    else:
        show(escape(sentence))


def _show(report: Report, as_json: bool) -> None:
    for note in report.notes:
        say_error(note)
    if as_json:
        emit_json(render.document(report))
    else:
        render.show(report)


def _watch(file: Path, graph: Path | None) -> int:
    """Check, then check again each time the paper's sources or its Lean files settle
    (`jigcli.watch`)."""
    from jigcli.watch import Checked, announce, check_on_every_edit

    latest: list[Report] = []  # the last report: what the next check depends on

    def recheck(first: bool) -> Checked:
        if not first:
            announce("re-checking")
        report = check(file)
        latest[:] = [report]
        return Checked(report.exit_code, lambda: _show_and_graph(report, graph))

    return check_on_every_edit(recheck, lambda: watched_files(latest[0]))


def _show_and_graph(report: Report, graph: Path | None) -> None:
    _show(report, as_json=False)
    if graph is not None:
        _say_where(render.write_graph(report, graph), as_json=False)
