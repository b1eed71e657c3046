"""The `lean` verifier on a paper, per statement: `check(file)` → a `Report`.

1. Open the paper (`jigcli.paper.pairing.open_paper`): the statements its PDF shows, the
   declarations of its sibling `<stem>.lean`, the Lake project around it, and how they pair.
   A statement nothing pairs with is `pending`, "not formalized yet". An `\\input` whose file
   is nowhere is an error, as it is for `jig compile`: the statements it holds are unknown.
2. A pair the audit ledger (`<stem>.audit.json`) says is `refuted`, with both of its hashes still
   matching the statement's text and the declaration's source, is `refuted`: it leaves the Lean
   goal and is not checked.
3. The rest is asked of Lean (`jigcli.paper.lean_answers`): one check of the sibling `.lean`, one
   of the names declared elsewhere in the project, each declaration given `proved` /
   `conditional` / `sorry` / `error` / `assumed`.
4. A statement paired with several declarations (`\\lean{A, B}`) takes the worst of them.
5. Without a usable toolchain (no Lake project above the paper, no `lake`/`lean`, or not the
   pinned version) a statement the paper pairs with a declaration is `pending`, "formalized as
   X, not checked here", saying whether X's text has a `sorry` (a hint, not a verdict), and
   the summary says Lean isn't set up here yet and how.

The blueprint's own marks are reported as data beside the verdicts: per statement its `\\lean`
names, `uses`, `\\leanok` (on the statement and on its proof), `\\mathlibok`, `\\notready` and
`\\discussion`; a `\\uses` of a label nothing defines, and a `\\lean{…}` outside every statement,
are listed. `jigcli.render.lean_check` says all of it, and draws the dependency graph.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from jigcli.latex.statements.model import Place, Statement
from jigcli.paper import ledger as audit_ledger
from jigcli.paper.lean_answers import LeanAnswer, Outcome, ask_lean, has_hole
from jigcli.paper.pairing import Pair, Paper, open_paper
from jigcli.verdict import EXIT_NOT_CHECKED
from jigcli.verifiers.contract import SEVERITY, Status

NOT_FORMALIZED = "not formalized yet"
NOT_CHECKED_HERE = "not checked here"  # the summary says why and how to set Lean up


@dataclass(frozen=True)
class Row:
    statement: Statement
    decl: str | None
    outcome: Outcome
    decls: tuple[tuple[Pair, Outcome], ...] = ()  # every paired declaration and its outcome

    @property
    def status(self) -> Status:
        return self.outcome.status


@dataclass(frozen=True)
class Report:
    paper: Paper
    rows: list[Row]
    engine: str | None  # "Checked by Lean 4.33.0 · Mathlib v4.33.0"; None without a check
    evidence: tuple[Path, ...] = ()
    missing: tuple[Place, ...] = ()
    notes: tuple[str, ...] = ()  # what was set aside on the way (an unreadable audit ledger)
    not_set_up: str | None = None  # why Lean is not set up here, when it is not

    @property
    def ok(self) -> bool:
        return not self.missing and all(row.status == "ok" for row in self.rows)

    @property
    def exit_code(self) -> int:
        """0 all proved; 4 when Lean is not set up here and nothing else is wrong (every
        statement not ok is formalized and only pending: waiting for Lean); 1 otherwise."""
        if self.ok:
            return 0
        waiting = [row for row in self.rows if row.status != "ok"]
        if (
            self.not_set_up is not None
            and not self.missing
            and all(row.decls and row.outcome.verdict == "pending" for row in waiting)
        ):
            return EXIT_NOT_CHECKED
        return 1

    @property
    def worst_status(self) -> Status:
        if self.missing:
            return "error"
        return worst(row.outcome for row in self.rows).status if self.rows else "ok"


def check(file: Path) -> Report:
    """Every statement of the paper `file` belongs to, with its verdict."""
    paper = open_paper(file)
    refuted, notes = _refuted(paper)
    goal = [p for p in paper.pairing.pairs if (p.statement, p.decl_name) not in refuted]
    answer = ask_lean(paper, goal) if goal else LeanAnswer({})
    rows = []
    for statement in paper.document.statements:
        pairs = paper.pairing.pairs_of(statement)
        if not pairs:
            rows.append(Row(statement, None, Outcome("pending", _unformalized(paper, statement))))
            continue
        outcomes = [_pair_outcome(p, refuted, answer) for p in pairs]
        worst_one = worst(outcomes)
        if answer.not_set_up is not None and worst_one.verdict == "pending":
            worst_one = Outcome("pending", unchecked_words(pairs))
        decl = (
            pairs[outcomes.index(worst_one)].decl_name
            if worst_one in outcomes
            else pairs[0].decl_name
        )
        rows.append(Row(statement, decl, worst_one, tuple(zip(pairs, outcomes, strict=True))))
    missing = paper.document.missing
    return Report(paper, rows, answer.engine, answer.evidence, missing, notes, answer.not_set_up)


def worst(outcomes: Iterable[Outcome]) -> Outcome:
    return min(outcomes, key=lambda o: SEVERITY.index(o.status))


def watched_files(report: Report) -> set[Path]:
    """What a re-check reads: the paper's sources, its `.lean` (once it exists), the audit
    ledger and every project module declaring one of its names."""
    paper = report.paper
    return {
        *paper.document.sources,
        paper.tex.with_suffix(".lean"),
        audit_ledger.paper_ledger(paper.tex),
        *(p.where.path for p in paper.pairing.pairs if p.where is not None),
    }


def _unformalized(paper: Paper, statement: Statement) -> str:
    why = paper.pairing.why_unpaired.get(statement)
    if statement.blueprint.notready:
        return f"{NOT_FORMALIZED} (the blueprint marks it \\notready)"
    if paper.lean is None or why is None:
        return NOT_FORMALIZED
    return f"{NOT_FORMALIZED} ({why})"


def unchecked_words(pairs: Sequence[Pair]) -> str:
    """What is known of formalized statements without Lean: their names, and whether their
    text has a hole. A `sorry` in the text keeps the statement apart from one whose text has
    none, but neither is a verdict: the hole may never be reached (`first | rfl | sorry`), and
    a text without one may still not build."""
    names = ", ".join(p.decl_name for p in pairs)
    holed = [p.decl_name for p in pairs if p.decl is not None and has_hole(p.decl.source)]
    if holed:
        which = "its text has" if len(pairs) == 1 else f"{', '.join(holed)} has"
        return f"formalized as {names}, {NOT_CHECKED_HERE}, but {which} a sorry"
    if all(p.decl is not None for p in pairs):
        texts = "its text" if len(pairs) == 1 else "their texts"
        return f"formalized as {names}, {NOT_CHECKED_HERE}; no sorry in {texts}"
    return f"formalized as {names}, {NOT_CHECKED_HERE}"


def _pair_outcome(
    pair: Pair, refuted: dict[tuple[Statement, str], str], answer: LeanAnswer
) -> Outcome:
    key = (pair.statement, pair.decl_name)
    if key in refuted:
        return Outcome("refuted", refuted[key])
    if answer.not_set_up is not None:
        return Outcome("pending", unchecked_words([pair]))
    if pair.decl_name not in answer.outcomes:
        return Outcome("pending", "Lean gave no answer for it")
    return answer.outcomes[pair.decl_name]


def _refuted(paper: Paper) -> tuple[dict[tuple[Statement, str], str], tuple[str, ...]]:
    """Pairs the audit ledger says are false while both of their hashes still match; and why
    the ledger was set aside, when it was."""
    try:
        ledger = audit_ledger.load_paper(audit_ledger.paper_ledger(paper.tex))
    except audit_ledger.LedgerUnreadable as problem:
        return {}, (f"the audit ledger is ignored: {problem.message}",)
    if ledger is None:
        return {}, ()
    found = {}
    for pair in paper.pairing.pairs:
        judgement = ledger.find(pair.statement.label, pair.decl_name)
        if judgement is None or judgement.verdict != "refuted":
            continue
        hashes = audit_ledger.pair_hashes(pair.statement.text, pair.judged(paper.project))
        if judgement.is_current(*hashes):
            found[(pair.statement, pair.decl_name)] = judgement.reason
    return found, ()
