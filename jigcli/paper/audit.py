"""The `audit` verifier: does each declaration say what its statement says?

1. Pairs (`open_subject`): a paper's statements with the declarations of its sibling `.lean`
   and of the Lake project around it (`jigcli.paper.pairing`), or, for a verifier repo's
   `Statements/LABEL.lean`, the statement's docstring (the prose) with `statement` (the type).
2. `unstated` is decided by jig alone: a top-level `theorem`/`lemma` of the sibling `.lean` no
   statement pairs with (`private` ones, those marked `-- helper`, and every declaration in a
   `section` or `namespace` marked `-- helper` are exempt). Declarations elsewhere in the Lake
   project are never `unstated`: a project holds far more lemmas than its paper states.
3. `faithful` / `partial` / `mismatch` / `refuted` come only from a reader (`judge_pending`) —
   a person, or a command speaking `jigcli.paper.reader`'s protocol. jig never guesses one:
   without a reader a pair nobody judged is `pending`.
4. The ledger `<stem>.audit.json` (`jigcli.paper.ledger`) keeps each judgement with the hashes
   of the statement's text and the declaration's source it read, wherever in the project the
   declaration lives (one no readable source declares, such as a Mathlib lemma, is covered by
   its name and the package revisions the project pins). A judgement whose texts have
   changed since is not current: it shows as `pending` ("changed since it was judged"), never
   as a pass, and the reader is asked again. Each answer is saved as it is given, so an
   interrupted review keeps every answer already given.
5. At size: `Only` (label patterns, shell-style, and files: the statements of one `.tex` file,
   or the declarations of one `.lean` file) chooses the pairs to show and judge.

`jigcli.render.audit` says the rows, and counts each verdict in the summary.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from jigcli.errors import UsageError
from jigcli.hashing import file_sha256_hex
from jigcli.latex.statements.model import Place
from jigcli.lean.declarations import Decl, read_lean
from jigcli.paper import ledger as audit_ledger
from jigcli.paper.ledger import JIG, STALE_WORDS, Item, Judge, Judgement, Ledger
from jigcli.paper.pairing import open_paper
from jigcli.paper.reader import Answer, NoAnswer
from jigcli.verifiers.contract import SEVERITY, Status
from jigcli.verifiers.registry import verifier_status

VERIFIER = "audit"
NOT_JUDGED = "judge it with jig audit --review, or --reader CMD"


@dataclass(frozen=True)
class Subject:
    """What is audited: its pairs, the declarations with no statement, and the ledger's place."""

    items: list[Item]
    unstated: list[Decl]
    ledger: Path
    tex: Path | None
    lean: Path | None
    folder: Path
    missing: tuple[Place, ...] = ()  # the paper's inputs whose file is nowhere

    def places(self) -> dict[tuple[str | None, str | None], tuple[Path | None, int | None]]:
        """Where each pair is written: its statement, else its declaration."""
        found = {i.key: (i.tex_file or i.lean_file, i.tex_line or i.lean_line) for i in self.items}
        found |= {(None, d.full_name): (self.lean, d.line) for d in self.unstated}
        return found


@dataclass(frozen=True)
class Row:
    label: str | None
    decl: str | None
    verdict: str
    current: bool
    reason: str

    @property
    def status(self) -> Status:
        return verifier_status(VERIFIER, self.verdict)


@dataclass(frozen=True)
class Only:
    """Which pairs to show and judge: label patterns and resolved file paths (empty: all)."""

    labels: tuple[str, ...] = ()
    files: tuple[Path, ...] = ()

    def keeps(self, label: str | None, places: Sequence[Path | None]) -> bool:
        by_label = not self.labels or any(
            fnmatch.fnmatchcase(label or "", pattern) for pattern in self.labels
        )
        by_file = not self.files or any(p is not None and p.resolve() in self.files for p in places)
        return by_label and by_file

    def __bool__(self) -> bool:
        return bool(self.labels or self.files)

    def describe(self) -> str:
        """`--label 'lem:*' --file a.tex`, as the person asked."""
        from jigcli.console import shown_path

        asked = [f"--label {pattern!r}" for pattern in self.labels]
        asked += [f"--file {shown_path(path)}" for path in self.files]
        return " ".join(asked)


