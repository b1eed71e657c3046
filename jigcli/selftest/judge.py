"""Each verdict against what its manifest expects, then the duplicate-hash check.

A case **matches** when its verdict is its `expect` and, when it names one, its reason is
its `expect_reason`; a mismatch says both sides ("expected red `restatement`, got red
`build_failed`: …"). A green Lean verdict must carry an `elaborated_term_hash`.

A Lean case whose verdict is `toolchain_missing` is **skipped** (the reason is shown): the
examples that need no Lean — policy rejections, bad manifests — still run and count.
`--require-lean` turns those skips into failures, as CI does.

`sandbox_unavailable` is a **failure**, not a skip: a sandbox costs one package to install
(and `--allow-no-netns` exists for local development), whereas a skip would let a CI runner
whose sandbox broke pass with no certificate checked and no Lean submission built at all.

**Duplicates.** Two greens for the same statement (same kind) with the same
`elaborated_term_hash` fail: either the hash stopped telling different proofs apart, or the
same proof was added twice. When it really is the same proof, one manifest says so with
`"duplicate_of": "<repo-relative path of the other manifest>"` (e.g.
`"Submissions/S001/AliceDirect.json"`), the same spelling the selftest prints. The
declaration is checked both ways: the named manifest must exist, and when both ran green
their hashes must be equal — so a `duplicate_of` example also guards the hash's
normalisation (renamed binders, reordered universe names must not change it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jigcli.repo import Repo
from jigcli.selftest.discover import Case
from jigcli.selftest.runner import Outcome


@dataclass
class Result:
    case: Case
    document: dict[str, Any]
    cached: bool
    skipped: bool = False
    problems: list[str] = field(default_factory=list)

    @property
    def matched(self) -> bool:
        return not self.skipped and not self.problems

    @property
    def failed(self) -> bool:
        return not self.skipped and bool(self.problems)

    @property
    def verdict(self) -> str | None:
        return _str(self.document.get("verdict"))

    @property
    def reason(self) -> str | None:
        return _str(self.document.get("reason"))

    @property
    def detail(self) -> str:
        return _str(self.document.get("detail")) or ""

    @property
    def term_hash(self) -> str | None:
        return _str(self.document.get("elaborated_term_hash"))

    @property
    def green(self) -> bool:
        return self.verdict == "green"


def judge(outcomes: Iterable[Outcome], repo: Repo, *, require_lean: bool) -> list[Result]:
    """Every outcome judged, sorted by manifest path."""
    results = sorted(
        (_judge_one(outcome, require_lean) for outcome in outcomes), key=lambda r: r.case.rel
    )
    _check_duplicates(results, repo)
    return results


def _judge_one(outcome: Outcome, require_lean: bool) -> Result:
    result = Result(outcome.case, outcome.document, outcome.cached)
    case = outcome.case
    if result.reason == "toolchain_missing" and case.expect_reason != "toolchain_missing":
        if require_lean:
            result.problems.append(
                f"no Lean toolchain here, and --require-lean asks for one: {result.detail}"
            )
        else:
            result.skipped = True
        return result
    expected = _spell(case.expect, case.expect_reason)
    if result.verdict != case.expect or (
        case.expect_reason is not None and result.reason != case.expect_reason
    ):
        got = _spell(result.verdict, result.reason)
        tail = f": {result.detail}" if result.detail and result.reason != "ok" else ""
        result.problems.append(f"expected {expected}, got {got}{tail}")
    elif result.green and case.kind == "lean" and not result.term_hash:
        result.problems.append("green but carries no elaborated_term_hash; a Lean green must")
    return result


def _spell(verdict: str | None, reason: str | None) -> str:
    if verdict is None:
        return "no verdict"
    if reason is None or (verdict == "green" and reason == "ok"):
        return verdict
    return f"{verdict} `{reason}`"


def _check_duplicates(results: Sequence[Result], repo: Repo) -> None:
    by_rel = {result.case.rel: result for result in results}
    for result in results:
        _check_declaration(result, by_rel, repo)
    groups: dict[tuple[str, str | None, str], list[Result]] = {}
    for result in results:
        if result.green and result.term_hash and not result.skipped:
            key = (result.case.kind, result.case.statement_id, result.term_hash)
            groups.setdefault(key, []).append(result)
    for group in groups.values():
        if len(group) > 1:
            _check_collision(group, repo)


def _check_declaration(result: Result, by_rel: dict[str, Result], repo: Repo) -> None:
    declared = result.case.duplicate_of
    if declared is None:
        return
    target = _target(declared, repo)
    if target is None:
        result.problems.append(
            f"duplicate_of names {declared!r}, which is not a manifest in this repo; "
            "write the other manifest's repo-relative path"
        )
        return
    if target == result.case.rel:
        result.problems.append("duplicate_of names this manifest itself")
        return
    other = by_rel.get(target)
    if other is None or not (result.green and other.green):
        return  # not in this run, or nothing to compare
    if result.term_hash != other.term_hash:
        result.problems.append(
            f"declares duplicate_of {target}, but their elaborated_term_hash differ "
            f"({_short(result.term_hash)} vs {_short(other.term_hash)})"
        )


def _target(declared: str, repo: Repo) -> str | None:
    """The repo-relative path `duplicate_of` names, or None when no such manifest exists."""
    path = (repo.root / declared).resolve()
    if Path(declared).is_absolute() or not path.is_relative_to(repo.root) or not path.is_file():
        return None
    return repo.rel(path)


def _check_collision(group: list[Result], repo: Repo) -> None:
    """Equal hashes are fine only when `duplicate_of` links the whole group together."""
    members = {result.case.rel for result in group}
    parent = {rel: rel for rel in members}

    def root(rel: str) -> str:
        while parent[rel] != rel:
            rel = parent[rel]
        return rel

    for result in group:
        declared = result.case.duplicate_of
        target = _target(declared, repo) if declared else None
        if target is not None and target in members:
            parent[root(result.case.rel)] = root(target)
    for result in group:
        apart = sorted(rel for rel in members if root(rel) != root(result.case.rel))
        if apart:
            result.problems.append(
                f"same elaborated_term_hash {_short(result.term_hash)} as "
                f"{', '.join(apart)} for {result.case.statement_id}: if they are the same "
                f'proof, declare "duplicate_of" in one of them; if not, the hash does not '
                "tell them apart"
            )


def _short(term_hash: str | None) -> str:
    return (term_hash or "none")[:19]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
