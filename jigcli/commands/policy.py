"""`jig policy FILE.lean…`: the static policy scan alone, no Lean needed.

Exit 0 when every file is clean, 1 when any file has a violation, 2 when a file is missing,
unreadable, not a regular file or not a `.lean`. `--json` prints `{"status", "exit_code", "files":
[{"path", "ok", "violations": [{"line", "construct", "message"}]}]}`, the files in the order
given; otherwise
one `path:line:` line per violation, by line (constructs refused on one line for one reason
named together), and a summary; `--format github` adds one annotation per
violation.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, replace
from pathlib import Path

from jigcli.console import emit_json, err, out
from jigcli.errors import UsageError
from jigcli.lean.policy import Violation, scan_file
from jigcli.render.github import Annotation, annotating, chosen
from jigcli.render.lines import result_line
from jigcli.verdict import status_for_exit

# Scanning takes about a millisecond a file; below this many files a progress bar only flickers.
_PROGRESS_FROM = 200


def run(files: list[Path], *, as_json: bool, output_format: str | None = None) -> int:
    shown_as = chosen(output_format)
    for path in files:
        if not path.exists():
            raise UsageError(f"{path} does not exist; pass the Lean files to scan.")
        if path.is_dir():
            raise UsageError(f"{path} is a folder; pass the Lean files in it, e.g. {path}/*.lean.")
        if not path.is_file():  # a pipe or a device would be read forever
            raise UsageError(f"{path} is not a regular file; pass the .lean files to scan.")
        if path.suffix != ".lean":
            raise UsageError(f"{path} is not a Lean source (.lean); pass the .lean files to scan.")
    results = [(path, _by_line(scan_file(path))) for path in _progress(files)]
    exit_code = 1 if any(violations for _, violations in results) else 0
    with annotating(shown_as, as_json=as_json) as annotations:
        if as_json:
            emit_json(
                {
                    "status": status_for_exit(exit_code),
                    "exit_code": exit_code,
                    "files": [_entry(path, violations) for path, violations in results],
                }
            )
        else:
            _print(results)
        annotations += [
            Annotation(path.as_posix(), v.line, f"{v.construct} — {v.message}", title="jig policy")
            for path, violations in results
            for v in violations
        ]
    return exit_code


def _by_line(violations: list[Violation]) -> list[Violation]:
    """Sorted by line, and one entry per line and reason: two constructs refused on one line
    for one reason (`namespace Statements.S001` and the name `Statements` in it) read as one
    finding naming both, not the same line twice."""
    merged: dict[tuple[int, str], Violation] = {}
    for violation in sorted(violations, key=lambda v: v.line):
        key = (violation.line, violation.message)
        seen = merged.get(key)
        if seen is None:
            merged[key] = violation
        elif violation.construct not in seen.construct.split(", "):
            merged[key] = replace(seen, construct=f"{seen.construct}, {violation.construct}")
    return list(merged.values())


def _progress(files: list[Path]) -> Iterable[Path]:
    if len(files) < _PROGRESS_FROM or not err().is_terminal:
        return files
    from rich.progress import track

    return track(files, description="scanning", console=err(), transient=True)


def _entry(path: Path, violations: list[Violation]) -> dict[str, object]:
    return {
        "path": str(path),
        "ok": not violations,
        "violations": [asdict(violation) for violation in violations],
    }


def _print(results: list[tuple[Path, list[Violation]]]) -> None:
    console = out()
    for path, violations in results:
        if not violations:
            console.print(result_line(str(path), None, "ok", "clean"))
        for violation in violations:
            words = f"{violation.construct} — {violation.message}"
            console.print(result_line(str(path), violation.line, "error", words))
    flagged = [violations for _, violations in results if violations]
    count = sum(len(violations) for violations in flagged)
    scanned = f"{len(results)} file{'s' if len(results) != 1 else ''} scanned"
    if flagged:
        summary = f"{scanned}: {len(flagged)} with {count} violation{'s' if count != 1 else ''}"
    else:
        summary = f"{scanned}: all clean"
    console.print(summary, markup=False)
