"""What `jig audit` says: one line per pair for a person (`show`), one JSON document for a
program (`document`), and a pair side by side for a person judging it (`side_by_side`).

The lines: any missing input, one line per pair (`path:line: <mark> label ↔ decl · <words>`),
then the summary, which counts every verdict, worst first, and names the ledger.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from jigcli.console import shown_path
from jigcli.latex.statements.model import missing_words
from jigcli.paper.audit import VERIFIER, Row, Subject, worst_status
from jigcli.paper.ledger import Item
from jigcli.render.lean_check import place_json
from jigcli.verifiers.contract import SEVERITY
from jigcli.verifiers.registry import verdict_words, verifier_status

NOT_COMPARED = "Not compared yet"


def said(row: Row) -> str:
    return NOT_COMPARED if row.verdict == "pending" else verdict_words(VERIFIER, row.verdict)


@dataclass(frozen=True)
class Scope:
    """What `--label`/`--file` asked for (empty: everything), how many pairs the paper has in
    all, and the recorded failures the filter left out."""

    asked: str = ""
    total: int = 0
    hidden_failures: list[Row] = field(default_factory=list)


def summary(rows: list[Row], scope: Scope = Scope()) -> str:
    """`10 pairs: 1 mismatch, 4 not compared yet, 5 faithful`: every verdict, worst first;
    under a filter, first how many of the paper's pairs it matched."""
    if scope.asked and not rows:
        return f"No pair matches {scope.asked} (of {_pairs(scope.total)} in the paper)"
    if not rows:
        return "No statement is paired with a declaration yet"
    matched = f"{len(rows)} of {_pairs(scope.total)} match {scope.asked} · " if scope.asked else ""
    if all(row.current and row.status == "ok" for row in rows):
        return f"{matched}{len(rows)} checked · {verdict_words(VERIFIER, 'faithful')}"
    counts = Counter(row.verdict for row in rows)
    order = sorted(counts, key=lambda v: (SEVERITY.index(verifier_status(VERIFIER, v)), v))
    named = {"pending": NOT_COMPARED.lower()}
    return f"{matched}{_pairs(len(rows))}: " + ", ".join(
        f"{counts[v]} {named.get(v, v)}" for v in order
    )


def _pairs(number: int) -> str:
    return f"{number} pair" if number == 1 else f"{number} pairs"


def hidden_words(scope: Scope) -> str | None:
    """The recorded failures outside the filter, which still fail the run."""
    if not scope.hidden_failures:
        return None
    names = ", ".join(row.label or row.decl or "?" for row in scope.hidden_failures)
    count = len(scope.hidden_failures)
    return f"{count} recorded failure{'s' if count > 1 else ''} outside {scope.asked}: {names}"


def show(subject: Subject, rows: list[Row], scope: Scope = Scope()) -> None:
    from jigcli.console import out
    from jigcli.render.lines import escape, mark, result_line

    console = out()
    for place in subject.missing:
        words = f"{missing_words(place)}; the statements it holds are not audited"
        console.print(result_line(shown_path(place.file), place.line, "error", words))
    places = subject.places()
    for row in rows:
        path, line = places.get((row.label, row.decl), (None, None))
        pair = " ↔ ".join(part for part in (row.label, row.decl) if part)
        words = f"{pair} · {said(row)}" + (f": {row.reason}" if row.reason else "")
        console.print(result_line(shown_path(path) if path else "?", line, row.status, words))
    worst = worst_status(rows + scope.hidden_failures)
    console.print(
        f"{mark(worst)} {escape(summary(rows, scope))} [dim]({_ledger_words(subject)})[/]"
    )
    hidden = hidden_words(scope)
    if hidden:
        console.print(f"{mark('error')} {escape(hidden)}")


def _ledger_words(subject: Subject) -> str:
    """Where the judgements are kept; no pointer at a ledger that is not there yet."""
    from jigcli.render.lines import escape

    shown = escape(shown_path(subject.ledger))
    if subject.ledger.exists():
        return f"see {shown}"
    return f"no judgements kept yet: jig audit --review writes {shown}"


def document(
    subject: Subject, rows: list[Row], scope: Scope = Scope(), *, exit_code: int
) -> dict[str, Any]:
    """`jig audit --json`: the worst status of every pair (those outside a filter included)
    and the exit code at the top, so a program need not derive them."""
    return {
        "verifier": VERIFIER,
        "status": worst_status(rows + scope.hidden_failures),
        "exit_code": exit_code,
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
        "summary": summary(rows, scope),
        "filter": scope.asked or None,
        "failures_outside_filter": [
            {"label": row.label, "decl": row.decl, "verdict": row.verdict}
            for row in scope.hidden_failures
        ],
    }


def side_by_side(item: Item) -> None:
    """The statement and the declaration in two columns, each headed by where it is."""
    from rich.syntax import Syntax
    from rich.table import Table
    from rich.text import Text

    from jigcli.console import out
    from jigcli.render.lines import heading

    table = Table(expand=True, show_lines=False)
    paper_side = heading(item.kind, item.number, item.title)
    if item.tex_file is not None:
        paper_side += f" · {shown_path(item.tex_file)}:{item.tex_line}"
    lean_side = f"{item.decl}"
    if item.lean_file is not None:
        lean_side += f" · {shown_path(item.lean_file)}:{item.lean_line}"
    table.add_column(Text(paper_side), ratio=1)  # the paper's words: never read as markup
    table.add_column(Text(lean_side), ratio=1)
    lean_text = item.declaration or "(declared outside this file)"
    table.add_row(
        Text(item.statement or ""), Syntax(lean_text, "lean", word_wrap=True, theme="ansi_dark")
    )
    out().print(table)
