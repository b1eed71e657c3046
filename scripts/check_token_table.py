"""Compare the token table Lean prints (`scripts/token_table.lean`) with the policy's own.

    lake env lean scripts/token_table.lean > token-table.txt
    python scripts/check_token_table.py token-table.txt

The policy reads a symbol it has no entry for one character at a time, which is the way Lean
reads it unless the token changes reading (`jigcli.lean.lexer.changes_reading`); it knows the
`#` commands and `name%` elaborators by name, and the tactic names it reads configurations
after. Exits 1, naming each token of Lean's table the policy lacks and the file to add it to,
when one of those is missing; 0 when none is; 2 when the printout holds no token at all.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from jigcli.lean.lexer import ID_FIRST, ID_REST, PINNED_SYMBOLS, TOKENS, changes_reading

PREFIX = "token: "
_COMMAND = re.compile(rf"#[{ID_FIRST}][{ID_REST}]*")
_PERCENT = re.compile(rf"[{ID_FIRST}][{ID_REST}]*%")


def lean_tokens(printout: str) -> set[str]:
    return {line[len(PREFIX) :] for line in printout.splitlines() if line.startswith(PREFIX)}


def missing(tokens: set[str]) -> dict[str, list[str]]:
    """The tokens of `tokens` the policy must know and does not, by the table they belong to."""
    commands, percents = set(TOKENS["hash_commands"]), set(TOKENS["percent_tokens"])
    found: dict[str, list[str]] = {"hash_commands": [], "percent_tokens": [], "symbols": []}
    for token in sorted(tokens):
        if _COMMAND.fullmatch(token):
            if token not in commands:
                found["hash_commands"].append(token)
        elif _PERCENT.fullmatch(token):
            if token not in percents:
                found["percent_tokens"].append(token)
        elif changes_reading(token) and token not in PINNED_SYMBOLS | commands | percents:
            found["symbols"].append(token)
    return {table: names for table, names in found.items() if names}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: check_token_table.py TOKEN_TABLE_PRINTOUT", file=sys.stderr)
        return 2
    try:
        tokens = lean_tokens(Path(argv[0]).read_text(encoding="utf-8", errors="replace"))
    except OSError as error:
        print(
            f"cannot read {argv[0]} ({error.strerror}); pass the file token_table.lean printed.",
            file=sys.stderr,
        )
        return 2
    if not tokens:
        print(
            f"{argv[0]}: no `{PREFIX}` line; run scripts/token_table.lean first.", file=sys.stderr
        )
        return 2
    gaps = missing(tokens)
    for table, names in gaps.items():
        for name in names:
            print(f"jigcli/lean/tokens.yaml: {table}: missing {name!r}")
    if gaps:
        print("add each with the source that declares it; the policy misreads files without it")
        return 1
    print(f"the policy knows every token of Lean's table it must ({len(tokens)} tokens read)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
