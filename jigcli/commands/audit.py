"""`jig audit FILE.tex|Statements/LABEL.lean [--review] [--reader CMD] [--json]`: the `audit`
verifier — does each declaration say what its statement says?

1. Pairs: a paper's statements with the declarations of its sibling `.lean`
   (`jigcli.audit.pairing`), or, for a verifier repo's `Statements/LABEL.lean`, the statement's
   docstring (the prose) with `statement` (the type).
2. `unstated` is decided by jig alone: a top-level `theorem`/`lemma` of the sibling `.lean` no
   statement pairs with (`private` ones, those marked `-- helper`, and every declaration in a
   `section` or `namespace` marked `-- helper` are exempt). Declarations elsewhere in the Lake
   project are never `unstated`: a project holds far more lemmas than its paper states.
3. `faithful` / `partial` / `mismatch` / `refuted` come only from a reader — a person with
   `--review`, or a command with `--reader CMD`. jig never guesses one: without a reader a pair
   nobody judged is `pending`.
4. The ledger `<stem>.audit.json` (`jigcli.audit.ledger`) keeps each judgement with the hashes
   of the statement's text and the declaration's source it read, wherever in the project the
   declaration lives (one no readable source declares, such as a Mathlib lemma, is covered by
   its name and the package revisions the project pins). A judgement whose texts have
   changed since is not current: it shows as `pending` ("changed since it was judged"), never
   as a pass, and the reader is asked again. Each answer is saved as it is given, so Ctrl-C
   keeps every answer already given. Exit 0 only when every pair shown is current and ok.
5. At size: `--label PATTERN` (shell-style, `lem:*`) and `--file PATH` (the statements of one
   `.tex` file, or the declarations of one `.lean` file) choose the pairs to show and judge;
   the summary counts each verdict.

The reader protocol (`--reader CMD`, version `jig.audit.reader.v1`). CMD is split like a shell
would split it (no shell runs it) and started once per pair that needs a verdict, in the
paper's folder, through jig's process runner, with a time limit per pair. Its standard input
is one JSON object on one line:

    {"protocol": "jig.audit.reader.v1", "label": "thm:main", "kind": "theorem",
     "number": "2.1", "title": "Main result", "statement": "<the statement's LaTeX>",
     "tex_file": "paper.tex", "tex_line": 12, "decl": "Paper.main",
     "declaration": "<the declaration's Lean source>", "lean_file": "paper.lean",
     "lean_line": 30}

Its answer is the first non-empty line it prints: a JSON object
`{"verdict": "faithful", "reason": "…"}`, or the plain form `faithful: <reason>`. The verdict is
one of `faithful`, `partial`, `mismatch`, `refuted` (compared trimmed and lowercased). Any
other answer, a non-zero exit or running out of time leaves the pair `pending` and is said on
stderr; nothing is recorded for it.
"""

from __future__ import annotations

import fnmatch
import getpass
import json
import os
import shlex
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.audit import ledger as audit_ledger
from jigcli.audit.ledger import JIG, READER_VERDICTS, STALE_WORDS, Judge, Judgement, Ledger
from jigcli.audit.pairing import Decl, open_paper, read_lean
from jigcli.console import emit_json, err, out
from jigcli.errors import UsageError
from jigcli.hashing import file_sha256_hex
from jigcli.latex.statements import Place, missing_words
from jigcli.verifiers.registry import (
    Status,
    normalize_verdict,
    verdict_words,
    verifier_status,
)

VERIFIER = "audit"
PROTOCOL = "jig.audit.reader.v1"
READER_TIMEOUT_SEC = 600.0
NOT_JUDGED = "judge it with jig audit --review, or --reader CMD"
NOT_COMPARED = "Not compared yet"


