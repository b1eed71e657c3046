"""The typer-free `jig verify` path parses exactly as the typer app does, or defers to it."""

import pytest
import typer
from typer.testing import CliRunner

from jigcli import fastpath
from jigcli.cli import app
from jigcli.options.verify import VERIFY

AGREED = [
    ["verify", "m.json"],
    ["verify", "m.json", "--json"],
    ["verify", "--json", "m.json", "--lane", "heavy", "--timeout", "30"],
    ["verify", "m.json", "--timeout=2.5", "--statement=C001", "--out", "v.json"],
    ["verify", "m.json", "--allow-no-netns", "--root", "repo"],
    ["--root", "global", "verify", "m.json"],
    ["--root", "global", "verify", "m.json", "--root", "local"],
    ["verify", "m.json", "--lane", "turbo"],  # run() refuses the lane, for both paths
    ["verify", "m.json", "--statement", "a=b"],
    ["verify", "m.json", "--jobs", "2"],
    ["verify", "a.json", "b.json"],  # a batch pays no typer either
    ["verify", "a.json", "--json", "b.json", "folder", "--jobs", "2"],
]
DEFERRED = [
    ["verify"],
    ["verify", "--help"],
    ["verify", "a.json", "-b.json"],
    ["verify", "m.json", "--timeout", "0.5"],
    ["verify", "m.json", "--timeout", "soon"],
    ["verify", "m.json", "--timeout", "nan"],
    ["verify", "m.json", "--lane"],
    ["verify", "m.json", "--statement", "--json"],
    ["verify", "m.json", "--bogus"],
    ["verify", "m.json", "--json=1"],
    ["verify", "--", "-m.json"],
    ["--version"],
    ["selftest"],
    ["--root"],
]


def _through_typer(argv, monkeypatch):
    seen = {}

    def capture(manifest, **kwargs):
        seen.update(manifest=manifest, **kwargs)
        return 0

    monkeypatch.setattr("jigcli.commands.verify.run", capture)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    return seen


@pytest.mark.parametrize("argv", AGREED)
@pytest.mark.parametrize("allow_env", [None, "1", "0"])
def test_the_fast_path_passes_what_typer_passes(argv, allow_env, monkeypatch):
    if allow_env is None:
        monkeypatch.delenv("JIG_ALLOW_NO_NETNS", raising=False)
    else:
        monkeypatch.setenv("JIG_ALLOW_NO_NETNS", allow_env)
    env = {} if allow_env is None else {"JIG_ALLOW_NO_NETNS": allow_env}
    assert fastpath.verify_arguments(argv, env) == _through_typer(argv, monkeypatch)


@pytest.mark.parametrize("argv", DEFERRED)
def test_anything_else_is_left_to_typer(argv):
    assert fastpath.verify_arguments(argv, {}) is None


def test_the_fast_path_knows_exactly_the_options_typer_declares():
    command = typer.main.get_command(app).commands["verify"]  # type: ignore[attr-defined]
    declared = {name for param in command.params for name in param.opts if name.startswith("-")}
    assert declared - {"-h", "--help"} == {option.flag for option in VERIFY.options}


COMPILE_AGREED = [
    ["compile", "paper.tex"],
    ["compile", "--json", "paper.tex"],
    ["compile", "paper.tex", "--engine", "xelatex", "--no-build"],
    ["compile", "paper.tex", "--engine=lualatex", "--watch"],
    ["compile", "paper.tex", "--engine", "tex"],  # run() refuses the engine, for both paths
]
COMPILE_DEFERRED = [
    ["compile"],
    ["compile", "--help"],
    ["compile", "a.tex", "b.tex"],
    ["compile", "paper.tex", "--engine"],
    ["compile", "paper.tex", "--engine", "--json"],
    ["compile", "paper.tex", "--root", "x"],
    ["--root", "x", "compile", "paper.tex"],
    ["lean-check", "paper.tex"],
]


@pytest.mark.parametrize("argv", COMPILE_AGREED)
def test_the_compile_fast_path_passes_what_typer_passes(argv, monkeypatch):
    seen = {}

    def capture(file, **kwargs):
        seen.update(file=file, **kwargs)
        return 0

    monkeypatch.setattr("jigcli.commands.compile.run", capture)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 0, result.output
    assert fastpath.compile_arguments(argv) == seen


@pytest.mark.parametrize("argv", COMPILE_DEFERRED)
def test_anything_else_about_compile_goes_through_typer(argv):
    assert fastpath.compile_arguments(argv) is None


# What JIG_ALLOW_NO_NETNS means, read by typer; the fast path reads "1", "0" and "" itself.
ALLOW_SPELLINGS = {"1": True, "0": False, "": False, "true": True, "YES": True, " on ": True}
ALLOW_SPELLINGS |= {"y": True, "t": True, "false": False, "No": False, "off": False}


@pytest.mark.parametrize(("value", "meant"), ALLOW_SPELLINGS.items())
def test_jig_allow_no_netns_means_the_same_on_both_paths(value, meant, monkeypatch):
    monkeypatch.setenv("JIG_ALLOW_NO_NETNS", value)
    assert _through_typer(["verify", "m.json"], monkeypatch)["allow_no_netns"] is meant
    fast = fastpath.verify_arguments(["verify", "m.json"], {"JIG_ALLOW_NO_NETNS": value})
    if value in ("1", "0", ""):
        assert fast is not None
    assert fast is None or fast["allow_no_netns"] is meant


@pytest.mark.parametrize("value", ["2", "please", "1.0"])
def test_any_other_jig_allow_no_netns_is_typers_to_refuse(value, monkeypatch):
    assert fastpath.verify_arguments(["verify", "m.json"], {"JIG_ALLOW_NO_NETNS": value}) is None
    monkeypatch.setenv("JIG_ALLOW_NO_NETNS", value)
    result = CliRunner().invoke(app, ["verify", "m.json"])
    assert result.exit_code == 2 and "--allow-no-netns" in result.output
