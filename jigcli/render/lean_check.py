"""What `jig lean-check` says: one line per statement for a person (`show`), one JSON document
for a program (`document`), and the dependency graph (`write_graph`).

The lines: any missing input, any lakefile field read as Lake's default, one line per
statement (`path:line: <mark> <Kind number> · <words>`), what the reader read past (an unclosed
proof, an unbalanced brace), the stray `\\lean{…}` and the dangling `\\uses`, then the
summary and the engine with its evidence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jigcli.console import shown_path
from jigcli.errors import UsageError
from jigcli.latex.statements.model import Place, Statement, missing_words
from jigcli.paper.lean_answers import VERIFIER, Outcome
from jigcli.paper.lean_check import Report, Row, worst
from jigcli.paper.pairing import Pair
from jigcli.verifiers.registry import failure_words, verdict_words

# -- words ---------------------------------------------------------------------------------


def detail(outcome: Outcome) -> str:
    """What an outcome adds to its verdict's words: its detail, or why Lean gave none."""
    if outcome.why is not None:
        return failure_words(VERIFIER, outcome.why)
    return outcome.detail


def words(outcome: Outcome) -> str:
    said = verdict_words(VERIFIER, outcome.verdict)
    added = detail(outcome)
    return f"{said}: {added}" if added else said


def summary(report: Report) -> str:
    """ "Proved · 4 checked", "Not proved yet · 1 of 4", or why nothing could be said."""
    missing = report.missing
    rows = report.rows
    if missing:
        names = ", ".join(n for place in missing for n in place.names)
        return (
            f"{len(missing)} LaTeX input(s) missing ({names}): the statements they hold are unknown"
        )
    if not rows:
        return f"No statements found in {report.paper.tex.name}"
    if report.not_set_up is not None:
        return f"Lean isn't set up here yet: {report.not_set_up}."
    if all(row.status == "ok" for row in rows):
        assumed = sum(row.outcome.verdict == "assumed" for row in rows)
        said = f"{verdict_words(VERIFIER, 'proved')} · {len(rows)} checked"
        return f"{said} · {assumed} assumed" if assumed else said
    worst_one = worst(row.outcome for row in rows)
    count = sum(row.outcome.verdict == worst_one.verdict for row in rows)
    return f"{verdict_words(VERIFIER, worst_one.verdict)} · {count} of {len(rows)}"


def located_words(report: Report) -> str | None:
    """Where the blueprint's names were found, in a project: "Lean names: 5 in the project,
    1 only in a package it requires, 3 in no source here (A, B, C)"; None outside a project."""
    if report.paper.project is None:
        return None
    found: dict[str, str] = {}
    for row in report.rows:
        for pair, _ in row.decls:
            if pair.found != "sibling":
                found.setdefault(pair.decl_name, pair.found)
    if not found:
        return None
    counts = {kind: sum(f == kind for f in found.values()) for kind in _LOCATED}
    parts = [f"{n} {_LOCATED[kind]}" for kind, n in counts.items() if n]
    nowhere = [name for name, kind in found.items() if kind == "nowhere"]
    if nowhere:
        shown = ", ".join(nowhere[:5]) + (
            f" and {len(nowhere) - 5} more" if len(nowhere) > 5 else ""
        )
        parts[-1] += f" ({shown}: Lean's core, a package not fetched, or a typo)"
    return "Lean names: " + ", ".join(parts)


_LOCATED = {
    "project": "in the project",
    "dependency": "only in a package it requires",
    "nowhere": "in no source here",
}


# -- for a person --------------------------------------------------------------------------


