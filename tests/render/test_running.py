"""What one `jig verify` shows on stderr while a slow check runs."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console

from jigcli.render.running import STEP_WORDS, step_words, watching

MANIFEST = "Submissions/S001/AliceDirect.json"


def _terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=80, color_system=None)
    monkeypatch.setattr("jigcli.console.err", lambda: terminal)
    monkeypatch.setattr("jigcli.render.running.on_terminal", lambda: True)
    return screen


def test_off_a_terminal_a_quick_run_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with watching(MANIFEST, quiet=False) as tick:
        for tenth in range(90):
            tick("checker", tenth / 10)
    assert capsys.readouterr() == ("", "")


def test_off_a_terminal_a_long_step_gets_one_line_naming_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with watching(MANIFEST, quiet=False) as tick:
        tick("static_policy", 0.0)
        tick("comparator", 0.5)
        for tenth in range(5, 400):
            tick("comparator", tenth / 10)
    assert capsys.readouterr().err == (
        f"jig verify {MANIFEST}: building and judging the proof with comparator (10 s so far)\n"
    )


def test_json_off_a_terminal_shows_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    with watching(MANIFEST, quiet=True) as tick:
        tick("comparator", 0.0)
        tick("comparator", 60.0)
    assert capsys.readouterr() == ("", "")


def test_on_a_terminal_the_line_appears_once_the_run_is_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    screen = _terminal(monkeypatch)
    with watching(MANIFEST, quiet=False) as tick:
        tick("checker", 0.5)
        assert "running the checker" not in screen.getvalue()
        tick("checker", 2.2)
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    assert f"{MANIFEST}: running the checker in the sandbox (2 s)" in shown
    assert all(len(line) <= 80 for line in shown.splitlines())


def test_on_a_narrow_terminal_the_path_gives_way_from_its_front(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    screen = _terminal(monkeypatch)
    long = "Submissions/S001/" + "a-very-long-attempt-name-" * 3 + "final.json"
    with watching(long, quiet=False) as tick:
        tick("comparator", 75.0)
        shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    line = next(line for line in shown.splitlines() if "comparator" in line)
    assert len(line) <= 80 and "…" in line
    assert line.endswith("-final.json: building and judging the proof with comparator (75 s)")


def test_every_step_the_pipelines_enter_has_words() -> None:
    import pathlib

    import jigcli

    package = pathlib.Path(jigcli.__file__).parent
    entered = {
        name
        for source in package.rglob("*.py")
        for name in re.findall(r'\.enter\("(\w+)"\)', source.read_text(encoding="utf-8"))
    }
    assert entered and entered <= set(STEP_WORDS)
    assert step_words("some_new_step") == "some new step"
