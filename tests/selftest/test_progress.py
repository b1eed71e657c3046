from pathlib import Path

from jigcli.selftest.discover import Case
from jigcli.selftest.progress import progress
from jigcli.selftest.runner import Outcome


def outcome(name: str, cached: bool) -> Outcome:
    case = Case(Path("/repo") / name, name, {"kind": "certificate"}, b"")
    return Outcome(case, {"verdict": "green", "reason": "ok"}, cached=cached, seconds=1.25)


def test_off_a_terminal_each_verification_that_ran_gets_a_line(capsys):
    with progress(3, quiet=False) as done:
        done(outcome("a.json", cached=True))
        done(outcome("b.json", cached=False))
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "[2/3] b.json: green ok (1.2 s)\n"


def test_json_off_a_terminal_is_quiet(capsys):
    with progress(1, quiet=True) as done:
        done(outcome("a.json", cached=False))
    assert capsys.readouterr() == ("", "")


def test_on_a_terminal_a_bar_counts_the_cases(monkeypatch):
    import io

    from rich.console import Console

    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=100)
    monkeypatch.setattr("jigcli.console.err", lambda: terminal)
    with progress(2, quiet=True) as done:
        done(outcome("a.json", cached=True))
        done(outcome("b.json", cached=False))
    assert "2/2" in screen.getvalue()
