"""What `jig selftest` shows a person: the table of results, then each failure and each kind
of skip in a sentence, then the totals (`show`); and its progress on stderr while it runs
(`progress`): on a terminal a bar naming what runs, with a line above it as each
verification finishes; plain lines otherwise (one per verification that actually ran, so a CI
log shows where a long run is); nothing for `--json` off a terminal."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from jigcli.console import console as wide
from jigcli.console import shown_path
from jigcli.display import one_line
from jigcli.render.lines import mark, result_line
from jigcli.render.running import tail
from jigcli.selftest.discover import Case
from jigcli.selftest.judge import Result
from jigcli.selftest.report import expected, hash_prefix, status, summary_line
from jigcli.selftest.runner import Outcome
from jigcli.verdict import REASONS


def show(results: Sequence[Result], *, verified: int, scope: str) -> None:
    """The table, then each failure and each kind of skip in a sentence, then the totals."""
    from rich.markup import escape
    from rich.table import Table

    from jigcli.console import hanging, out

    console = out()
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for column in ("manifest", "verdict", "reason", "hash", "expected", "matched", "cached"):
        table.add_column(column, no_wrap=column != "manifest", overflow="fold")
    for r in results:
        table.add_row(
            escape(shown_path(r.case.path)),
            escape(r.verdict or "—"),
            escape(r.reason or "—"),
            hash_prefix(r),
            escape(expected(r)),
            f"{mark(_state(r))} {status(r)}",
            "cached" if r.cached else "",
        )
    if not console.is_terminal:  # a CI log or a pipe has no width to fit: do not cut to 80
        wide(file=console.file, width=max(console.width, 200), highlight=False, emoji=False).print(
            table
        )
    elif (
        console.measure(table, options=console.options.update_width(10_000)).maximum
        <= console.width
    ):
        console.print(table)
    else:  # a table squeezed into a narrow terminal drops the manifest column: one line each
        for r in results:
            line = result_line(shown_path(r.case.path), None, _state(r), _row_words(r))
            hanging(console, line, 2)
    shared = _shared_details(results)
    for r in results:
        for problem in r.problems if r.failed else ():
            if r.reason in shared:  # said once below, not once per example
                problem = problem.removesuffix(f": {r.detail}")
            line = result_line(shown_path(r.case.path), None, "error", one_line(problem))
            hanging(console, line, 2)
    for reason, number in Counter(r.reason for r in results if r.skipped).items():
        hanging(console, f"{mark('pending')} {number} skipped {escape(_advice(reason))}", 2)
    # Failures that say nothing about the examples (no sandbox, a crash): what to do, once.
    for reason, number in Counter(r.reason for r in results if r.failed).items():
        if reason in REASONS and not REASONS[reason].actionable:
            said = f" — {one_line(shared[reason])}" if reason in shared else ""
            words = f"{number} failed {escape(_advice(reason))}{escape(said)}"
            hanging(console, f"{mark('error')} {words}", 2)
    console.print(escape(summary_line(results, verified=verified, scope=scope)))


def _state(result: Result) -> str:
    return "pending" if result.skipped else "ok" if result.matched else "error"


def _row_words(result: Result) -> str:
    """A table row as words: `matched · red sorry, expected red sorry · ab12… · cached`."""
    got = " ".join(part for part in (result.verdict, result.reason) if part) or "—"
    parts = [status(result), f"{got}, expected {expected(result)}"]
    parts += [hash_prefix(result)] if hash_prefix(result) else []
    parts += ["cached"] if result.cached else []
    return " · ".join(parts)


def _shared_details(results: Sequence[Result]) -> dict[str, str]:
    """Reasons about this machine rather than the examples (no sandbox, no toolchain) whose
    failures all carry one detail: that detail, to be said once."""
    details: dict[str, set[str]] = {}
    for r in results:
        if r.failed and r.reason in REASONS and not REASONS[r.reason].actionable:
            details.setdefault(r.reason, set()).add(r.detail)
    return {reason: next(iter(said)) for reason, said in details.items() if len(said) == 1}


def _advice(reason: str | None) -> str:
    """`(reason): what to do`, from the one table of reasons."""
    known = REASONS.get(reason or "")
    return f"({reason}): {known.words}. {known.next}" if known else f"({reason})"


# -- progress ------------------------------------------------------------------------------


class Progress(NamedTuple):
    """What the runner calls: `started` when a case begins verifying, `done` when it ends."""

    started: Callable[[Case], None]
    done: Callable[[Outcome], None]


@contextmanager
def progress(total: int, *, quiet: bool) -> Iterator[Progress]:
    """On a terminal a bar naming what runs, with a line above it per verification as it
    finishes; off one, that line alone; nothing for `--json` off a terminal."""
    from jigcli.console import err

    if err().is_terminal:
        with _bar(total) as callbacks:
            yield callbacks
    elif quiet:
        yield Progress(lambda case: None, lambda outcome: None)
    else:
        yield Progress(lambda case: None, _lines(total, sys.stderr.write))


@contextmanager
def _bar(total: int) -> Iterator[Progress]:
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    from jigcli.console import err

    columns = (
        TextColumn("selftest"),
        BarColumn(bar_width=10),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[running]}"),
    )
    running: dict[str, Case] = {}
    with Bar(*columns, console=err(), transient=True) as bar:
        task = bar.add_task("selftest", total=total, running="")
        say = _lines(total, lambda text: bar.console.print(text, end="", markup=False))

        def started(case: Case) -> None:
            running[case.rel] = case
            bar.update(task, running=running_words(list(running.values())), refresh=True)

        def done(outcome: Outcome) -> None:
            running.pop(outcome.case.rel, None)
            say(outcome)
            bar.update(task, advance=1, running=running_words(list(running.values())), refresh=True)

        yield Progress(started, done)


def running_words(running: Sequence[Case]) -> str:
    """What runs, short enough to sit beside the bar in 80 columns: the first case (the end of
    its path, where the names differ) and how many more."""
    if not running:
        return ""
    first = tail(one_line(shown_path(running[0].path), 200), 28)
    return f"running {first}" + (f" +{len(running) - 1} more" if len(running) > 1 else "")


def _lines(total: int, write: Callable[[str], object]) -> Callable[[Outcome], None]:
    done = [0]

    def line(outcome: Outcome) -> None:
        done[0] += 1
        if outcome.cached:
            return
        document = outcome.document
        write(
            f"[{done[0]}/{total}] {shown_path(outcome.case.path)}: {document.get('verdict')} "
            f"{document.get('reason')} ({outcome.seconds:.1f} s)\n"
        )
        sys.stderr.flush()

    return line
