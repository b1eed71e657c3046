"""`jig compile FILE.tex`: the `compile` verifier on a LaTeX paper.

Builds the paper's root document (shell escape off) and prints one line per diagnostic
(`path:line: <mark> <message>`), then the verdict in the verifier's words with its evidence,
the log. `--json` prints one document:

    {"verifier": "compile", "document", "verdict", "status", "diagnostics": [{"file", "line",
     "severity", "message"}], "engine", "pdf", "log", "evidence"}

plus `"changed"` (the sources that differ) for `stale`, and `"failure": {"why", "words",
"detail"}` with `"verdict": null` when the build could not answer at all (no engine, killed,
out of time) — a failure is never a verdict. A diagnostic's `line` is null only when neither
the log nor the source names one. Exit 0 only for `compiled`.

`--watch` rebuilds on every settled edit of a source the last build read, showing one running
line with a clock (on stderr) and then the result; with `--json` it prints one compact JSON
document per line: `compiling` when a rebuild starts, then its result. Ctrl-C ends it, with the
last result's exit code.
"""

from __future__ import annotations

import os
from pathlib import Path

from jigcli.console import emit_json
from jigcli.errors import UsageError
from jigcli.latex.compile import (
    BuildResult,
    build,
    check,
    choose_engine,
    from_record,
    up_to_date,
)
from jigcli.latex.root import find_root, source_files
from jigcli.latex.state import load as load_state
from jigcli.render import compile as render
from jigcli.render.github import Annotation, annotating, chosen


def run(
    file: Path,
    *,
    as_json: bool,
    watch: bool,
    no_build: bool,
    engine: str | None,
    output_format: str | None = None,
) -> int:
    shown_as = chosen(output_format)
    if watch and no_build:
        raise UsageError("--watch rebuilds and --no-build never builds; pass one of them.")
    root = find_root(file)
    engine_choice = choose_engine(root, engine)
    if watch:
        return _watch(root, engine_choice.engine, engine_choice.source, as_json=as_json)
    result = check(root, engine_choice.engine) if no_build else _build(root, engine_choice.engine)
    result.engine_from = engine_choice.source
    with annotating(shown_as, as_json=as_json) as annotations:
        if as_json:
            emit_json(render.document(result))
        else:
            render.show(result)
        annotations += _annotations(result)
    return exit_code(result)


def _annotations(result: BuildResult) -> list[Annotation]:
    """Each error and warning at its file and line (from the working folder), and a build that
    could not answer at all on the root document."""
    found = [
        Annotation(
            _from_here(result.root.parent / d.file),
            d.line,
            d.message,
            level=d.severity,
            title="jig compile",
        )
        for d in result.diagnostics
        if d.severity in ("error", "warning")
    ]
    if result.failure is not None:
        detail = result.failure.detail
        found.append(Annotation(_from_here(result.root), None, detail, title="jig compile"))
    return found


def _from_here(path: Path) -> str:
    try:
        return Path(os.path.relpath(path)).as_posix()
    except ValueError:  # another drive
        return path.as_posix()


def exit_code(result: BuildResult) -> int:
    return 0 if result.verdict == "compiled" else 1


def _build(root: Path, engine: str) -> BuildResult:
    """The last build's result when nothing changed, else a build with a running line."""
    last = up_to_date(root, engine)
    if last is not None:
        return from_record(root, last)
    with render.running_line(root):
        return build(root, engine)


# -- --watch -----------------------------------------------------------------------------------


def _watched(root: Path) -> set[Path]:
    """The files whose edit should rebuild: what the last build read, what it missed."""
    files = set(source_files(root))
    last = load_state(root)
    if last is not None:
        files.update(last.project_files())
        for name in last.result.missing_files:
            files.add((root.parent / name.strip('"')).resolve())
            files.add((root.parent / (name.strip('"') + ".tex")).resolve())
    return files


def _watch(root: Path, engine: str, engine_from: str, *, as_json: bool) -> int:
    from jigcli.watch import Checked, announce, check_on_every_edit

    def rebuild(first: bool) -> Checked | None:
        if not first and up_to_date(root, engine) is not None:
            return None  # touched, not changed
        if not first:
            announce("rebuilding")
        if as_json:
            render.json_line(BuildResult(root, engine, "compiling", engine_from=engine_from))
        result = _build(root, engine)
        result.engine_from = engine_from
        shown = render.json_line if as_json else render.show
        return Checked(exit_code(result), lambda: shown(result))

    return check_on_every_edit(rebuild, lambda: _watched(root))
