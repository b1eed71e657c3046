"""`jig lean-check FILE.tex|FILE.lean [--json] [--watch]`: the `lean` verifier, per statement.

1. Open the paper (`jigcli.audit.pairing.open_paper`): the statements its PDF shows, the
   declarations of its sibling `<stem>.lean`, and how they pair. A statement nothing pairs with
   is `pending`, "not formalized yet".
2. A pair the audit ledger (`<stem>.audit.json`) says is `refuted`, with both of its hashes still
   matching the statement's text and the declaration's source, is `refuted`: it leaves the Lean
   goal and is not checked.
3. ONE Lean run for the whole file, through `jigcli.lean.backend.elaborate` (`lake env lean
   --json`). The generated check file is the paper's `.lean` verbatim — so every message's line
   is the paper's own line and falls inside the declaration it is about — then an `end` for
   every scope still open at its end, then `#print axioms` for every paired declaration. From
   that one run, per declaration, first match wins:
   - an error inside its line range (or in the file's header, before any declaration, or at
     its own `#print axioms`, e.g. an unknown name) → `error`;
   - Lean's "declaration uses `sorry`" warning inside its range → its own proof has a hole →
     `sorry`;
   - `sorryAx` among its axioms without such a warning → its own proof is complete but it uses
     a declaration that is not → `conditional` (proved modulo an open lemma; the declarations
     of the file with a hole or an error that its source names are named);
   - native computation (`Lean.ofReduceBool`, `…._native.….ax_…`) or an axiom the file does not
     declare → `error` (not a kernel proof from the standard axioms);
   - an `axiom` the file declares → `assumed`;
   - otherwise `proved`: axioms within `propext`, `Classical.choice`, `Quot.sound`.
   This needs no dependency walk and no second run: Lean reports "declaration uses `sorry`"
   only for a declaration whose own elaborated term contains an explicit `sorry` (the
   `hasSorry` check on the added declaration, not a transitive one), while `#print axioms` is
   transitive, so the two together tell a hole of its own from an open lemma it relies on.
   A statement paired with several declarations (`\\lean{A, B}`) takes the worst of them.
4. Without a usable toolchain (no Lake project above the paper, no `lake`/`lean`, or not the
   pinned version) every paired statement is `pending` and the summary says Lean isn't set up
   here yet and how to set it up; exit 1.

The paper's own `.lean` is the author's code, elaborated the way `lake build` would; the
submission policy of `jig verify` (for untrusted sources) does not apply to it. The check file
and Lean's whole output are kept as evidence under `<repo>/.jig/lean-check/`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.markup import escape

from jigcli.audit import ledger as audit_ledger
from jigcli.audit.pairing import Decl, LeanFile, Pair, Paper, open_paper, plain_name
from jigcli.console import emit_json, err, out
from jigcli.errors import UsageError
from jigcli.latex.statements import Statement
from jigcli.verifiers.registry import Status, Why, failure_words, verdict_words, verifier_status

if TYPE_CHECKING:
    from jigcli.lean.messages import LeanMessage, LeanOutput
    from jigcli.repo import Repo

VERIFIER = "lean"
LEAN_BUDGET_SEC = 1200.0
SORRY_WARNING = "declaration uses"
NOT_FORMALIZED = "not formalized yet"
NOT_SET_UP = "no Lean to check it with here (the summary says how to set it up)"
# `Lean.mkPrivateName`: `_private` ++ module ++ the numeric component 0 ++ the user's name.
_PRIVATE_PREFIX = re.compile(r"^_private\.(?:.*?\.)?0\.")


@dataclass(frozen=True)
class Outcome:
    verdict: str
    detail: str = ""

    @property
    def status(self) -> Status:
        return verifier_status(VERIFIER, self.verdict)


@dataclass(frozen=True)
class Row:
    statement: Statement
    decl: str | None
    outcome: Outcome

    @property
    def status(self) -> Status:
        return self.outcome.status

    @property
    def words(self) -> str:
        said = verdict_words(VERIFIER, self.outcome.verdict)
        return f"{said}: {self.outcome.detail}" if self.outcome.detail else said


@dataclass(frozen=True)
class LeanAnswer:
    """What the one Lean run said about each declaration, or why there was no run."""

    outcomes: dict[str, Outcome]
    engine: str | None = None
    evidence: Path | None = None
    not_set_up: str | None = None  # the detail when Lean is not set up here


@dataclass(frozen=True)
class Report:
    paper: Paper
    rows: list[Row]
    summary: str
    engine: str | None
    evidence: Path | None

    @property
    def ok(self) -> bool:
        return all(row.status == "ok" for row in self.rows)


# -- the command --------------------------------------------------------------------------------


def run(file: Path, *, as_json: bool, watch: bool) -> int:
    if watch and as_json:
        raise UsageError("--watch reports for people as you edit; drop --json or --watch.")
    if watch:
        return _watch(file)
    report = check(file)
    _show(report, as_json)
    return 0 if report.ok else 1


def check(file: Path) -> Report:
    """Every statement of the paper `file` belongs to, with its verdict."""
    paper = open_paper(file)
    refuted = _refuted(paper)
    goal = [p for p in paper.pairing.pairs if (p.statement, p.decl_name) not in refuted]
    # Without a .lean there is nothing to run Lean on, even for blueprint names from Mathlib.
    answer = _ask_lean(paper, goal) if goal and paper.lean_file else LeanAnswer({})
    rows = []
    for statement in paper.document.statements:
        pairs = paper.pairing.pairs_of(statement)
        if not pairs:
            why = paper.pairing.why_unpaired.get(statement)
            detail = (
                NOT_FORMALIZED if paper.lean is None or why is None else f"{NOT_FORMALIZED} ({why})"
            )
            rows.append(Row(statement, None, Outcome("pending", detail)))
            continue
        outcomes = [_pair_outcome(p, refuted, answer) for p in pairs]
        worst = _worst(outcomes)
        rows.append(Row(statement, pairs[outcomes.index(worst)].decl_name, worst))
    summary = _summary(paper, rows, answer)
    return Report(paper, rows, summary, answer.engine, answer.evidence)


def _pair_outcome(
    pair: Pair, refuted: dict[tuple[Statement, str], str], answer: LeanAnswer
) -> Outcome:
    key = (pair.statement, pair.decl_name)
    if key in refuted:
        return Outcome("refuted", refuted[key])
    if answer.not_set_up is not None:
        return Outcome("pending", NOT_SET_UP)
    if pair.decl_name not in answer.outcomes:
        words = "Lean gave no answer for it" if answer.outcomes else NOT_FORMALIZED
        return Outcome("pending", words)
    return answer.outcomes[pair.decl_name]


def _worst(outcomes: Iterable[Outcome]) -> Outcome:
    from jigcli.verifiers.render import SEVERITY

    return min(outcomes, key=lambda o: SEVERITY.index(o.status))


# -- 2. refuted in the audit ----------------------------------------------------------------


def _refuted(paper: Paper) -> dict[tuple[Statement, str], str]:
    """Pairs the audit ledger says are false while both of their hashes still match."""
    try:
        ledger = audit_ledger.load(audit_ledger.ledger_path(paper.tex))
    except audit_ledger.LedgerUnreadable as problem:
        err().print(f"jig: the audit ledger is ignored: {problem.message}", markup=False)
        return {}
    if ledger is None:
        return {}
    found = {}
    for pair in paper.pairing.pairs:
        judgement = ledger.find(pair.statement.label, pair.decl_name)
        if judgement is None or judgement.verdict != "refuted":
            continue
        if judgement.is_current(*audit_ledger.pair_hashes(pair.statement.text, pair.decl)):
            found[(pair.statement, pair.decl_name)] = judgement.reason
    return found


# -- 3. the one Lean run ---------------------------------------------------------------------


def _ask_lean(paper: Paper, goal: list[Pair]) -> LeanAnswer:
    from jigcli.lean import backend
    from jigcli.repo import Repo

    assert paper.lean is not None and paper.lean_file is not None  # goal pairs come from it
    try:
        repo = Repo.locate(start=paper.lean.parent)
    except UsageError:
        repo = None
    if repo is None or not any(
        (repo.root / f).is_file() for f in ("lakefile.toml", "lakefile.lean")
    ):
        return LeanAnswer(
            {}, not_set_up="the paper is not inside a Lake project that requires Mathlib"
        )
    try:
        toolchain = backend.detect(repo)
    except backend.ToolchainProblem as problem:
        return LeanAnswer({}, not_set_up=str(problem))
    names = list(dict.fromkeys(p.decl_name for p in goal))
    check_file, print_lines = _write_check_file(
        repo.work_dir / "lean-check", paper.lean_file, names
    )
    lean_run = backend.elaborate(toolchain, repo, check_file, timeout=LEAN_BUDGET_SEC)
    evidence = check_file.with_suffix(".out")
    evidence.write_text(lean_run.result.output, encoding="utf-8")
    engine = _engine_words(toolchain.lean_version, repo)
    if lean_run.result.timed_out or lean_run.crashed:
        why: Why = "too_big" if lean_run.result.timed_out else "unreachable"
        pending = Outcome("pending", failure_words(VERIFIER, why))
        return LeanAnswer({name: pending for name in names}, engine, evidence)
    outcomes = _read_answers(paper.lean_file, names, print_lines, lean_run.output)
    return LeanAnswer(outcomes, engine, evidence)


def _write_check_file(
    folder: Path, lean: LeanFile, names: list[str]
) -> tuple[Path, dict[int, str]]:
    """The paper's .lean, its open scopes closed, then one `#print axioms` per name."""
    text = lean.text if lean.text.endswith("\n") else lean.text + "\n"
    lines = ["-- jig lean-check: the paper's .lean above, its axioms below"]
    lines += [f"end {scope}".rstrip() for scope in reversed(lean.open_scopes)]
    first = text.count("\n") + 1
    print_lines = {}
    for name in names:
        print_lines[first + len(lines)] = name
        lines.append(f"#print axioms {_lean_ident(name)}")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{lean.path.stem}.check.lean"
    path.write_text(text + "\n".join(lines) + "\n", encoding="utf-8")
    return path, print_lines


