"""The reader protocol (`jig audit --reader CMD`, version `jig.audit.reader.v1`).

CMD is split like a shell would split it (no shell runs it) and started once per pair that
needs a verdict, in the paper's folder, through jig's process runner, with a time limit per
pair. Its standard input is one JSON object on one line:

    {"protocol": "jig.audit.reader.v1", "label": "thm:main", "kind": "theorem",
     "number": "2.1", "title": "Main result", "statement": "<the statement's LaTeX>",
     "tex_file": "paper.tex", "tex_line": 12, "decl": "Paper.main",
     "declaration": "<the declaration's Lean source>", "lean_file": "paper.lean",
     "lean_line": 30}

Its answer is the first non-empty line it prints: a JSON object
`{"verdict": "faithful", "reason": "…"}`, or the plain form `faithful: <reason>`. The verdict is
one of `faithful`, `partial`, `mismatch`, `refuted` (compared trimmed and lowercased). Any
other answer, a non-zero exit or running out of time leaves the pair `pending`, saying why;
nothing is recorded for it.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.console import shown_path
from jigcli.errors import UsageError
from jigcli.paper.ledger import READER_VERDICTS, Item, Judge
from jigcli.verifiers.contract import normalize_verdict

PROTOCOL = "jig.audit.reader.v1"
READER_TIMEOUT_SEC = 600.0


@dataclass(frozen=True)
class Answer:
    verdict: str  # one of READER_VERDICTS
    reason: str


@dataclass(frozen=True)
class NoAnswer:
    """A pair left pending by its reader: a person's skip (`why` None), or why a command gave
    no verdict."""

    why: str | None = None


class CommandReader:
    """A command that judges each pair by the protocol above, started in `folder`."""

    def __init__(self, command: str, folder: Path) -> None:
        self.command = command
        self.folder = folder
        self.judge = Judge("reader", command)

    def answer(self, item: Item) -> Answer | NoAnswer:
        from jigcli.process import ProgramMissing, run_bounded

        argv = shlex.split(self.command)
        if not argv:
            raise UsageError("--reader needs a command, e.g. --reader 'python judge.py'.")
        request = json.dumps(reader_request(item), ensure_ascii=False) + "\n"
        try:
            result = run_bounded(
                argv, cwd=self.folder, timeout=READER_TIMEOUT_SEC, stdin_data=request.encode()
            )
        except ProgramMissing as missing:
            raise UsageError(
                f"The reader {missing.program} was not found; check the --reader command."
            ) from missing
        name = item.label or item.decl
        if result.timed_out:
            return NoAnswer(
                f"reader: no answer for {name} within {READER_TIMEOUT_SEC:g} s; left pending."
            )
        if result.returncode != 0:
            return NoAnswer(f"reader: exited {result.returncode} on {name}; left pending.")
        answer = parse_verdict_line(result.stdout)
        if answer is None:
            first = next((line for line in result.stdout.splitlines() if line.strip()), "")
            return NoAnswer(f"reader: {first[:120]!r} on {name} is not a verdict; left pending.")
        return answer


def reader_request(item: Item) -> dict[str, Any]:
    return {
        "protocol": PROTOCOL,
        "label": item.label,
        "kind": item.kind,
        "number": item.number,
        "title": item.title,
        "statement": item.statement,
        "tex_file": shown_path(item.tex_file) if item.tex_file else None,
        "tex_line": item.tex_line,
        "decl": item.decl,
        "declaration": item.declaration,
        "lean_file": shown_path(item.lean_file) if item.lean_file else None,
        "lean_line": item.lean_line,
    }


def parse_verdict_line(stdout: str) -> Answer | None:
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
    return Answer(verdict, reason.strip()) if verdict in READER_VERDICTS else None
