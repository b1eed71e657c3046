"""A blueprint's dependency graph, as leanblueprint's depgraph draws it, written as DOT.

Nodes are the statements whose environment plastexdepgraph's `thms=` option names (by default
definition, lemma, proposition, theorem, corollary: a remark or an example is no node); an
edge runs from what is used to what uses it, dashed when the statement itself `\\uses` it and
solid when its proof does (plastexdepgraph draws the same two kinds), whichever of the used
statement's labels names it. A `\\uses` of a label no node carries (a section, an equation, a
statement of a kind left out, or nothing at all) draws no edge. Each node is coloured by its
lean-check status, so the picture is the check.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from jigcli.latex.statements.model import Statement

# The contract's colours (§5), as graphviz names them.
_FILL = {
    "ok": "#9CEC8B",
    "conditional": "#D5F5CE",
    "warn": "#FFCC80",
    "error": "#F4A3A3",
    "pending": "#E8E8E8",
}


@dataclass(frozen=True)
class Edge:
    used: str  # the node id of what is used
    user: str  # the node id of the statement that uses it
    by: str  # statement | proof


def node_id(statement: Statement) -> str:
    """A statement's node: its label, or its kind and number when it has none."""
    return statement.label or f"{statement.kind}-{statement.number}"


def shown(statements: Sequence[Statement], kinds: Sequence[str]) -> list[Statement]:
    """The statements the graph shows: those whose environment is one of `kinds`
    (plastexdepgraph's `thms=` option, or its default)."""
    return [s for s in statements if s.kind in kinds]


def edges(statements: Sequence[Statement]) -> list[Edge]:
    """Every `\\uses` between two of `statements`, by any of the used statement's labels."""
    ids = {label: node_id(s) for s in statements for label in s.labels or (s.label,) if label}
    found: list[Edge] = []
    for statement in statements:
        proof = statement.blueprint.proof
        for by, uses in (("statement", statement.uses), ("proof", proof.uses if proof else ())):
            found += [Edge(ids[label], node_id(statement), by) for label in uses if label in ids]
    return list(dict.fromkeys(found))


def to_json(nodes: list[dict[str, Any]], found: list[Edge], kinds: Sequence[str]) -> str:
    """The graph as JSON: the kinds it shows, the nodes as lean-check's `--json` lists its
    statements, then the edges."""
    document = {
        "kinds": list(kinds),
        "nodes": nodes,
        "edges": [{"from": e.used, "to": e.user, "by": e.by} for e in found],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def to_dot(nodes: list[dict[str, Any]], found: list[Edge]) -> str:
    """The graph as DOT: a box for a definition, an ellipse for the rest, filled by status."""
    lines = [
        "digraph blueprint {",
        "  node [style=filled, penwidth=1.8];",
        "  edge [arrowhead=vee];",
    ]
    for node in nodes:
        heading = f"{node['kind'].capitalize()} {node['number'] or ''}".strip()
        shape = "box" if node["kind"].startswith("def") else "ellipse"
        text = f"{heading}\\n{_quoted(node['id'])}"
        lines.append(
            f'  "{_quoted(node["id"])}" [label="{text}", shape={shape}, '
            f'fillcolor="{_FILL[node["status"]]}", tooltip="{_quoted(node["words"])}"];'
        )
    for edge in found:
        style = "dashed" if edge.by == "statement" else "solid"
        lines.append(f'  "{_quoted(edge.used)}" -> "{_quoted(edge.user)}" [style={style}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _quoted(text: str) -> str:
    """Text inside a DOT double-quoted string: backslashes and quotes escaped, one line."""
    return " ".join(text.replace("\\", "\\\\").replace('"', '\\"').split())