def show(report: Report) -> None:
    from jigcli.console import out
    from jigcli.render.lines import escape, heading, mark, result_line

    console = out()
    for place in report.missing:
        where = shown_path(place.file)
        console.print(result_line(where, place.line, "error", missing_words(place)))
    project = report.paper.project
    if project is not None:
        for field in project.guessed:
            said = f"{field} is computed by code: read as Lake's default"
            console.print(result_line(shown_path(project.lakefile), None, "pending", said))
    for row in report.rows:
        statement = row.statement
        title = heading(statement.kind, statement.number, statement.title)
        said = f"{title} · {words(row.outcome)}"
        console.print(result_line(shown_path(statement.file), statement.line, row.status, said))
    for notice in report.paper.document.notices:
        console.print(result_line(shown_path(notice.file), notice.line, "warn", notice.message))
    for place in report.paper.document.stray_lean:
        said = f"\\lean{{{', '.join(place.names)}}} is outside every statement: nothing checks it"
        console.print(result_line(shown_path(place.file), place.line, "warn", said))
    for statement, label, place in report.paper.document.dangling_uses():
        title = heading(statement.kind, statement.number, statement.title)
        said = f"{title} uses {label}, which no \\label defines"
        console.print(result_line(shown_path(place.file), place.line, "warn", said))
    located = located_words(report)
    if located:
        console.print(f"[dim]{escape(located)}[/]")
    console.print(f"{mark(report.worst_status)} {escape(summary(report))}")
    if report.engine:
        shown = ", ".join(shown_path(path) for path in report.evidence)
        console.print(escape(report.engine) + (f" [dim](see {escape(shown)})[/]" if shown else ""))


# -- for a program -------------------------------------------------------------------------


def document(report: Report) -> dict[str, Any]:
    """`jig lean-check --json`: the worst status of every statement and the exit code at the
    top, so a program need not derive them."""
    paper = report.paper
    project = paper.project
    return {
        "verifier": VERIFIER,
        "status": report.worst_status,
        "exit_code": report.exit_code,
        "document": shown_path(paper.tex),
        "lean_file": shown_path(paper.lean) if paper.lean else None,
        "project": None
        if project is None
        else {
            "root": shown_path(project.root),
            "libraries": [lib.name for lib in project.libs],
            "defaults_assumed": list(project.guessed),
        },
        "statements": [_statement_json(row) for row in report.rows],
        "missing_inputs": [place_json(p) for p in report.missing],
        "stray_lean": [place_json(p) for p in paper.document.stray_lean],
        "notices": [
            {"file": shown_path(n.file), "line": n.line, "message": n.message}
            for n in paper.document.notices
        ],
        "graph_kinds": {
            "kinds": list(paper.document.graph_kinds),
            "from": place_json(kinds_place)
            if (kinds_place := paper.document.graph_kinds_place)
            else None,
        },
        "dangling_uses": [
            {"label": s.label, "file": shown_path(place.file), "line": place.line, "uses": label}
            for s, label, place in paper.document.dangling_uses()
        ],
        "summary": summary(report),
        "engine": report.engine,
        "evidence": [shown_path(path) for path in report.evidence],
    }


def _statement_json(row: Row) -> dict[str, Any]:
    statement = row.statement
    return {
        "label": statement.label,
        "labels": list(statement.labels),
        "kind": statement.kind,
        "number": statement.number,
        "title": statement.title,
        "file": shown_path(statement.file),
        "line": statement.line,
        "decl": row.decl,
        "verdict": row.outcome.verdict,
        "status": row.status,
        "words": words(row.outcome),
        "lean": list(statement.lean),
        "uses": list(statement.uses),
        "decls": [_decl_json(pair, outcome) for pair, outcome in row.decls],
        "blueprint": _blueprint_json(statement),
    }


def _blueprint_json(statement: Statement) -> dict[str, Any]:
    marks = statement.blueprint
    proof = marks.proof
    return {
        "leanok": marks.leanok,
        "mathlibok": marks.mathlibok,
        "notready": marks.notready,
        "discussion": marks.discussion,
        "proof": None
        if proof is None
        else {
            "file": shown_path(proof.file),
            "line": proof.line,
            "leanok": proof.leanok,
            "uses": list(proof.uses),
        },
    }


