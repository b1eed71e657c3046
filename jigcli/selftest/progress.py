"""Progress on stderr while a selftest runs: a rich bar on a terminal, plain lines otherwise
(one per verification that actually ran, so a CI log shows where a long run is), nothing
for `--json` off a terminal."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from jigcli.selftest.runner import Outcome


@contextmanager
def progress(total: int, *, quiet: bool) -> Iterator[Callable[[Outcome], None]]:
    """A callback to call once per finished case."""
    from jigcli.console import err

    if err().is_terminal:
        with _bar(total) as advance:
            yield advance
    elif quiet:
        yield lambda outcome: None
    else:
        yield _lines(total)


@contextmanager
def _bar(total: int) -> Iterator[Callable[[Outcome], None]]:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from jigcli.console import err

    columns = (
        TextColumn("selftest"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[last]}"),
    )
    with Progress(*columns, console=err(), transient=True) as bar:
        task = bar.add_task("selftest", total=total, last="")

        def advance(outcome: Outcome) -> None:
            bar.update(task, advance=1, last=outcome.case.rel)

        yield advance


def _lines(total: int) -> Callable[[Outcome], None]:
    done = [0]

    def line(outcome: Outcome) -> None:
        done[0] += 1
        if outcome.cached:
            return
        document = outcome.document
        sys.stderr.write(
            f"[{done[0]}/{total}] {outcome.case.rel}: {document.get('verdict')} "
            f"{document.get('reason')} ({outcome.seconds:.1f} s)\n"
        )
        sys.stderr.flush()

    return line
