"""A checker as a sandbox job: only the interpreter's own library folders are shown, never a
prefix that holds a home, whatever the interpreter is."""

import json
import os
import pwd
import shutil
import sys
from pathlib import Path

import pytest

from jigcli.certificates import isolation
from jigcli.certificates.checker import check_witness
from jigcli.sandbox.job import View
from jigcli.sandbox.views import check_view

from .conftest import HOSTILE, SMALL


def test_jigs_own_interpreter_is_shown_without_its_prefix():
    python = isolation.default_python()
    view = isolation.interpreter_view(python)
    prefix = Path(sys.base_prefix)
    assert prefix not in view.read_only and prefix.parent not in view.read_only
    if not python.is_relative_to("/usr"):
        assert python in view.read_only
    for shown in view.read_only:  # the executable, the stdlib, shared libraries: no more
        assert shown == python or shown.is_dir() or ".so" in shown.name, shown


def test_a_view_that_holds_a_home_is_refused(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "lib").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    refused = check_view(View(read_only=(tmp_path,)))
    assert refused is not None and f"home folder {home}" in refused
    assert check_view(View(read_only=(home,))) is not None
    assert check_view(View(writable=(home,))) is not None
    assert check_view(View(read_only=(home / "lib",))) is None  # inside a home is the job's call


def test_a_home_known_only_after_a_first_check_is_refused_too(tmp_path, monkeypatch):
    """The homes are kept between checks (a batch checks a view per run) but read again
    when `$HOME` or the password file changes: a new account is not missed."""
    from jigcli.sandbox import views

    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    monkeypatch.setenv("HOME", str(first))
    assert check_view(View(read_only=(second,))) is None
    monkeypatch.setenv("HOME", str(second))
    assert check_view(View(read_only=(second,))) is not None
    accounts = [pwd_entry(first)]
    monkeypatch.setattr(views.pwd, "getpwall", lambda: accounts)
    monkeypatch.setattr(views, "_passwd_stamp", lambda: (len(accounts),))
    monkeypatch.delenv("HOME")
    assert check_view(View(read_only=(first,))) is not None
    accounts.append(pwd_entry(second))  # a user added while jig runs
    assert check_view(View(read_only=(second,))) is not None


def pwd_entry(home: Path) -> pwd.struct_passwd:
    return pwd.struct_passwd(("user", "x", 1001, 1001, "", str(home), "/bin/sh"))


@pytest.fixture
def python_in_a_home(tmp_path, monkeypatch):
    """An interpreter whose prefix is the invoker's home (built with --prefix=$HOME), with an
    SSH key beside it."""
    real = isolation.default_python()
    if real.is_relative_to("/usr"):
        pytest.skip("jig's interpreter is the system's; no prefix of its own to copy")
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "lib").mkdir()
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("ssh-key-canary-41d9")
    shutil.copy(real, home / "bin" / real.name)
    stdlib = Path(isolation.interpreter_view(real).read_only[1])
    (home / "lib" / stdlib.name).symlink_to(stdlib)
    monkeypatch.setenv("HOME", str(home))
    return home, home / "bin" / real.name


def test_an_interpreter_under_a_home_shows_nothing_else_of_it(sandboxed, python_in_a_home):
    home, python = python_in_a_home
    view = isolation.interpreter_view(python)
    assert home not in view.read_only
    canary = home / ".ssh" / "id_ed25519"
    source = (HOSTILE / "read_canary.py").read_bytes()
    outcome = check_witness(
        source, json.dumps({"path": str(canary)}).encode(), SMALL, python=python
    )
    assert outcome.isolation is not None, outcome.detail
    assert outcome.reason == "invalid_witness", outcome.detail
    assert "ssh-key-canary-41d9" not in json.dumps(outcome._asdict(), default=str)


def test_a_prefix_that_is_the_home_would_have_been_refused(python_in_a_home):
    home, python = python_in_a_home
    assert check_view(View(read_only=(python.parent.parent,))) is not None
    assert os.path.realpath(python.parent.parent) == str(home.resolve())
