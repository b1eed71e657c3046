"""What jig prints is what it means: no emoji codes, no markup from other people's text."""

from __future__ import annotations

from jigcli import console


def test_a_path_at_line_100_is_not_turned_into_an_emoji():
    with console.out().capture() as captured:
        console.out().print("Submissions/S001/NoSolution.lean:100: ● error")
    assert captured.get() == "Submissions/S001/NoSolution.lean:100: ● error\n"


def test_a_name_between_colons_in_a_message_stays_text_on_stderr_too():
    with console.err().capture() as captured:
        console.err().print("the checker says :smile: and :thumbs_up:")
    assert captured.get() == "the checker says :smile: and :thumbs_up:\n"


def _terminal(width: int):
    import io

    from rich.console import Console

    return Console(file=io.StringIO(), force_terminal=True, width=width, color_system=None)


def test_a_long_line_hangs_its_continuations_under_its_words():
    screen = _terminal(80)
    words = "failed: the checker says: the cubes sum to " + "-4764405348037483922867 " * 4
    console.hanging(screen, f"  ● certificate  {words}", 17)
    lines = screen.file.getvalue().splitlines()
    assert len(lines) > 1 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith("  ● certificate  failed:")
    assert all(line.startswith(" " * 17) and line[17] != " " for line in lines[1:])
    assert all(not line.endswith(" ") for line in lines)
    assert " ".join(line.strip() for line in lines).endswith(words.strip())  # nothing lost


def test_a_word_longer_than_the_room_is_folded_not_cut():
    screen = _terminal(40)
    path = "/sys/fs/cgroup/memory/" + "6213df4fb5d6fc8374bb53d859769704" * 2
    console.hanging(screen, f"memory capped in {path}: bound", 7)
    lines = screen.file.getvalue().splitlines()
    assert all(len(line) <= 40 for line in lines)
    assert "".join(line.strip() for line in lines[1:]).startswith(path)


def test_off_a_terminal_the_line_stays_whole():
    import io

    from rich.console import Console

    piped = Console(file=io.StringIO(), width=80, soft_wrap=True)
    long = "  ● memory    capped: " + " ".join(["word"] * 40)
    console.hanging(piped, long, 14)
    assert piped.file.getvalue() == long + "\n"  # one line, as a log's reader wants it


def test_stderr_is_a_terminal_exactly_where_rich_would_say_so(monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    assert console.stderr_is_terminal() is False
    console.err.cache_clear()
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich treats any stream as a terminal then
    try:
        assert console.stderr_is_terminal() is True
    finally:
        console.err.cache_clear()