@dataclass(frozen=True)
class Item:
    """One statement ↔ declaration pair, with the two texts a reader compares."""

    label: str | None
    decl: str | None
    kind: str
    number: str | None
    title: str | None
    statement: str | None  # the prose: LaTeX, or a docstring
    declaration: str | None  # the declaration's source as shown to the reader
    judged: str | None  # what the declaration's hash covers (`Pair.judged`)
    tex_file: Path | None
    tex_line: int | None
    lean_file: Path | None
    lean_line: int | None

    @property
    def key(self) -> tuple[str | None, str | None]:
        return (self.label, self.decl)

    @property
    def hashes(self) -> tuple[str | None, str | None]:
        return audit_ledger.judged_hash(self.statement), audit_ledger.judged_hash(self.judged)

    def heading(self) -> str:
        head = f"{self.kind.capitalize()} {self.number or ''}".strip()
        return f"{head} ({self.title})" if self.title else head


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
    """Which pairs to show and judge: `--label` patterns and `--file` paths (empty: all)."""

    labels: tuple[str, ...] = ()
    files: tuple[Path, ...] = ()

    def keeps(self, label: str | None, places: Sequence[Path | None]) -> bool:
        by_label = not self.labels or any(
            fnmatch.fnmatchcase(label or "", pattern) for pattern in self.labels
        )
        by_file = not self.files or any(p is not None and p.resolve() in self.files for p in places)
        return by_label and by_file


# -- the command --------------------------------------------------------------------------------


def run(
    file: Path,
    *,
    review: bool,
    reader: str | None,
    as_json: bool,
    labels: Sequence[str] = (),
    files: Sequence[Path] = (),
) -> int:
    if review and reader is not None:
        raise UsageError("Choose one reader: --review (you) or --reader CMD (a command).")
    if review and as_json:
        raise UsageError("--review asks you questions on the terminal; drop --json.")
    only = Only(tuple(labels), tuple(_existing(f) for f in files))
    subject = _subject(file)
    ledger = audit_ledger.load(subject.ledger) or Ledger(None, None)
    if review or reader is not None:
        _judge(subject, ledger, reader, only)
        _record_unstated(subject, ledger)
        ledger.keep_only(
            {i.key for i in subject.items} | {(None, d.full_name) for d in subject.unstated}
        )
        _save(subject, ledger)
    rows = _rows(subject, ledger, only)
    summary = _summary(rows)
    if as_json:
        emit_json(_to_json(subject, rows, summary))
    else:
        _show(subject, rows, summary)
    complete = not subject.missing  # a missing input hides the statements it holds
    return 0 if complete and all(row.current and row.status == "ok" for row in rows) else 1


def _existing(path: Path) -> Path:
    if not path.exists():
        raise UsageError(f"--file {path}: no such file; pass a .tex or .lean file of the paper.")
    return path.resolve()


def _save(subject: Subject, ledger: Ledger) -> None:
    audit_ledger.save(ledger.with_sources(*_source_hashes(subject)), subject.ledger)


# -- 1. what is audited -----------------------------------------------------------------------


def _subject(file: Path) -> Subject:
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
        audit_ledger.ledger_path(paper.tex),
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
    return Subject([item], [], audit_ledger.ledger_path(path), None, path, path.parent)


def _source_hashes(subject: Subject) -> tuple[str | None, str | None]:
    return (
        file_sha256_hex(subject.tex) if subject.tex else None,
        file_sha256_hex(subject.lean) if subject.lean else None,
    )


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


def _judge(subject: Subject, ledger: Ledger, reader: str | None, only: Only) -> None:
    """Ask for a verdict on each pair with no current one, saving each answer as it comes."""
    waiting = [
        i
        for i in subject.items
        if not _current(ledger, i) and only.keeps(i.label, (i.tex_file, i.lean_file))
    ]
    answered = 0
    try:
        answered = _ask_each(subject, ledger, reader, waiting)
    except KeyboardInterrupt:
        where = _shown(subject.ledger)
        err().print(
            f"\njig: interrupted; the answers given so far are kept in {where}.", markup=False
        )
        raise
    if answered:
        err().print(f"[dim]{answered} answer(s) saved in {_shown(subject.ledger)}[/]")


