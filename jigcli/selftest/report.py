"""What a selftest leaves behind: the table, the JSON document, one verdict file per
manifest under `.jig/verdicts/`, and the Markdown for the GitHub step summary."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jigcli.display import one_line
from jigcli.errors import UsageError
from jigcli.repo import Repo
from jigcli.safefiles import Unreadable, read_beneath
from jigcli.safewrite import UnsafeTarget, write_beneath
from jigcli.selftest.judge import Result
from jigcli.summary import cell, code, table
from jigcli.verdict import REASONS

HASH_PREFIX = 12  # hex digits of the term hash shown in tables


def counts(results: Sequence[Result]) -> dict[str, int]:
    return {
        "passed": sum(r.matched for r in results),
        "failed": sum(r.failed for r in results),
        "skipped": sum(r.skipped for r in results),
    }


def to_json(results: Sequence[Result]) -> dict[str, Any]:
    return {
        "results": [
            {
                "manifest": r.case.rel,
                "kind": r.case.kind,
                "expect": r.case.expect,
                "expect_reason": r.case.expect_reason,
                "verdict": r.verdict,
                "reason": r.reason,
                "matched": r.matched,
                "skipped": r.skipped,
                "cached": r.cached,
                "elaborated_term_hash": r.term_hash,
            }
            for r in results
        ],
        **counts(results),
    }


VERDICT_FILE_CAP = 64 * 1024 * 1024  # a verdict file read back to compare


def verdict_path(repo: Repo, rel: str) -> Path:
    """`.jig/verdicts/<manifest path>`: the verdict sits where the manifest does, mirrored."""
    return repo.root / verdict_relative(repo, rel)


def verdict_relative(repo: Repo, rel: str) -> str:
    return (repo.work_dir / "verdicts" / rel).relative_to(repo.root).as_posix()


def write_verdict_files(repo: Repo, results: Sequence[Result]) -> None:
    """One file per manifest, written atomically inside the repo through no link (a committed
    `.jig` link is refused: `UsageError`); a file already saying exactly this is left alone
    (a cached re-run rewrites nothing, and a rename costs more than a read)."""
    for result in results:
        relative = verdict_relative(repo, result.case.rel)
        if _holds(repo, relative, result.document):
            continue
        text = json.dumps(result.document, indent=2, ensure_ascii=False) + "\n"
        try:
            write_beneath(repo.root, relative, text.encode("utf-8"))
        except UnsafeTarget as refused:
            raise UsageError(
                f"{refused.strerror}: verdicts are written only inside the repo; remove it"
            ) from None


def _holds(repo: Repo, relative: str, document: dict[str, Any]) -> bool:
    try:
        return bool(json.loads(read_beneath(repo.root, relative, VERDICT_FILE_CAP)) == document)
    except (Unreadable, ValueError):
        return False


def hash_prefix(result: Result) -> str:
    term_hash = result.term_hash or ""
    return term_hash.removeprefix("sha256:")[:HASH_PREFIX]


def expected(result: Result) -> str:
    reason = result.case.expect_reason
    return result.case.expect + (f" {reason}" if reason and reason != "ok" else "")


def status(result: Result) -> str:
    return "skipped" if result.skipped else "matched" if result.matched else "FAILED"


# -- for a person ---------------------------------------------------------------------------


def show(results: Sequence[Result], *, verified: int, scope: str) -> None:
    """The table, then each failure and each kind of skip in a sentence, then the totals."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from jigcli.console import out
    from jigcli.verifiers.render import mark, result_line

    console = out()
    table = Table(show_edge=False, pad_edge=False, header_style="bold")
    for column in ("manifest", "verdict", "reason", "hash", "expected", "matched", "cached"):
        table.add_column(column, no_wrap=column != "manifest", overflow="fold")
    for r in results:
        table.add_row(
            escape(r.case.rel),
            escape(r.verdict or "—"),
            escape(r.reason or "—"),
            hash_prefix(r),
            escape(expected(r)),
            f"{mark(_state(r))} {status(r)}",
            "cached" if r.cached else "",
        )
    if not console.is_terminal:  # a CI log or a pipe has no width to fit: do not cut to 80
        Console(file=console.file, width=max(console.width, 200), highlight=False).print(table)
    elif (
        console.measure(table, options=console.options.update_width(10_000)).maximum
        <= console.width
    ):
        console.print(table)
    else:  # a table squeezed into a narrow terminal drops the manifest column: one line each
        for r in results:
            console.print(result_line(r.case.rel, None, _state(r), _row_words(r)))
    shared = _shared_details(results)
    for r in results:
        for problem in r.problems if r.failed else ():
            if r.reason in shared:  # said once below, not once per example
                problem = problem.removesuffix(f": {r.detail}")
            console.print(result_line(r.case.rel, None, "error", one_line(problem)))
    for reason, number in Counter(r.reason for r in results if r.skipped).items():
        console.print(f"{mark('pending')} {number} skipped {escape(_advice(reason))}")
    # Failures that say nothing about the examples (no sandbox, a crash): what to do, once.
    for reason, number in Counter(r.reason for r in results if r.failed).items():
        if reason in REASONS and not REASONS[reason].actionable:
            said = f" — {one_line(shared[reason])}" if reason in shared else ""
            console.print(
                f"{mark('error')} {number} failed {escape(_advice(reason))}{escape(said)}"
            )
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


def summary_line(results: Sequence[Result], *, verified: int, scope: str) -> str:
    total = counts(results)
    cached = sum(r.cached for r in results)
    line = (
        f"{scope}: {total['passed']} matched, {total['failed']} failed, "
        f"{total['skipped']} skipped · {verified} verified, {cached} from the cache"
    )
    if results and verified == 0:
        line += " · nothing changed, so nothing was verified"
    return line


# -- for GitHub -----------------------------------------------------------------------------


def markdown(results: Sequence[Result], *, verified: int, scope: str) -> str:
    """The step summary's table (`jigcli.summary` appends it), then each failure's problems."""
    lines = [f"### jig selftest — {summary_line(results, verified=verified, scope=scope)}", ""]
    lines += table(
        ("manifest", "verdict", "reason", "hash", "expected", "matched", "cached"),
        [
            (
                code(r.case.rel),
                r.verdict or "—",
                r.reason or "—",
                code(hash_prefix(r)),
                expected(r),
                {"matched": "✅ matched", "skipped": "⏭️ skipped"}.get(status(r), "❌ failed"),
                "cached" if r.cached else "",
            )
            for r in results
        ],
    )
    problems = [(r.case.rel, p) for r in results if r.failed for p in r.problems]
    if problems:
        lines.append("")
        lines += [f"- `{rel}`: {cell(problem)}" for rel, problem in problems]
    return "\n".join(lines) + "\n\n"
