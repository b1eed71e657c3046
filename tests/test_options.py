"""The option tables and the typer app declare the same options, and the fast path that walks
the tables imports neither typer nor what `jig compile` does not need."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import typer

from jigcli.certificates.spec import LANES
from jigcli.cli import app
from jigcli.options import ROOT, Command, Option
from jigcli.options.compile import COMPILE
from jigcli.options.verify import LANE, TIMEOUT, VERIFY
from jigcli.verify.context import DEFAULT_TIMEOUT_SEC

HELP = {"-h", "--help"}


def _typer_command(name: str) -> Any:
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def _typer_options(command: Any) -> dict[str, Any]:
    return {
        param.opts[0]: param
        for param in command.params
        if param.param_type_name == "option" and not set(param.opts) & HELP
    }


def _agree(option: Option[Any], param: Any) -> None:
    assert param.opts == [option.flag] and not param.secondary_opts
    assert param.name == option.keyword
    assert param.default == option.default
    assert param.help == option.help
    assert param.envvar == option.envvar
    assert param.is_flag is not option.takes_value


@pytest.mark.parametrize("table", [VERIFY, COMPILE], ids=lambda table: table.name)
def test_typer_declares_exactly_the_tables_options(table: Command) -> None:
    command = _typer_command(table.name)
    declared = _typer_options(command)
    assert set(declared) == {option.flag for option in table.options}
    for option in table.options:
        _agree(option, declared[option.flag])
    (argument,) = [param for param in command.params if param.param_type_name == "argument"]
    assert argument.name == table.argument


def test_the_global_root_is_the_tables_root() -> None:
    (root,) = [param for param in typer.main.get_command(app).params if "--root" in param.opts]
    _agree(ROOT, root)


def test_verify_takes_its_defaults_from_their_homes() -> None:
    assert TIMEOUT.default == DEFAULT_TIMEOUT_SEC
    assert LANE.default in LANES
    assert all(name in LANE.help for name in LANES)


def _imported_after(code: str) -> set[str]:
    """The top-level packages and jigcli modules a fresh interpreter holds after `code`."""
    shown = (
        "import sys; print('\\n'.join(n for n in sys.modules "
        "if '.' not in n or n.startswith('jigcli.')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", f"{code}\n{shown}"], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


UI_PACKAGES = {"typer", "click", "rich", "pydantic"}


def test_the_fast_path_imports_no_typer_rich_or_pydantic() -> None:
    loaded = _imported_after(
        "from jigcli import fastpath\n"
        "assert fastpath.verify_arguments(['verify', 'm.json'], {}) is not None\n"
        "assert fastpath.compile_arguments(['compile', 'p.tex'], {}) is not None\n"
        "import jigcli.commands.verify, jigcli.commands.compile"
    )
    assert not loaded & UI_PACKAGES


def test_the_compile_fast_path_leaves_verifys_modules_alone() -> None:
    loaded = _imported_after(
        "from jigcli import fastpath\n"
        "assert fastpath.compile_arguments(['compile', 'p.tex'], {}) is not None\n"
        "assert fastpath.verify_arguments(['compile', 'p.tex'], {}) is None"
    )
    assert not loaded & {"jigcli.options.verify", "jigcli.verify.context", "jigcli.process"}
