"""A blueprint's dependency graph, as leanblueprint's depgraph draws it, written as DOT.

Nodes are the statements whose environment plastexdepgraph's `thms=` option names (by default
definition, lemma, proposition, theorem, corollary: a remark or an example is no node); an
edge runs from what is used to what uses it, dashed when the statement itself `\\uses` it and
solid when its proof does (plastexdepgraph draws the same two kinds), whichever of the used
statement's labels names it. A `\\uses` of a label no node carries (a section, an equation, a
statement of a kind left out, or nothing at all) draws no edge. Each node is filled by its
lean-check status, so the picture is the check, and bordered by what the blueprint claims
(`\\leanok`, `\\mathlibok`), so a claim the check does not bear out shows; a legend says so.
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


# What the fill says, in the legend: the check's status (jig's verdict, not the blueprint's).
_LEGEND_FILL = {
    "ok": "proved",
    "conditional": "proved modulo an open lemma",
    "warn": "not proved yet (sorry)",
    "error": "error, or false",
    "pending": "not checked yet",
}
# The border says what the blueprint itself claims, as leanblueprint's picture does: a green
# border for a statement marked `\\leanok` (formalized), dark green for `\\mathlibok`.
_BORDER = {"mathlibok": "#1B5E20", "leanok": "#2E9E4F", "none": "#606060"}


def claimed(node: dict[str, Any]) -> str:
    """What the blueprint marks the node's statement as: `mathlibok`, `leanok` or `none`."""
    marks = node.get("blueprint") or {}
    if marks.get("mathlibok"):
        return "mathlibok"
    return "leanok" if marks.get("leanok") else "none"


def to_dot(nodes: list[dict[str, Any]], found: list[Edge]) -> str:
    """The graph as DOT: a box for a definition, an ellipse for the rest, filled by status,
    bordered by the blueprint's own mark, with a legend saying so."""
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
            f'fillcolor="{_FILL[node["status"]]}", color="{_BORDER[claimed(node)]}", '
            f'tooltip="{_quoted(node["words"])}"];'
        )
    for edge in found:
        style = "dashed" if edge.by == "statement" else "solid"
        lines.append(f'  "{_quoted(edge.used)}" -> "{_quoted(edge.user)}" [style={style}];')
    lines += _legend()
    lines.append("}")
    return "\n".join(lines) + "\n"


def _legend() -> list[str]:
    """A boxed legend: each fill, each border, each shape and each kind of edge, in words."""
    lines = [
        "  subgraph cluster_legend {",
        '    label="Legend"; fontsize=12; color="#A0A0A0"; rank=sink;',
        '    node [shape=box, fontsize=10, width=2.2, height=0.3, margin="0.08,0.02"];',
        "    edge [minlen=1];",
    ]
    for status, words in _LEGEND_FILL.items():
        lines.append(f'    "legend:{status}" [label="{words}", fillcolor="{_FILL[status]}"];')
    lines += [
        f'    "legend:leanok" [label="border: \\\\leanok in the blueprint", '
        f'fillcolor=white, color="{_BORDER["leanok"]}"];',
        f'    "legend:mathlibok" [label="border: \\\\mathlibok", fillcolor=white, '
        f'color="{_BORDER["mathlibok"]}"];',
        '    "legend:definition" [label="box: a definition; ellipse: the rest", fillcolor=white];',
        '    "legend:a" [label="used", shape=plaintext, style=""];',
        '    "legend:b" [label="statement uses it", shape=plaintext, style=""];',
        '    "legend:c" [label="proof uses it", shape=plaintext, style=""];',
        '    "legend:a" -> "legend:b" [style=dashed];',
        '    "legend:a" -> "legend:c" [style=solid];',
    ]
    order = [*(f"legend:{s}" for s in _LEGEND_FILL), "legend:leanok", "legend:mathlibok"]
    order += ["legend:definition", "legend:a"]
    chain = " -> ".join(f'"{name}"' for name in order)
    lines += [f"    {chain} [style=invis];", "  }"]
    return lines


def _quoted(text: str) -> str:
    """Text inside a DOT double-quoted string: backslashes and quotes escaped, one line."""
    return " ".join(text.replace("\\", "\\\\").replace('"', '\\"').split())
