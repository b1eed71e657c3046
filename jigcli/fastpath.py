"""The `jig` entry point: a plain `jig verify` or `jig compile` starts without typer.

typer, and pydantic behind its parameter coercion, cost about 0.15 s to import and set up:
longer than verifying a certificate, and longer than a rebuild with nothing changed takes.
`verify_arguments` recognises a plain `jig verify` invocation, made only of the options
`jigcli.cli.verify` declares, each well-formed, and returns exactly the keyword arguments that
command would pass `jigcli.commands.verify.run`; `compile_arguments` does the same for `jig
compile` (a test holds each to agreement with typer). Anything else, help, an unknown option
or a value typer would refuse, returns None and goes through typer, which parses it and says
what is wrong.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jigcli.errors import guarded

# The options `jig verify` declares: those taking a value, and the flags.
VALUE_OPTIONS = ("--statement", "--out", "--timeout", "--lane", "--root")
FLAGS = ("--json", "--allow-no-netns")
# The options `jig compile` declares.
COMPILE_VALUE_OPTIONS = ("--engine",)
COMPILE_FLAGS = ("--json", "--watch", "--no-build")


def verify_arguments(argv: Sequence[str], env: Mapping[str, str]) -> dict[str, Any] | None:
    """`commands.verify.run`'s arguments for `argv` (without the program), or None for typer."""
    args = list(argv)
    global_root: str | None = None
    if args[:1] == ["--root"] and len(args) > 2:
        global_root, args = args[1], args[2:]
    if args[:1] != ["verify"]:
        return None
    options = _options(args[1:], VALUE_OPTIONS, FLAGS)
    if options is None:
        return None
    positional, values, flags = options
    if len(positional) != 1 or not _plain(positional[0]):
        return None
    timeout = _timeout(values.get("--timeout", "1200"))
    if timeout is None:
        return None
    root = values.get("--root", global_root)
    if root is not None and not _plain(root):
        return None
    return {
        "manifest": Path(positional[0]),
        "statement_id": values.get("--statement"),
        "out": Path(values["--out"]) if "--out" in values else None,
        "as_json": "--json" in flags,
        "timeout": timeout,
        "lane": values.get("--lane", "default"),
        "allow_no_netns": "--allow-no-netns" in flags or env.get("JIG_ALLOW_NO_NETNS") == "1",
        "root": Path(root) if root is not None else None,
    }


def compile_arguments(argv: Sequence[str]) -> dict[str, Any] | None:
    """`commands.compile.run`'s arguments for `argv` (without the program), or None for typer."""
    args = list(argv)
    if args[:1] != ["compile"]:
        return None
    options = _options(args[1:], COMPILE_VALUE_OPTIONS, COMPILE_FLAGS)
    if options is None:
        return None
    positional, values, flags = options
    if len(positional) != 1 or not _plain(positional[0]):
        return None
    return {
        "file": Path(positional[0]),
        "as_json": "--json" in flags,
        "watch": "--watch" in flags,
        "no_build": "--no-build" in flags,
        "engine": values.get("--engine"),
    }


def _options(
    args: list[str], value_options: Sequence[str], flag_options: Sequence[str]
) -> tuple[list[str], dict[str, str], set[str]] | None:
    positional: list[str] = []
    values: dict[str, str] = {}
    flags: set[str] = set()
    index = 0
    while index < len(args):
        token = args[index]
        name, has_value, value = token.partition("=")
        if token in flag_options:
            flags.add(token)
        elif name in value_options and has_value:
            values[name] = value
        elif token in value_options and index + 1 < len(args):
            values[token] = args[index + 1]
            index += 1
        elif token.startswith("-"):
            return None  # help, `--`, an unknown or incomplete option: typer's to judge
        else:
            positional.append(token)
        index += 1
    if any(not _plain(value) for value in values.values()):
        return None
    return positional, values, flags


def _plain(value: str) -> bool:
    """A value typer would read as written (not empty, not looking like an option)."""
    return bool(value) and not value.startswith("-")


def _timeout(text: str) -> float | None:
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 1 else None


def main() -> None:
    """Run a plain `jig verify` or `jig compile` directly; hand anything else to typer."""
    arguments = verify_arguments(sys.argv[1:], os.environ)
    if arguments is not None:
        from jigcli.commands.verify import run

        guarded(lambda: run(**arguments))
    compiling = compile_arguments(sys.argv[1:])
    if compiling is not None:
        from jigcli.commands.compile import run as compile_command

        guarded(lambda: compile_command(**compiling))
    from jigcli.cli import main as full

    full()