class Reader(Protocol):
    """Who judges the pairs: a person at the terminal, or a command (`reader.CommandReader`)."""

    @property
    def judge(self) -> Judge: ...

    def answer(self, item: Item) -> Answer | NoAnswer:
        """The verdict on `item`; `InputEnded` when no more answers can come."""
        ...


class InputEnded(Exception):
    """The person closed the prompts: what was judged is kept, the rest left pending."""


@dataclass(frozen=True)
class Voice:
    """How a review speaks while it runs: a progress note, and a problem said as `jig: …`."""

    note: Callable[[str], None]
    problem: Callable[[str], None]


# -- 1. what is audited -----------------------------------------------------------------------


def open_subject(file: Path) -> Subject:
    """The pairs of the paper `file` belongs to, or of `Statements/LABEL.lean`."""
    if file.suffix == ".lean" and file.resolve().parent.name == "Statements":
        return _statement_file(file.resolve())
    paper = open_paper(file)
    items = [
        Item(
            label=p.statement.label,
            decl=p.decl_name,
            kind=p.statement.kind,
            number=p.statement.number,
            title=p.statement.title,
            statement=p.statement.text,
            declaration=p.decl.source if p.decl else None,
            judged=p.judged(paper.project),
            tex_file=p.statement.file,
            tex_line=p.statement.line,
            lean_file=p.where.path if p.where else None,
            lean_line=p.decl.line if p.decl else None,
        )
        for p in paper.pairing.pairs
    ]
    return Subject(
        items,
        list(paper.pairing.unstated),
        audit_ledger.paper_ledger(paper.tex),
        paper.tex,
        paper.lean,
        paper.tex.parent,
        paper.document.missing,
    )


def _statement_file(path: Path) -> Subject:
    """`Statements/LABEL.lean`: the docstring of `statement` against its type."""
    if not path.is_file():
        raise UsageError(f"No such file: {path}; pass Statements/<LABEL>.lean.")
    lean = read_lean(path)
    decl = next((d for d in lean.decls if d.name == "statement"), None)
    if decl is None:
        raise UsageError(f"{path} declares no `statement`; pose it with jig pose lean first.")
    item = Item(
        label=path.stem,
        decl=decl.full_name,
        kind="statement",
        number=None,
        title=None,
        statement=decl.docstring,
        declaration=decl.source,
        judged=decl.judged_text,
        tex_file=None,
        tex_line=None,
        lean_file=path,
        lean_line=decl.line,
    )
    return Subject([item], [], statement_ledger(path), None, path, path.parent)


# A statement's audit ledger grows with each judgement, while `Statements/` is write-once and
# holds only `<label>.lean` (`jig pose check` refuses anything else there): the ledger lives in
# `Audits/` beside it, at the repo's root.
STATEMENT_LEDGERS = "Audits"


def statement_ledger(statement: Path) -> Path:
    """`Statements/LABEL.lean` → `Audits/LABEL.audit.json`; a ledger an earlier jig wrote
    beside the statement is moved there first, so no judgement is lost."""
    ledger = statement.parent.parent / STATEMENT_LEDGERS / f"{statement.stem}.audit.json"
    earlier = audit_ledger.ledger_path(statement)
    if earlier.is_file() and not earlier.is_symlink() and not ledger.exists():
        ledger.parent.mkdir(exist_ok=True)
        earlier.rename(ledger)
    return ledger


def load_ledger(subject: Subject) -> Ledger:
    return audit_ledger.load_paper(subject.ledger) or Ledger(None, None)


def save_ledger(subject: Subject, ledger: Ledger) -> None:
    """The ledger, with the hashes of the sources as they are now, written atomically."""
    sources = (
        file_sha256_hex(subject.tex) if subject.tex else None,
        file_sha256_hex(subject.lean) if subject.lean else None,
    )
    subject.ledger.parent.mkdir(parents=True, exist_ok=True)  # a statement's Audits/
    audit_ledger.save_paper(ledger.with_sources(*sources), subject.ledger)


# -- 2. unstated, decided by jig ---------------------------------------------------------------