def _lean_ident(name: str) -> str:
    """A dotted name as a Lean identifier, every component in «» so no keyword can break it."""
    return ".".join(f"«{part}»" for part in name.split("."))


def _read_answers(
    lean: LeanFile, names: list[str], print_lines: dict[int, str], output: LeanOutput
) -> dict[str, Outcome]:
    from jigcli.lean.messages import parse_print_axioms

    first_decl = min((d.line for d in lean.decls), default=None)
    header_errors = [
        m
        for m in output.errors
        if m.line not in print_lines and (first_decl is None or m.line < first_decl)
    ]
    printed: dict[str, tuple[str, ...]] = {}
    for message in output.messages:
        for report in parse_print_axioms(message.data):
            printed[_user_name(report.decl)] = report.axioms
    outcomes = {}
    for line, name in print_lines.items():
        decl = lean.by_full_name(name)
        errors = [m for m in output.errors if m.line == line]
        errors += (_errors_in(decl, output) if decl is not None else []) + header_errors
        if errors:
            outcomes[name] = Outcome("error", f"{_place(lean, errors[0])} {errors[0].headline()}")
        elif decl is not None and _own_sorry(decl, output):
            where = f"{lean.path.name}:{decl.keyword_line}"
            outcomes[name] = Outcome("sorry", f"{where} has a sorry of its own")
        elif name not in printed:
            outcomes[name] = Outcome("pending", "Lean printed no axioms for it")
        else:
            outcomes[name] = _by_axioms(lean, decl, printed[name], output)
    return outcomes


