"""The JSON documents of the paper verifiers (`jig lean-check --json`, `jig audit --json`) and
the dependency graph `jig lean-check --graph FILE` writes. Paths are shown as the person would
type them (`jigcli.console.shown_path`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from jigcli.console import shown_path
from jigcli.errors import UsageError

if TYPE_CHECKING:
    from jigcli.latex.statements.model import Place, Statement
    from jigcli.paper.audit import Row, Subject
    from jigcli.paper.lean_check import Report
    from jigcli.paper.lean_check import Row as LeanRow
    from jigcli.paper.lean_runs import Outcome
    from jigcli.paper.pairing import Pair


# -- jig lean-check ------------------------------------------------------------------------


def lean_check_json(report: Report) -> dict[str, Any]:
    paper = report.paper
    project = paper.project
    return {
        "verifier": "lean",
        "document": shown_path(paper.tex),
        "lean_file": shown_path(paper.lean) if paper.lean else None,
        "project": None
        if project is None
        else {
            "root": shown_path(project.root),
            "libraries": [lib.name for lib in project.libs],
            "defaults_assumed": list(project.guessed),
        },
        "statements": [statement_json(row) for row in report.rows],
        "missing_inputs": [place_json(p) for p in report.missing],
        "stray_lean": [place_json(p) for p in paper.document.stray_lean],
        "dangling_uses": [
            {"label": s.label, "file": shown_path(place.file), "line": place.line, "uses": label}
            for s, label, place in paper.document.dangling_uses()
        ],
        "summary": report.summary,
        "engine": report.engine,
        "evidence": [shown_path(path) for path in report.evidence],
    }


def statement_json(row: LeanRow) -> dict[str, Any]:
    statement = row.statement
    return {
        "label": statement.label,
        "kind": statement.kind,
        "number": statement.number,
        "title": statement.title,
        "file": shown_path(statement.file),
        "line": statement.line,
        "decl": row.decl,
        "verdict": row.outcome.verdict,
        "status": row.status,
        "words": row.words,
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
        "verdict": outcome.verdict,
        "status": outcome.status,
        "detail": outcome.detail,
    }


def place_json(place: Place) -> dict[str, Any]:
    return {
        "file": shown_path(place.file),
        "line": place.line,
        "command": place.command,
        "names": list(place.names),
    }


def write_graph(report: Report, path: Path) -> None:
    """The dependency graph: JSON for a `.json` name, DOT otherwise."""
    from jigcli.latex import depgraph

    nodes = [{"id": depgraph.node_id(row.statement), **statement_json(row)} for row in report.rows]
    found = depgraph.edges(report.paper.document.statements)
    text = (
        depgraph.to_json(nodes, found) if path.suffix == ".json" else depgraph.to_dot(nodes, found)
    )
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(
            f"Cannot write the graph to {path} ({error.strerror}); pick another path."
        ) from error


# -- jig audit -------------------------------------------------------------------------------


def audit_json(subject: Subject, rows: list[Row], summary: str) -> dict[str, Any]:
    return {
        "verifier": "audit",
        "ledger": shown_path(subject.ledger),
        "pairs": [
            {
                "label": row.label,
                "decl": row.decl,
                "verdict": row.verdict,
                "status": row.status,
                "current": row.current,
                "reason": row.reason,
            }
            for row in rows
        ],
        "missing_inputs": [place_json(p) for p in subject.missing],
        "summary": summary,
    }
