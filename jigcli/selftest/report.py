"""What a selftest leaves behind: the JSON document, one verdict file per manifest under
`.jig/verdicts/`, the summary line and the Markdown for the GitHub step summary (the table a
person sees is `jigcli.render.selftest`'s)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from jigcli.errors import UsageError
from jigcli.repo import Repo
from jigcli.safefiles import Unreadable, read_beneath
from jigcli.safewrite import UnsafeTarget, write_beneath
from jigcli.selftest.judge import Result
from jigcli.summary import code, table

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
    said = summary_line(results, verified=verified, scope=scope)
    # "selftest: 7 matched" reads as "### jig selftest: 7 matched"; a shard names itself
    heading = f"jig {said}" if said.startswith("selftest") else f"jig selftest, {said}"
    lines = [f"### {heading}", ""]
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
        lines += [f"- {code(rel)}: {code(problem)}" for rel, problem in problems]
    return "\n".join(lines) + "\n\n"
