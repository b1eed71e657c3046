"""The commands the README, CONTRIBUTING.md and docs/ show, read out of their Markdown so the
tests can run each as a reader would.

A ```` ```bash ```` block is a list of commands, one a line (a trailing `\\` continues it),
each with an optional `# comment`; a ```` ```console ```` block is a session: `$ command`
lines, each followed by the output it shows, where `…` stands for anything. The exit a
command must give is in its comment: "exit N", or "N without Lean" when it depends on Lean
(the docs' commands are run on a machine without it, where the README's words are exact);
no comment means 0. `cd DIR` moves the rest of the page there.

Set-up commands (installing, cloning, fetching Lean) are not run here: a clean clone running
`.ci/run` is their test. Any other command a page shows is an error of the page, so that no
command slips past the tests unseen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

SETUP = frozenset(
    {"git", "python3", "python", ".", "source", "pip", "curl", "lake", "elan", "apt-get", "sudo"}
)
_FENCE = re.compile(r"^```(bash|console)\n(.*?)^```", re.DOTALL | re.MULTILINE)
_FILE_BLOCK = re.compile(r"<!-- file: (\S+) -->\n```[a-z]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


@dataclass
class Command:
    text: str
    line: int  # where the page shows it
    comment: str = ""
    shown: list[str] = field(default_factory=list)  # the output a console block shows

    @property
    def program(self) -> str:
        return self.text.split(maxsplit=1)[0] if self.text else ""

    @property
    def expected_exit(self) -> int:
        without = re.search(r"(\d) without", self.comment)
        said = without or re.search(r"exit (\d)", self.comment)
        return int(said.group(1)) if said else 0


def commands(page: Path) -> list[Command]:
    """Every command `page` shows, in its order."""
    text = page.read_text(encoding="utf-8")
    found: list[Command] = []
    for block in _FENCE.finditer(text):
        first_line = text.count("\n", 0, block.start(2)) + 1
        read = _session if block.group(1) == "console" else _script
        found += read(block.group(2), first_line)
    return found


def file_blocks(page: Path) -> list[tuple[str, str]]:
    """(repo path, text) of each block a page says is a file of the repo."""
    text = page.read_text(encoding="utf-8")
    return [(m.group(1), m.group(2)) for m in _FILE_BLOCK.finditer(text)]


def _logical_lines(body: str, first_line: int) -> list[tuple[int, str]]:
    """The block's lines with `\\`-continued lines joined, each with where it starts."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, raw in enumerate(body.splitlines(), start=first_line):
        if pending is not None:
            start, so_far = pending
            line = (start, so_far + " " + raw.strip())
        else:
            line = (number, raw)
        if line[1].rstrip().endswith("\\"):
            pending = (line[0], line[1].rstrip()[:-1].rstrip())
            continue
        pending = None
        joined.append(line)
    return joined


def _script(body: str, first_line: int) -> list[Command]:
    found = []
    for number, line in _logical_lines(body, first_line):
        command, comment = split_comment(line.strip())
        if command:
            found.append(Command(command, number, comment))
    return found


def _session(body: str, first_line: int) -> list[Command]:
    found: list[Command] = []
    for number, line in _logical_lines(body, first_line):
        if line.startswith("$ "):
            command, comment = split_comment(line[2:].strip())
            found.append(Command(command, number, comment))
        elif found and line.strip():
            found[-1].shown.append(line.rstrip())
    return found


def split_comment(line: str) -> tuple[str, str]:
    """A shell line's command and its `# comment` (a `#` outside quotes, after a blank)."""
    quote = ""
    for at, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (at == 0 or line[at - 1].isspace()):
            return line[:at].strip(), line[at + 1 :].strip()
    return line.strip(), ""


def shown_pattern(shown: str) -> re.Pattern[str]:
    """A line of shown output as a pattern: exact, but `…` matches anything."""
    return re.compile(".*".join(re.escape(part) for part in shown.split("…")))
