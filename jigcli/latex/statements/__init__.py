"""The statements a paper's PDF shows, read from its LaTeX source, numbered as LaTeX numbers them.

1. Mask each file (`masking`): comments, skipped conditionals and verbatim blocks blanked,
   offsets and line numbers true.
2. Walk the root document and the files it `\\input`s / `\\include`s in reading order
   (`walker`), one shared set of LaTeX counters across them (`counters`), the paper's own
   macros expanded where they declare theorems or counters; an `\\input` found nowhere is
   `missing`.
3. Every numbered theorem-like environment is a statement (`model`): kind (the environment),
   number, optional title (`\\texorpdfstring` read as the PDF typesets it), label, file and
   line range, its text (comments and blueprint metadata removed), and the blueprint's data
   (`marks`: leanblueprint's `\\lean{A, B}`, `\\uses{…}`, `\\leanok`, `\\mathlibok`,
   `\\notready`, `\\discussion{N}`), with its proof's, which brings its own `\\leanok` and
   `\\uses`. A theorem's `\\item[(a)]` parts are the theorem; an `\\item` outside every
   theorem-like environment is prose, never a statement. A `\\lean{…}` outside every
   statement and proof names nothing anyone can check: it is kept as `stray_lean`. A proof
   never closed is read as ending where the first theorem-like environment inside it begins
   (else at its file's end), and a brace that never balances inside a statement is read past;
   each is a `notice` at the line that opened it.
4. The dependency graph's node kinds: plastexdepgraph's `thms=a+b` option, given to
   `\\usepackage[…]{blueprint}` (in the root, else in a `web.tex` beside it), else its default
   kinds.
5. When an up-to-date `.aux` exists (newer than every source read), the numbers LaTeX wrote
   there for the statements' labels win over the computed ones (`auxfile`).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from jigcli.latex.root import resolve_inclusion
from jigcli.latex.statements.auxfile import aux_is_current, aux_numbers
from jigcli.latex.statements.model import DEFAULT_GRAPH_KINDS, Document, Place
from jigcli.latex.statements.walker import InputResolver, Walker


def read_statements(
    root: Path, *, aux: Path | None = None, resolve: InputResolver = resolve_inclusion
) -> Document:
    """Every statement of the paper whose root document is `root`, in reading order."""
    root = root.resolve()
    walker = Walker(root, resolve)
    walker.walk(root)
    statements = walker.statements()
    aux_path = aux if aux is not None else root.with_suffix(".aux")
    by_aux = aux_is_current(aux_path, walker.read)
    if by_aux:
        numbers = aux_numbers(aux_path)
        statements = [
            replace(s, number=numbers[s.label]) if s.label in numbers else s for s in statements
        ]
    kinds, place = walker.graph_kinds, walker.graph_kinds_place
    if kinds is None:
        kinds, place = _web_graph_kinds(root)
    return Document(
        root,
        tuple(statements),
        tuple(walker.read),
        by_aux,
        frozenset(walker.labels),
        tuple(walker.missing),
        tuple(walker.stray_lean),
        tuple(sorted(walker.notices, key=lambda n: (walker.read.index(n.file), n.line))),
        kinds or DEFAULT_GRAPH_KINDS,
        place,
    )


def _web_graph_kinds(root: Path) -> tuple[tuple[str, ...] | None, Place | None]:
    """A leanblueprint's `thms=` option, written in `web.tex` (what plasTeX reads) beside
    `print.tex` (what LaTeX reads, which loads no blueprint package)."""
    web = root.with_name("web.tex")
    if web == root or not web.is_file():
        return None, None
    walker = Walker(web, lambda command, name, holder, base: None)
    source = walker.load(web)
    for found in re.finditer(r"\\usepackage(?![A-Za-z@])", source.masked.structural):
        walker.usepackage(source, False, found.start(), found.end())
    return walker.graph_kinds, walker.graph_kinds_place
