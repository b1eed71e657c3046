"""What a paper states, as jig reads it: its numbered statements with their blueprint marks,
and the places (a missing input, a stray `\\lean{…}`, a dangling `\\uses`) worth naming."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jigcli.latex.root import outside_folder

_MAX_STATEMENT_LINES = 200  # how far a statement's `\\uses` is looked for


@dataclass(frozen=True)
class Proof:
    """A statement's proof, as the blueprint sees it."""

    file: Path
    line: int
    leanok: bool
    uses: tuple[str, ...]


@dataclass(frozen=True)
class Blueprint:
    """A statement's leanblueprint status, as its author marked it."""

    leanok: bool = False  # the statement is formalized
    mathlibok: bool = False  # it is already in Mathlib
    notready: bool = False  # the blueprint needs more work before it can be formalized
    discussion: str | None = None  # the issue that discusses it
    proof: Proof | None = None


@dataclass(frozen=True)
class Statement:
    """One numbered statement as the PDF shows it."""

    kind: str
    number: str | None
    title: str | None
    label: str | None
    file: Path
    line: int
    end_line: int
    text: str
    lean: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()
    blueprint: Blueprint = Blueprint()
    labels: tuple[str, ...] = ()  # every `\label` of its own, `label` first: each one names it

    @property
    def all_uses(self) -> tuple[str, ...]:
        """What the statement and its proof `\\uses`, each once."""
        proof = self.blueprint.proof.uses if self.blueprint.proof else ()
        return tuple(dict.fromkeys((*self.uses, *proof)))


@dataclass(frozen=True)
class Place:
    """Something named at a place in the sources: a missing input, a stray `\\lean{…}`."""

    file: Path
    line: int
    command: str  # the command as written: input, include, lean, …
    names: tuple[str, ...]


@dataclass(frozen=True)
class Notice:
    """Something in the sources jig read past, at the line where it starts: what it is and
    what jig did about it."""

    file: Path
    line: int
    message: str


# plastexdepgraph's `DEFAULT_TYPES`: the environments its graph shows when `thms=` is not given.
DEFAULT_GRAPH_KINDS = ("definition", "lemma", "proposition", "theorem", "corollary")


@dataclass(frozen=True)
class Document:
    """A paper's statements in reading order, and what they were read from."""

    root: Path
    statements: tuple[Statement, ...]
    sources: tuple[Path, ...]
    numbered_by_aux: bool
    labels: frozenset[str] = frozenset()  # every `\label` of the paper, statements' or not
    missing: tuple[Place, ...] = ()  # inputs whose file is nowhere
    stray_lean: tuple[Place, ...] = ()  # `\lean{…}` outside every statement
    notices: tuple[Notice, ...] = ()  # what was read past: an unclosed proof, a brace
    # The environments the dependency graph shows (leanblueprint's `thms=` option, else its
    # default), and where the option was read, when it was.
    graph_kinds: tuple[str, ...] = DEFAULT_GRAPH_KINDS
    graph_kinds_place: Place | None = None

    def dangling_uses(self) -> list[tuple[Statement, str, Place]]:
        """Each `\\uses{label}` (of a statement or its proof) that no `\\label` defines, with
        the place of the `\\uses` that names it."""
        found = []
        for statement in self.statements:
            proof = statement.blueprint.proof
            for label in statement.all_uses:
                if label in self.labels:
                    continue
                starts = [(statement.file, statement.line)]
                starts += [(proof.file, proof.line)] if proof else []
                place = next(
                    (
                        Place(file, line, "uses", (label,))
                        for file, start in starts
                        if (line := _line_naming(file, start, label)) is not None
                    ),
                    Place(statement.file, statement.line, "uses", (label,)),
                )
                found.append((statement, label, place))
        return found


def _line_naming(path: Path, start: int, label: str) -> int | None:
    """The first line from `start` on (a statement's or a proof's) that names `label`."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for number in range(start, min(len(lines), start + _MAX_STATEMENT_LINES) + 1):
        if label in lines[number - 1]:
            return number
    return None


def missing_words(place: Place) -> str:
    """Why a missing input is missing, and what to do, for a place line."""
    named = f"\\{place.command}{{{place.names[0]}}}"
    if outside_folder(place.names[0]):
        return f"{named}: outside the paper's folder, which TeX may not read under jig"
    return f"{named}: no such file beside the paper or in TeX's own; generate it or fix the name"
