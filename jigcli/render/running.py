"""What one `jig verify` shows while it works, on stderr: the step that runs and for how long.

A certificate is done in a tenth of a second and a Lean build can take many minutes; so
nothing shows for the first second (a quick run stays one line of output), then on a terminal
one live line names the step, and off a terminal (a CI log) one line is written each time a
step has run past `_LOG_AFTER_SEC`, so a log shows where a long run is without a line per
tenth of a second. `--json` off a terminal shows nothing: its reader wants stdout alone.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from jigcli.display import one_line

_SHOW_AFTER_SEC = 1.0  # a terminal's live line appears only once a run is slow
_LOG_AFTER_SEC = 10.0  # a log line for each step that runs at least this long

# The pipeline's step names (`VerifyContext.enter`) in a person's words.
STEP_WORDS = {
    "manifest": "reading the manifest",
    "location": "checking where the files lie",
    "provenance": "checking that the challenge states the posted statement",
    "toolchain": "checking the Lean toolchain",
    "static_policy": "scanning with the static policy",
    "trusted_build": "building the statement in the sandbox",
    "export": "reading what the build left",
    "comparator": "building and judging the proof with comparator",
    "challenge": "building the challenge",
    "problem": "reading the problem",
    "limits": "reading the limits",
    "witness": "reading the witness",
    "checker": "running the checker in the sandbox",
}

Tick = Callable[[str, float], None]  # (the step running, seconds since the start)


def on_terminal() -> bool:
    """Whether stderr is a terminal, asked without rich: a certificate's `jig verify` loads
    none of it unless it has something to draw."""
    return sys.stderr.isatty()


def step_words(step: str) -> str:
    return STEP_WORDS.get(step, step.replace("_", " "))


@contextmanager
def watching(what: str, *, quiet: bool) -> Iterator[Tick]:
    """A `Tick` to call often with the step that runs; what it shows is said above."""
    if on_terminal():
        with _live(what) as tick:
            yield tick
    elif quiet:
        yield lambda step, seconds: None
    else:
        yield _log(what)


@contextmanager
def _live(what: str) -> Iterator[Tick]:
    from rich.live import Live
    from rich.spinner import Spinner
    from rich.text import Text

    from jigcli.console import err

    spinner = Spinner("dots")
    live = Live(spinner, console=err(), transient=True, refresh_per_second=8)

    def tick(step: str, seconds: float) -> None:
        if seconds < _SHOW_AFTER_SEC:
            return
        said = f": {step_words(step)} ({seconds:.0f} s)"
        name = tail(one_line(what, 400), err().width - 2 - len(said))
        spinner.update(text=Text(name + said, no_wrap=True, overflow="ellipsis"))
        if not live.is_started:
            live.start(refresh=True)

    try:
        yield tick
    finally:
        if live.is_started:  # transient: the line goes, the terminal is as it was
            live.stop()


def tail(text: str, room: int) -> str:
    """`text` cut from the front to `room` characters (at least 16): a path's end is where
    the names differ."""
    room = max(room, 16)
    return text if len(text) <= room else "…" + text[-(room - 1) :]


def _log(what: str) -> Tick:
    since: dict[str, float] = {}
    said: set[str] = set()

    def tick(step: str, seconds: float) -> None:
        started = since.setdefault(step, seconds)
        if step in said or seconds - started < _LOG_AFTER_SEC:
            return
        said.add(step)
        sys.stderr.write(
            f"jig verify {what}: {step_words(step)} ({seconds - started:.0f} s so far)\n"
        )
        sys.stderr.flush()

    return tick