def _user_name(printed: str) -> str:
    """The name a `#print axioms` answer is about, as the paper's .lean spells it: Lean prints
    a `private` declaration by its real name `_private.<module>.0.<name>` and escapes parts
    that are not identifiers with «»."""
    return plain_name(_PRIVATE_PREFIX.sub("", printed))


def _by_axioms(
    lean: LeanFile, decl: Decl | None, axioms: tuple[str, ...], output: LeanOutput
) -> Outcome:
    from jigcli.lean.axioms import axiom_reason

    reasons = {axiom: axiom_reason(axiom) for axiom in axioms}
    if "sorry" in reasons.values():
        holes = [d for d in lean.decls if _own_sorry(d, output) or _errors_in(d, output)]
        named = _mentioned(decl, holes) if decl is not None else []
        return Outcome("conditional", f"uses {', '.join(named) or 'a declaration'}, not proved yet")
    native = [a for a, r in reasons.items() if r == "native_decide"]
    if native:
        return Outcome("error", f"trusts native computation ({native[0]}), not the kernel")
    declared = {d.full_name for d in lean.axioms}
    others = [a for a, r in reasons.items() if r == "disallowed_axiom"]
    foreign = [a for a in others if a not in declared]
    if foreign:
        return Outcome(
            "error", f"depends on {foreign[0]}, an axiom {lean.path.name} does not declare"
        )
    if others:
        return Outcome("assumed", f"assumes {', '.join(others)}, declared in {lean.path.name}")
    return Outcome("proved")


def _in_range(decl: Decl, message: LeanMessage) -> bool:
    return decl.line <= message.line <= decl.end_line


def _errors_in(decl: Decl, output: LeanOutput) -> list[LeanMessage]:
    return [m for m in output.errors if _in_range(decl, m)]


def _own_sorry(decl: Decl, output: LeanOutput) -> bool:
    """Lean's "declaration uses `sorry`" inside the declaration's own lines."""
    return any(
        m.severity == "warning"
        and m.mentions(SORRY_WARNING)
        and m.mentions("sorry")
        and _in_range(decl, m)
        for m in output.messages
    )