def _ask_each(subject: Subject, ledger: Ledger, reader: str | None, waiting: list[Item]) -> int:
    answered = 0
    for number, item in enumerate(waiting, start=1):
        if item.statement is None:
            err().print(
                f"jig: {item.label}: there is no prose to compare with; skipped.", markup=False
            )
            continue
        err().print(f"[dim]Judging {number} of {len(waiting)}: {item.label or item.decl}[/]")
        if reader is not None:
            answer = _ask_reader(reader, item, subject.folder)
            judge = Judge("reader", reader)
        else:
            try:
                answer = _ask_person(item)
            except EOFError:  # the person closed the prompts: keep what was judged
                left = len(waiting) - number + 1
                out().print()  # end the unanswered prompt's line
                err().print(
                    f"jig: input ended; {left} pair(s) left pending, judged ones kept.",
                    markup=False,
                )
                return answered
            judge = Judge("person", _person())
        if answer is not None:
            verdict, reason = answer
            ledger.record(
                Judgement(
                    item.label, item.decl, verdict, reason, judge, audit_ledger.now(), *item.hashes
                )
            )
            _save(subject, ledger)  # now: a Ctrl-C at the next question loses nothing
            answered += 1
    return answered


def _current(ledger: Ledger, item: Item) -> bool:
    judgement = ledger.find(*item.key)
    return judgement is not None and judgement.is_current(*item.hashes)


def _reader_request(item: Item) -> dict[str, Any]:
    return {
        "protocol": PROTOCOL,
        "label": item.label,
        "kind": item.kind,
        "number": item.number,
        "title": item.title,
        "statement": item.statement,
        "tex_file": _shown(item.tex_file) if item.tex_file else None,
        "tex_line": item.tex_line,
        "decl": item.decl,
        "declaration": item.declaration,
        "lean_file": _shown(item.lean_file) if item.lean_file else None,
        "lean_line": item.lean_line,
    }


def _ask_reader(command: str, item: Item, folder: Path) -> tuple[str, str] | None:
    from jigcli.run import ProgramMissing
    from jigcli.run import run as run_process

    argv = shlex.split(command)
    if not argv:
        raise UsageError("--reader needs a command, e.g. --reader 'python judge.py'.")
    request = json.dumps(_reader_request(item), ensure_ascii=False) + "\n"
    try:
        result = run_process(
            argv, cwd=folder, timeout=READER_TIMEOUT_SEC, stdin_data=request.encode()
        )
    except ProgramMissing as missing:
        raise UsageError(
            f"The reader {missing.program} was not found; check the --reader command."
        ) from missing
    name = item.label or item.decl
    if result.timed_out:
        err().print(
            f"jig: reader: no answer for {name} within {READER_TIMEOUT_SEC:g} s; left pending.",
            markup=False,
        )
        return None
    if result.returncode != 0:
        err().print(
            f"jig: reader: exited {result.returncode} on {name}; left pending.", markup=False
        )
        return None
    answer = parse_verdict_line(result.stdout)
    if answer is None:
        first = next((line for line in result.stdout.splitlines() if line.strip()), "")
        err().print(
            f"jig: reader: {first[:120]!r} on {name} is not a verdict; left pending.", markup=False
        )
    return answer


def parse_verdict_line(stdout: str) -> tuple[str, str] | None:
    """The reader's verdict and reason from its first non-empty line, or None."""
    line = next((line.strip() for line in stdout.splitlines() if line.strip()), "")
    if line.startswith("{"):
        try:
            data = json.loads(line)
        except ValueError:
            return None
        if not isinstance(data, dict):
            return None
        word, reason = data.get("verdict"), data.get("reason", "")
    else:
        word, _, reason = line.partition(":")
    if not isinstance(word, str) or not isinstance(reason, str):
        return None
    verdict = normalize_verdict(word)
    return (verdict, reason.strip()) if verdict in READER_VERDICTS else None


def _ask_person(item: Item) -> tuple[str, str] | None:
    from rich.prompt import Prompt

    _side_by_side(item)
    choices = [*READER_VERDICTS, "skip"]
    verdict = Prompt.ask("Verdict", choices=choices, default="skip", console=out())
    if verdict == "skip":
        return None
    reason = Prompt.ask("Reason (one sentence)", console=out())
    return verdict, reason.strip()