def _unstated_reason(subject: Subject) -> str:
    where = subject.tex.name if subject.tex else "the paper"
    return f"no statement in {where} pairs with it; mark it -- helper or private if it is a helper"


def _record_unstated(subject: Subject, ledger: Ledger) -> None:
    for decl in subject.unstated:
        hashes = audit_ledger.pair_hashes(None, decl.judged_text)
        earlier = ledger.find(None, decl.full_name)
        if earlier is None or not earlier.is_current(*hashes):
            reason = _unstated_reason(subject)
            ledger.record(
                Judgement(
                    None, decl.full_name, "unstated", reason, JIG, audit_ledger.now(), *hashes
                )
            )


# -- 3. readers --------------------------------------------------------------------------------


def judge_pending(
    subject: Subject, ledger: Ledger, reader: Reader, only: Only, voice: Voice
) -> int:
    """Ask `reader` for a verdict on each pair `only` keeps with no current one, saving each
    answer as it comes; then record the unstated declarations and forget pairs that are gone.
    Returns how many answers were given."""
    waiting = [
        i
        for i in subject.items
        if not _current(ledger, i) and only.keeps(i.label, (i.tex_file, i.lean_file))
    ]
    answered = _ask_each(subject, ledger, reader, waiting, voice)
    _record_unstated(subject, ledger)
    ledger.keep_only(
        {i.key for i in subject.items} | {(None, d.full_name) for d in subject.unstated}
    )
    save_ledger(subject, ledger)
    return answered


def _ask_each(
    subject: Subject, ledger: Ledger, reader: Reader, waiting: list[Item], voice: Voice
) -> int:
    answered = 0
    for number, item in enumerate(waiting, start=1):
        if item.statement is None:
            voice.problem(f"{item.label}: there is no prose to compare with; skipped.")
            continue
        voice.note(f"Judging {number} of {len(waiting)}: {item.label or item.decl}")
        try:
            answer = reader.answer(item)
        except InputEnded:
            left = len(waiting) - number + 1
            voice.problem(f"input ended; {left} pair(s) left pending, judged ones kept.")
            return answered
        if isinstance(answer, NoAnswer):
            if answer.why is not None:
                voice.problem(answer.why)
            continue
        ledger.record(
            Judgement(
                item.label,
                item.decl,
                answer.verdict,
                answer.reason,
                reader.judge,
                audit_ledger.now(),
                *item.hashes,
            )
        )
        save_ledger(subject, ledger)  # now: a Ctrl-C at the next question loses nothing
        answered += 1
    return answered


def _current(ledger: Ledger, item: Item) -> bool:
    judgement = ledger.find(*item.key)
    return judgement is not None and judgement.is_current(*item.hashes)


# -- 4. rows -------------------------------------------------------------------------


def rows(subject: Subject, ledger: Ledger, only: Only = Only()) -> list[Row]:
    """Each pair `only` keeps, with its current verdict, then the unstated declarations."""
    found = []
    for item in subject.items:
        if not only.keeps(item.label, (item.tex_file, item.lean_file)):
            continue
        judgement = ledger.find(*item.key)
        if judgement is not None and judgement.is_current(*item.hashes):
            found.append(Row(item.label, item.decl, judgement.verdict, True, judgement.reason))
        else:
            reason = STALE_WORDS if judgement is not None else NOT_JUDGED
            found.append(Row(item.label, item.decl, "pending", False, reason))
    reason = _unstated_reason(subject)
    found += [
        Row(None, d.full_name, "unstated", True, reason)
        for d in subject.unstated
        if only.keeps(None, (subject.lean,)) and not only.labels
    ]
    return found


def hidden_failures(shown: list[Row], every: list[Row]) -> list[Row]:
    """The recorded failures (mismatch, refuted, unstated: judged, current, an error) that a
    filter left out: they still count for the exit code, since the paper still fails."""
    return [r for r in every if r not in shown and r.current and r.status == "error"]


def passed(subject: Subject, found: list[Row]) -> bool:
    """Every pair shown current and ok, and no input missing (it hides its statements)."""
    return not subject.missing and all(row.current and row.status == "ok" for row in found)


def worst_status(found: list[Row]) -> Status:
    return min((row.status for row in found), key=SEVERITY.index, default="ok")
