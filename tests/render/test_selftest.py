"""What a selftest shows a person: the table, its sentences, and the progress while it runs."""

from pathlib import Path

from jigcli.render.selftest import progress, show
from jigcli.selftest.discover import Case
from jigcli.selftest.judge import Result
from jigcli.selftest.runner import Outcome

HASH = "sha256:" + "ab12" * 16


def result(rel="Submissions/S001/A.json", verdict="green", reason="ok", cached=False, **kw):
    # the case lies below the working folder, where a person sees it as `rel`
    case = Case(Path.cwd() / rel, rel, {"kind": "lean", "expect": "green"}, b"")
    document = {"verdict": verdict, "reason": reason, "detail": "", "elaborated_term_hash": HASH}
    return Result(case, document, cached, **kw)


def _shown(monkeypatch, results, *, width):
    import io

    from rich.console import Console

    screen = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
    monkeypatch.setattr("jigcli.console.out", lambda: screen)
    show(results, verified=len(results), scope="selftest")
    return screen.file.getvalue()


def test_a_narrow_terminal_still_names_every_manifest_in_full(monkeypatch):
    rel = "Certificates/C001/submissions/booker-sutherland.json"
    text = _shown(monkeypatch, [result(rel), result(verdict="red", reason="sorry")], width=80)
    assert rel in text and "Submissions/S001/A.json" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    line = next(line for line in text.splitlines() if line.startswith(rel))
    assert "matched" in line and "green" in line


def test_a_wide_terminal_gets_the_table(monkeypatch):
    text = _shown(monkeypatch, [result()], width=200)
    assert "┃ verdict" in text or "verdict ┃" in text


def test_the_advice_for_a_skip_reads_as_sentences(monkeypatch):
    text = _shown(monkeypatch, [result(verdict="red", reason="toolchain_missing", skipped=True)],
                  width=200)  # fmt: skip
    line = next(line for line in text.splitlines() if "skipped (toolchain_missing)" in line)
    assert "; Install" not in line and "here. Install elan" in line


def outcome(name: str, cached: bool) -> Outcome:
    case = Case(Path.cwd() / name, name, {"kind": "certificate"}, b"")
    return Outcome(case, {"verdict": "green", "reason": "ok"}, cached=cached, seconds=1.25)


def test_off_a_terminal_each_verification_that_ran_gets_a_line(capsys):
    with progress(3, quiet=False) as shown:
        shown.done(outcome("a.json", cached=True))
        shown.done(outcome("b.json", cached=False))
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "[2/3] b.json: green ok (1.2 s)\n"


def test_json_off_a_terminal_is_quiet(capsys):
    with progress(1, quiet=True) as shown:
        shown.done(outcome("a.json", cached=False))
    assert capsys.readouterr() == ("", "")


def test_on_a_terminal_a_bar_counts_the_cases(monkeypatch):
    import io

    from rich.console import Console

    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=100)
    monkeypatch.setattr("jigcli.console.err", lambda: terminal)
    with progress(2, quiet=True) as shown:
        shown.done(outcome("a.json", cached=True))
        shown.done(outcome("b.json", cached=False))
    assert "2/2" in screen.getvalue()


def test_on_a_terminal_the_bar_names_what_runs_and_each_result_shows_as_it_ends(monkeypatch):
    import io

    from rich.console import Console

    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=80, color_system=None)
    monkeypatch.setattr("jigcli.console.err", lambda: terminal)
    slow = outcome("Certificates/C001/submissions/booker-sutherland.json", cached=False)
    quick = outcome("b.json", cached=False)
    with progress(2, quiet=False) as shown:
        shown.started(slow.case)
        shown.started(quick.case)
        assert "running …ions/booker-sutherland.json +1 more" in screen.getvalue()
        shown.done(quick)
        assert "[1/2] b.json: green ok (1.2 s)" in screen.getvalue()  # before the slow one ends
        shown.done(slow)
    frames = [frame for chunk in screen.getvalue().split("\n") for frame in chunk.split("\r")]
    assert max(len(strip_ansi(frame)) for frame in frames if "selftest" in frame) <= 80


def strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
