"""`jig selftest [PATH…]`: every example manifest verified and compared with its `expect`.

Exit 0 when nothing failed (skips are not failures unless `--require-lean`), 1 otherwise,
130 after a Ctrl-C, 143 after SIGTERM, 129 after SIGHUP (what had finished is still reported
and its verdict files written).
Finding no example at all is an error (exit 2), not a pass: a selftest of nothing usually
means a moved folder or a wrong PATH, and CI must not go green on it. An empty *shard* is
fine: a 4-way matrix over 3 examples leaves one shard idle.
"""

from __future__ import annotations

from pathlib import Path

from jigcli.cachedir import usable_root
from jigcli.console import emit_json, out, say_error
from jigcli.errors import JigError, RepoNotFound, UsageError
from jigcli.process import Deadline
from jigcli.render.github import Annotation, annotating, chosen
from jigcli.render.selftest import progress, show
from jigcli.repo import Repo
from jigcli.safewrite import UnsafeTarget
from jigcli.selftest import report
from jigcli.selftest.cache import Keys, VerdictCache
from jigcli.selftest.discover import default_folders, discover
from jigcli.selftest.judge import judge
from jigcli.selftest.runner import Interrupted, Settings, plan_jobs, verify_cases
from jigcli.selftest.shard import parse_shard, select
from jigcli.summary import append_step_summary
from jigcli.verdict import status_for_exit


class NothingToTest(JigError):
    exit_code = 2


def run(
    paths: list[Path],
    *,
    jobs: int | None,
    shard: str | None,
    use_cache: bool,
    require_lean: bool,
    as_json: bool,
    timeout: float,
    budget: float | None,
    allow_no_netns: bool,
    root: Path | None,
    output_format: str | None = None,
) -> int:
    shown_as = chosen(output_format)
    whole_budget = Deadline(budget) if budget is not None else None  # it counts from the start
    chosen_shard = parse_shard(shard) if shard is not None else None
    repo = _repo_for(paths, root)
    _check_work_folders(repo)
    unsearched: list[tuple[str, str]] = []
    every = discover(repo, paths, unsearched)
    if not every and not unsearched:
        raise NothingToTest(_nothing_found(repo, paths))
    cases = select(every, chosen_shard) if chosen_shard else every
    scope = f"shard {chosen_shard} ({len(cases)} of {len(every)})" if chosen_shard else "selftest"
    settings = Settings(
        plan_jobs(jobs), timeout=timeout, allow_no_netns=allow_no_netns, budget=whole_budget
    )
    root = usable_root() if use_cache else None  # a cache others could write is not used
    cache = VerdictCache(root) if root is not None else None
    keys = Keys(repo, allow_no_netns=allow_no_netns)
    interrupted = 0
    try:
        with progress(len(cases), quiet=as_json) as shown:
            outcomes = verify_cases(
                cases, repo, settings, cache=cache, keys=keys, on_done=shown.done,
                on_start=shown.started,
            )  # fmt: skip
    except Interrupted as stop:  # Ctrl-C: report what finished, then exit as a Ctrl-C does
        outcomes, interrupted, scope = stop.outcomes, stop.exit_code, f"{scope}, interrupted"
    results = judge(outcomes, repo, require_lean=require_lean)
    exit_code = interrupted or (1 if report.counts(results)["failed"] or unsearched else 0)
    verified = sum(outcome.verified for outcome in outcomes)
    report.write_verdict_files(repo, results)
    append_step_summary(lambda: report.markdown(results, verified=verified, scope=scope))
    with annotating(shown_as, as_json=as_json) as annotations:
        if as_json:
            emit_json(
                {
                    "status": status_for_exit(exit_code),
                    "exit_code": exit_code,
                    **report.to_json(results),
                    "unsearched": _unsearched_json(unsearched),
                }
            )
        elif not cases:
            out().print(
                f"{scope}: this shard holds none of the {len(every)} examples; nothing to do."
            )
        elif results or not interrupted:
            show(results, verified=verified, scope=scope)
        annotations += [
            Annotation(r.case.rel, None, "; ".join(r.problems), title="jig selftest")
            for r in results
            if r.failed
        ]
    for where, why in unsearched:  # a folder not looked into may hold a failing example
        say_error(f"{where}: not searched for examples: {why}; this run fails until it is fixed")
    if interrupted:
        say_error(
            f"interrupted: {len(cases) - len(results)} of {len(cases)} examples were not "
            "verified and have no verdict file; run jig selftest again to finish (what is "
            "cached will not be verified again)."
        )
    return exit_code


def _unsearched_json(unsearched: list[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"path": where, "why": why} for where, why in unsearched]


def _check_work_folders(repo: Repo) -> None:
    """jig's folders in the repo (`.jig/verdicts`, `.jig/work`) must be real folders: a
    committed link would send verdicts and judge reports outside the repo."""
    try:
        repo.check_work_folders("verdicts", "work")
    except UnsafeTarget as refused:
        raise UsageError(f"{refused.strerror}; remove it and run jig selftest again") from None


def _repo_for(paths: list[Path], root: Path | None) -> Repo:
    """`--root`, else the repo above the working directory, else the one above the first PATH."""
    try:
        return Repo.locate(root)
    except RepoNotFound:
        if not paths:
            raise
        return Repo.locate(start=paths[0].resolve().parent)


def _nothing_found(repo: Repo, paths: list[Path]) -> str:
    if paths:
        where = ", ".join(str(path) for path in paths)
        return f"No manifest with an `expect` under {where}; pass examples or their folders."
    searched = ", ".join(repo.rel(folder) + "/" for folder in default_folders(repo))
    where = (
        f"{searched} of {repo.root}"
        if searched
        else (f"{repo.root} (it has neither Submissions/ nor Certificates/*/submissions/)")
    )
    return (
        f"No manifest with an `expect` in {where}; "
        "add examples with jig pose, or pass the PATHs to test."
    )
