"""Placeholder for subcommands whose implementation has not landed yet."""

from __future__ import annotations

from typing import NoReturn

from jigcli.errors import NotBuiltYet


def refuse(command: str, issue: int) -> NoReturn:
    raise NotBuiltYet(f"`jig {command}` is not built yet (issue #{issue}); nothing was done.")