def _side_by_side(item: Item) -> None:
    from rich.syntax import Syntax
    from rich.table import Table
    from rich.text import Text

    table = Table(expand=True, show_lines=False)
    paper_side = item.heading()
    if item.tex_file is not None:
        paper_side += f" · {_shown(item.tex_file)}:{item.tex_line}"
    lean_side = f"{item.decl}"
    if item.lean_file is not None:
        lean_side += f" · {_shown(item.lean_file)}:{item.lean_line}"
    table.add_column(paper_side, ratio=1)
    table.add_column(lean_side, ratio=1)
    lean_text = item.declaration or "(declared outside this file)"
    table.add_row(
        Text(item.statement or ""), Syntax(lean_text, "lean", word_wrap=True, theme="ansi_dark")
    )
    out().print(table)


def _person() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "a person"


# -- 4. rows, summary, output -------------------------------------------------------------------


def _rows(subject: Subject, ledger: Ledger, only: Only = Only()) -> list[Row]:
    rows = []
    for item in subject.items:
        if not only.keeps(item.label, (item.tex_file, item.lean_file)):
            continue
        judgement = ledger.find(*item.key)
        if judgement is not None and judgement.is_current(*item.hashes):
            rows.append(Row(item.label, item.decl, judgement.verdict, True, judgement.reason))
        else:
            reason = STALE_WORDS if judgement is not None else NOT_JUDGED
            rows.append(Row(item.label, item.decl, "pending", False, reason))
    reason = _unstated_reason(subject)
    rows += [
        Row(None, d.full_name, "unstated", True, reason)
        for d in subject.unstated
        if only.keeps(None, (subject.lean,)) and not only.labels
    ]
    return rows


def _summary(rows: list[Row]) -> str:
    """`10 pairs: 1 mismatch, 4 not compared yet, 5 faithful`: every verdict, worst first."""
    from jigcli.verifiers.render import SEVERITY

    if not rows:
        return "No statement is paired with a declaration yet"
    if all(row.current and row.status == "ok" for row in rows):
        return f"{len(rows)} checked · {verdict_words(VERIFIER, 'faithful')}"
    counts = Counter(row.verdict for row in rows)
    order = sorted(counts, key=lambda v: (SEVERITY.index(verifier_status(VERIFIER, v)), v))
    named = {"pending": NOT_COMPARED.lower()}
    return f"{len(rows)} pairs: " + ", ".join(f"{counts[v]} {named.get(v, v)}" for v in order)


def _said(verdict: str) -> str:
    return NOT_COMPARED if verdict == "pending" else verdict_words(VERIFIER, verdict)


def _shown(path: Path) -> str:
    try:
        return path.resolve().relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return os.fspath(path)


def _to_json(subject: Subject, rows: list[Row], summary: str) -> dict[str, Any]:
    return {
        "verifier": VERIFIER,
        "ledger": _shown(subject.ledger),
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
        "missing_inputs": [
            {"file": _shown(p.file), "line": p.line, "command": p.command, "names": list(p.names)}
            for p in subject.missing
        ],
        "summary": summary,
    }


def _show(subject: Subject, rows: list[Row], summary: str) -> None:
    from rich.markup import escape

    from jigcli.verifiers.render import SEVERITY, mark, result_line

    places = {i.key: (i.tex_file or i.lean_file, i.tex_line or i.lean_line) for i in subject.items}
    places |= {(None, d.full_name): (subject.lean, d.line) for d in subject.unstated}
    console = out()
    for place in subject.missing:
        words = f"{missing_words(place)}; the statements it holds are not audited"
        console.print(result_line(_shown(place.file), place.line, "error", words))
    for row in rows:
        path, line = places.get((row.label, row.decl), (None, None))
        said = _said(row.verdict)
        pair = " ↔ ".join(part for part in (row.label, row.decl) if part)
        words = f"{pair} · {said}" + (f": {row.reason}" if row.reason else "")
        console.print(result_line(_shown(path) if path else "?", line, row.status, words))
    worst = min((row.status for row in rows), key=SEVERITY.index, default="ok")
    console.print(f"{mark(worst)} {escape(summary)} [dim](see {escape(_shown(subject.ledger))})[/]")