def _mentioned(decl: Decl, holes: list[Decl]) -> list[str]:
    """The declarations with a hole that `decl`'s source names (for the words only)."""
    from jigcli.lean.lexer import tokenize

    idents = {plain_name(t.text) for t in tokenize(decl.source) if t.kind == "ident"}
    return [
        h.full_name
        for h in holes
        if h is not decl
        and any(i == h.full_name or i == h.name or h.full_name.endswith("." + i) for i in idents)
    ]


def _place(lean: LeanFile, message: LeanMessage) -> str:
    line = message.line if message.line <= lean.text.count("\n") + 1 else None
    return f"{lean.path.name}:{line}:" if line is not None else "at its #print axioms:"


def _engine_words(lean_version: str, repo: Repo) -> str:
    """ "Checked by Lean 4.33.0 · Mathlib v4.33.0": Lean's own version, Mathlib's from Lake."""
    words = f"Checked by Lean {lean_version}"
    mathlib = _mathlib_version(repo)
    return f"{words} · Mathlib {mathlib}" if mathlib else words


def _mathlib_version(repo: Repo) -> str | None:
    for package in (repo.lake_manifest or {}).get("packages", []):
        if isinstance(package, dict) and package.get("name") == "mathlib":
            tag, rev = package.get("inputRev"), package.get("rev")
            if isinstance(tag, str) and tag[:1] == "v" and tag[1:2].isdigit():
                return tag
            return rev[:12] if isinstance(rev, str) else None
    return None


# -- the summary and the output ----------------------------------------------------------------


def _summary(paper: Paper, rows: list[Row], answer: LeanAnswer) -> str:
    name = paper.tex.name
    if not rows:
        return f"No statements found in {name}"
    if answer.not_set_up is not None:
        return failure_words(VERIFIER, "not_set_up", detail=answer.not_set_up)
    if all(row.status == "ok" for row in rows):
        assumed = sum(row.outcome.verdict == "assumed" for row in rows)
        words = f"{verdict_words(VERIFIER, 'proved')} · {len(rows)} checked"
        return f"{words} · {assumed} assumed" if assumed else words
    worst = _worst(row.outcome for row in rows)
    count = sum(row.outcome.verdict == worst.verdict for row in rows)
    return f"{verdict_words(VERIFIER, worst.verdict)} · {count} of {len(rows)}"


def _shown(path: Path) -> str:
    """A path as the person typed it would be: relative to here when it is below here."""
    try:
        return path.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return os.fspath(path)


def _title(statement: Statement) -> str:
    head = f"{statement.kind.capitalize()} {statement.number or ''}".strip()
    return f"{head} ({statement.title})" if statement.title else head


def to_json(report: Report) -> dict[str, Any]:
    return {
        "verifier": VERIFIER,
        "document": _shown(report.paper.tex),
        "lean_file": _shown(report.paper.lean) if report.paper.lean else None,
        "statements": [
            {
                "label": row.statement.label,
                "kind": row.statement.kind,
                "number": row.statement.number,
                "title": row.statement.title,
                "file": _shown(row.statement.file),
                "line": row.statement.line,
                "decl": row.decl,
                "verdict": row.outcome.verdict,
                "status": row.status,
                "words": row.words,
            }
            for row in report.rows
        ],
        "summary": report.summary,
        "engine": report.engine,
    }


def _show(report: Report, as_json: bool) -> None:
    if as_json:
        emit_json(to_json(report))
        return
    from jigcli.verifiers.render import mark, result_line

    console = out()
    evidence = _shown(report.evidence) if report.evidence else None
    for row in report.rows:
        where = _shown(row.statement.file)
        words = f"{_title(row.statement)} · {row.words}"
        console.print(result_line(where, row.statement.line, row.status, words))
    worst = _worst(row.outcome for row in report.rows).status if report.rows else "ok"
    console.print(f"{mark(worst)} {escape(report.summary)}")
    if report.engine:
        console.print(
            escape(report.engine) + (f" [dim](see {escape(evidence)})[/]" if evidence else "")
        )


# -- --watch ---------------------------------------------------------------------------------


def _watch(file: Path) -> int:
    """Check, then check again each time the paper's sources or its .lean settle after an edit."""
    from watchfiles import watch

    report = check(file)
    _show(report, as_json=False)
    for changes in watch(*_folders(report), debounce=800, raise_interrupt=False):
        changed = {Path(path).resolve() for _, path in changes}
        if not changed & _watched(report):
            continue
        err().print("Re-checking…", style="dim")
        report = check(file)
        _show(report, as_json=False)
    return 0 if report.ok else 1


def _watched(report: Report) -> set[Path]:
    paper = report.paper
    files = {
        *paper.document.sources,
        paper.tex.with_suffix(".lean"),
        audit_ledger.ledger_path(paper.tex),
    }
    return {f.resolve() for f in files}


def _folders(report: Report) -> list[Path]:
    return sorted({f.parent for f in _watched(report)})
