"""`jig audit FILE.tex|Statements/LABEL.lean [--review] [--reader CMD] [--label PATTERN]
[--file PATH] [--json]`: the `audit` verifier (`jigcli.paper.audit`) — does each declaration
say what its statement says?

`--review` asks you, pair by pair, showing the statement and the declaration side by side;
`--reader CMD` asks a command (`jigcli.paper.reader` holds its protocol). Each answer is saved
as it is given, so Ctrl-C keeps every answer already given. Without either, nothing is judged.
One line per pair, `--json` one document (`jigcli.render.audit` says what each holds). Exit 0
only when every pair shown is current and ok and no recorded failure (a mismatch, refuted,
unstated) lies outside `--label`/`--file`: a filter narrows what is shown and judged, not
whether the paper passes.
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from pathlib import Path

from jigcli.console import emit_json, err, out, shown_path
from jigcli.errors import UsageError
from jigcli.paper import audit
from jigcli.paper.ledger import READER_VERDICTS, Item, Judge, Ledger
from jigcli.paper.reader import Answer, CommandReader, NoAnswer
from jigcli.render import audit as render


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
    only = audit.Only(tuple(labels), tuple(_existing(f) for f in files))
    subject = audit.open_subject(file)
    ledger = audit.load_ledger(subject)
    if review or reader is not None:
        judge = _Person() if reader is None else CommandReader(reader, subject.folder)
        _judge(subject, ledger, judge, only)
    rows = audit.rows(subject, ledger, only)
    every = audit.rows(subject, ledger) if only else rows
    scope = render.Scope(only.describe(), len(every), audit.hidden_failures(rows, every))
    code = 0 if audit.passed(subject, rows) and not scope.hidden_failures else 1
    if as_json:
        emit_json(render.document(subject, rows, scope, exit_code=code))
    else:
        render.show(subject, rows, scope)
    return code


def _existing(path: Path) -> Path:
    if not path.exists():
        raise UsageError(f"--file {path}: no such file; pass a .tex or .lean file of the paper.")
    return path.resolve()


def _judge(subject: audit.Subject, ledger: Ledger, reader: audit.Reader, only: audit.Only) -> None:
    from rich.markup import escape

    voice = audit.Voice(
        note=lambda words: err().print(f"[dim]{escape(words)}[/]"),
        problem=lambda words: err().print(f"jig: {words}", markup=False),
    )
    where = shown_path(subject.ledger)
    try:
        answered = audit.judge_pending(subject, ledger, reader, only, voice)
    except KeyboardInterrupt:
        err().print(
            f"\njig: interrupted; the answers given so far are kept in {where}.", markup=False
        )
        raise
    if answered:
        voice.note(f"{answered} answer(s) saved in {where}")


class _Person:
    """You, at the terminal: each pair side by side, then a verdict and a reason."""

    def __init__(self) -> None:
        try:
            name = getpass.getuser()
        except (KeyError, OSError):
            name = "a person"
        self.judge = Judge("person", name)

    def answer(self, item: Item) -> Answer | NoAnswer:
        from rich.prompt import Prompt

        render.side_by_side(item)
        try:
            verdict = _ask_verdict()
            if verdict == "skip":
                return NoAnswer()
            reason = Prompt.ask("Reason (one sentence)", console=out())
        except EOFError:  # the person closed the prompts: keep what was judged
            out().print()  # end the unanswered prompt's line
            raise audit.InputEnded from None
        return Answer(verdict, reason.strip())


VERDICT_CHOICES = (*READER_VERDICTS, "skip")


def chosen_verdict(said: str) -> str | None:
    """The verdict an answer names: in full or by its first letters (`f` is faithful), or
    None when it names none or several."""
    said = said.strip().lower()
    matches = [choice for choice in VERDICT_CHOICES if said and choice.startswith(said)]
    return matches[0] if len(matches) == 1 else None


def _ask_verdict() -> str:
    from rich.markup import escape
    from rich.prompt import Prompt

    choices = "/".join(VERDICT_CHOICES)
    while True:
        said = Prompt.ask(f"Verdict {escape(f'[{choices}]')}", default="skip", console=out())
        verdict = chosen_verdict(said)
        if verdict is not None:
            return verdict
        out().print(f"Answer one of {', '.join(VERDICT_CHOICES)}; a first letter is enough.")
