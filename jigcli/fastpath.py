"""The `jig` entry point: a plain `jig verify` or `jig compile` starts without typer.

typer, and pydantic behind its parameter coercion, cost about 0.15 s to import and set up:
longer than verifying a certificate, and longer than a rebuild with nothing changed takes.
`verify_arguments` recognises a plain `jig verify` invocation, made only of the options in
`jigcli.options.verify`'s table (from which `jigcli.cli` declares them too), each well-formed,
and returns exactly the keyword arguments that command would pass
`jigcli.commands.verify.run`; `compile_arguments` does the same for `jig compile` (a test
holds each to agreement with typer). Anything else, help, an unknown option, a value typer
would refuse or an environment value this module does not read itself, returns None and goes
through typer, which parses it and says what is wrong.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from jigcli.errors import guarded
from jigcli.options import ROOT, Command, Option
from jigcli.options.compile import COMPILE

# The spellings of a flag's environment variable read here; typer reads any other.
_ENV_FLAG = {"": False, "0": False, "1": True}


def verify_arguments(
    argv: Sequence[str], env: Mapping[str, str] = os.environ
) -> dict[str, Any] | None:
    """`commands.verify.run`'s arguments for `argv` (without the program), or None for typer."""
    args = list(argv)
    global_root: str | None = None
    if args[:1] == [ROOT.flag] and len(args) > 2:
        global_root, args = args[1], args[2:]
    if args[:1] != ["verify"]:
        return None
    # Here, not above: verify's table imports its defaults from the pipelines' modules,
    # which `jig compile` does not need.
    from jigcli.options.verify import VERIFY

    arguments = _arguments(VERIFY, args[1:], env)
    if arguments is None:
        return None
    if global_root is not None and arguments[ROOT.keyword] is None:
        if not _plain(global_root):
            return None
        arguments[ROOT.keyword] = Path(global_root)
    return arguments


def compile_arguments(
    argv: Sequence[str], env: Mapping[str, str] = os.environ
) -> dict[str, Any] | None:
    """`commands.compile.run`'s arguments for `argv` (without the program), or None for typer."""
    args = list(argv)
    if args[:1] != [COMPILE.name]:
        return None
    return _arguments(COMPILE, args[1:], env)


def _arguments(command: Command, args: list[str], env: Mapping[str, str]) -> dict[str, Any] | None:
    """The keywords `command`'s run takes for `args` (after the command's name): each option
    given, else from its environment variable, else its default."""
    walked = _walk(command, args)
    if walked is None:
        return None
    positional, given = walked
    if not positional or not all(map(_plain, positional)):
        return None
    if len(positional) > 1 and not command.several:
        return None
    paths = [Path(text) for text in positional]
    arguments: dict[str, Any] = {command.argument: paths if command.several else paths[0]}
    for option in command.options:
        if option.keyword in given:
            arguments[option.keyword] = given[option.keyword]
        elif option.envvar is not None and option.envvar in env:
            from_env = _from_env(option, env[option.envvar])
            if from_env is None:
                return None
            arguments[option.keyword] = from_env
        else:
            arguments[option.keyword] = option.default
    return arguments


def _walk(command: Command, args: list[str]) -> tuple[list[str], dict[str, Any]] | None:
    """`args` read along `command`'s table: the positional arguments and each option given
    (by keyword), or None at anything typer is the one to judge."""
    by_flag = {option.flag: option for option in command.options}
    positional: list[str] = []
    given: dict[str, Any] = {}
    index = 0
    while index < len(args):
        token = args[index]
        name, has_value, value = token.partition("=")
        option = by_flag.get(name)
        if option is not None and not option.takes_value and not has_value:
            given[option.keyword] = True
        elif option is not None and option.takes_value and (has_value or index + 1 < len(args)):
            if not has_value:
                index += 1
                value = args[index]
            read = _read(option, value)
            if read is None:
                return None
            given[option.keyword] = read
        elif token.startswith("-"):
            return None  # help, `--`, an unknown or incomplete option: typer's to judge
        else:
            positional.append(token)
        index += 1
    return positional, given


def _read(option: Option[Any], text: str) -> Any:
    """The option's value from `text`, or None where typer is the one to read it."""
    if not _plain(text) or option.read is None:
        return None
    return option.read(text)


def _from_env(option: Option[Any], text: str) -> bool | None:
    """A flag's value from its environment variable, or None where typer is the one to read
    it (a spelling not in `_ENV_FLAG`, or an option that takes a value)."""
    return None if option.takes_value else _ENV_FLAG.get(text)


def _plain(value: str) -> bool:
    """A value typer would read as written (not empty, not looking like an option)."""
    return bool(value) and not value.startswith("-")


def main() -> None:
    """Run a plain `jig verify` or `jig compile` directly; hand anything else to typer."""
    arguments = verify_arguments(sys.argv[1:])
    if arguments is not None:
        from jigcli.commands.verify import run

        guarded(lambda: run(**arguments))
    compiling = compile_arguments(sys.argv[1:])
    if compiling is not None:
        from jigcli.commands.compile import run as compile_command

        guarded(lambda: compile_command(**compiling))
    from jigcli.cli import main as full

    full()