def _decl_json(pair: Pair, outcome: Outcome) -> dict[str, Any]:
    where, decl = pair.where, pair.decl
    return {
        "name": pair.decl_name,
        "file": shown_path(where.path) if where else None,
        "line": decl.keyword_line if decl else None,
        "found": pair.found,
        "verdict": outcome.verdict,
        "status": outcome.status,
        "detail": detail(outcome),
    }


def place_json(place: Place) -> dict[str, Any]:
    return {
        "file": shown_path(place.file),
        "line": place.line,
        "command": place.command,
        "names": list(place.names),
    }


# What `--graph FILE` writes, by FILE's suffix: DOT and JSON by jig, images by Graphviz's `dot`.
GRAPH_FORMATS = {
    ".dot": "dot",
    ".gv": "dot",
    ".json": "json",
    ".svg": "svg",
    ".png": "png",
    ".pdf": "pdf",
}
_DRAWN = {"svg", "png", "pdf"}


def graph_format(path: Path) -> str:
    """The format `--graph path` asks for, checked before any work: a known suffix, a folder
    that exists, and Graphviz's `dot` on PATH for an image. `UsageError` says what to do."""
    import shutil

    wanted = GRAPH_FORMATS.get(path.suffix.lower())
    if wanted is None:
        suffixes = ", ".join(GRAPH_FORMATS)
        raise UsageError(f"--graph {path}: name the file with one of {suffixes}.")
    if wanted in _DRAWN and shutil.which("dot") is None:
        raise UsageError(
            f"--graph {path}: drawing {wanted} needs Graphviz's dot (apt-get install graphviz); "
            f"or write {path.with_suffix('.dot')} and draw it elsewhere."
        )
    if path.is_dir():
        raise UsageError(f"--graph {path} is a folder; pass the path of a file to write.")
    if not path.parent.is_dir():
        raise UsageError(f"--graph {path}: the folder {path.parent} does not exist; create it.")
    return wanted


def write_graph(report: Report, path: Path) -> str:
    """The dependency graph, each node a statement with its verdict, in the format
    `graph_format(path)` names; returns the sentence saying where it went."""
    from jigcli.latex import depgraph

    document = report.paper.document
    kinds = document.graph_kinds
    shown = depgraph.shown(document.statements, kinds)
    nodes = [
        {"id": depgraph.node_id(row.statement), **_statement_json(row)}
        for row in report.rows
        if row.statement.kind in kinds
    ]
    found = depgraph.edges(shown)
    wanted = graph_format(path)
    if wanted == "json":
        _write_text(path, depgraph.to_json(nodes, found, kinds))
    elif wanted == "dot":
        _write_text(path, depgraph.to_dot(nodes, found))
    else:
        _draw(depgraph.to_dot(nodes, found), wanted, path)
    statements = f"{len(nodes)} statement{'s' if len(nodes) != 1 else ''}"
    uses = f"{len(found)} use{'s' if len(found) != 1 else ''}"
    return f"Wrote the dependency graph to {shown_path(path)} ({statements}, {uses})."


def _write_text(path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(
            f"Cannot write the graph to {path} ({error.strerror}); pick another path."
        ) from error


def _draw(dot_text: str, wanted: str, path: Path) -> None:
    """Graphviz's `dot -T<format>` draws the DOT text into `path`."""
    import subprocess

    try:
        drawn = subprocess.run(
            ["dot", f"-T{wanted}", "-o", str(path)],
            input=dot_text.encode("utf-8"),
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise UsageError(
            f"Graphviz's dot could not draw {path} ({error}); write a .dot instead."
        ) from None
    if drawn.returncode != 0:
        said = drawn.stderr.decode("utf-8", "replace").strip().splitlines()
        raise UsageError(
            f"Graphviz's dot could not draw {path} ({said[-1] if said else drawn.returncode}); "
            "write a .dot instead."
        )
