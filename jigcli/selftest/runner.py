"""Verify the cases the cache cannot answer, in parallel, each in a work dir of its own.

How many at once (`plan_jobs`): `--jobs N`, by default the CPUs this process may use; Lean
verifications are further held to one per 8 GiB of RAM (a `lake build` and the judge, which
imports Mathlib, need several GiB together, and swapping turns a 10-minute verification into a
timeout), and never fewer than one. Certificate checks only need a CPU.

Jobs run on threads: a verification spends its time waiting on child processes (`lake`,
the judge, a sandboxed checker), which releases the GIL, and threads share the cache and the
repo digests without pickling. Measured on 300 sandboxed certificate checks (2 cores, a busy
machine): `--jobs 2` took 0.47–0.63× `--jobs 1` on threads and 0.56–0.80× on a process
pool, so processes buy nothing here but start-up and pickling.

Each verification gets a fresh work dir under `.jig/work/selftest/`, named from its
manifest path, so parallel jobs never share a file.
Lean cases are started first: they are the long ones, so the run ends sooner.

Ctrl-C stops a run promptly: the verifications not started are dropped, the running ones'
processes are killed (`jigcli.process.stopping`), and `Interrupted` carries what had finished.

`--budget` bounds the whole run (a CI job has a hard cap, and a runner that kills the job
leaves no verdict at all): each verification gets its `--timeout`, or what is left of the
budget when that is less; once less than `MIN_START_SEC` is left, the cases not yet started
are red `timeout`s that say the budget ran out before them (never cached, like any timeout).
"""

from __future__ import annotations

import itertools
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jigcli.certificates.spec import DEFAULT_LANE
from jigcli.errors import interrupted_code
from jigcli.hashing import sha256_hex
from jigcli.process import Deadline, stopping
from jigcli.repo import Repo
from jigcli.selftest.cache import Keys, VerdictCache
from jigcli.selftest.discover import Case
from jigcli.verify.context import Shared

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

GIB = 1024**3
LEAN_JOB_MEMORY = 8 * GIB
# Less than this left of the run's budget: a verification is not started (nothing verifies
# that fast, and its timeout would only blame whichever step it had reached).
MIN_START_SEC = 1.0


@dataclass(frozen=True)
class Plan:
    jobs: int  # verifications at once
    lean_jobs: int  # of which Lean, at most


@dataclass(frozen=True)
class Settings:
    plan: Plan
    timeout: float  # per verification
    allow_no_netns: bool
    budget: Deadline | None = None  # the whole run's, when --budget set one
    lane: str = DEFAULT_LANE
    statement_id: str | None = None  # `jig verify --statement`: every manifest must name it
    # What the run's verifications share (the toolchain probe, the trusted build).
    shared: Shared = field(default_factory=Shared)
    work_area: str = "selftest"  # the run's scratch folders: .jig/work/<work_area>/

    def timeout_now(self) -> float:
        """What a verification starting now may use: its timeout, within the budget's rest."""
        if self.budget is None:
            return self.timeout
        return min(self.timeout, self.budget.remaining())


@dataclass
class Outcome:
    """One case's verdict document, and whether it came from the cache."""

    case: Case
    document: dict[str, Any]
    cached: bool
    seconds: float = 0.0
    started: bool = True  # False: the run's budget ran out before this case could start

    @property
    def verified(self) -> bool:
        """Verified in this run: neither taken from the cache nor left unstarted."""
        return self.started and not self.cached


class Interrupted(Exception):
    """Ctrl-C stopped the run; `outcomes` are the cases that had finished before it."""

    def __init__(self, outcomes: list[Outcome], exit_code: int = 130) -> None:
        super().__init__(f"interrupted after {len(outcomes)} cases")
        self.outcomes = outcomes
        self.exit_code = exit_code  # 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP


def plan_jobs(requested: int | None, memory_bytes: int | None = None) -> Plan:
    jobs = requested or _cpus()
    memory = memory_bytes if memory_bytes is not None else _memory()
    lean = jobs if memory is None else max(1, min(jobs, memory // LEAN_JOB_MEMORY))
    return Plan(jobs=jobs, lean_jobs=lean)


def _cpus() -> int:
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _memory() -> int | None:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


# Numbers each verification pool, so its threads' names single them out (`_join_workers`).
_pools = itertools.count()


def work_dir_for(repo: Repo, case: Case, area: str = "selftest") -> Path:
    """A private folder per manifest; the path digest keeps `a/b__c` and `a__b/c` apart."""
    from jigcli.verify.submission import work_name

    return repo.work_dir / "work" / area / f"{work_name(case.rel)}-{sha256_hex(case.rel)[:8]}"


def verify_cases(
    cases: Sequence[Case],
    repo: Repo,
    settings: Settings,
    *,
    cache: VerdictCache | None,
    keys: Keys | None,
    on_done: Callable[[Outcome], None],
    on_start: Callable[[Case], None] | None = None,
) -> list[Outcome]:
    """Every case's outcome, from the cache where it can answer, else by verifying it.

    Ctrl-C raises `Interrupted` with the outcomes finished by then; what was running is
    killed and dropped (a killed verification says nothing about its submission)."""
    outcomes: list[Outcome] = []
    pending: list[tuple[Case, str]] = []

    def finished(outcome: Outcome, key: str) -> None:
        if cache is not None:
            cache.put(key, outcome.document)
        outcomes.append(outcome)
        on_done(outcome)

    try:
        for case in cases:
            key = keys.key(case) if keys is not None else ""
            document = cache.get(key) if cache is not None else None
            if document is None:
                pending.append((case, key))
                continue
            outcome = Outcome(case, document, cached=True)
            outcomes.append(outcome)
            on_done(outcome)
        pending.sort(key=lambda item: item[0].kind != "lean")  # stable: Lean first
        _verify_all(pending, repo, settings, finished, on_start)
    except KeyboardInterrupt as stop:
        raise Interrupted(outcomes, interrupted_code(stop)) from None
    return outcomes


def _verify_all(
    queue: list[tuple[Case, str]],
    repo: Repo,
    settings: Settings,
    finished: Callable[[Outcome, str], None],
    on_start: Callable[[Case], None] | None = None,
) -> None:
    """Run the verifications within the plan's limits, reporting each as it starts and as it
    finishes."""
    # Imported here: a run the cache answers whole never starts a thread or a verifier.
    from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

    running: dict[Future[Outcome], tuple[Case, str]] = {}
    prefix = f"jig-selftest-{next(_pools)}"
    pool = ThreadPoolExecutor(max_workers=settings.plan.jobs, thread_name_prefix=prefix)
    try:
        while queue or running:
            _start_what_fits(pool, queue, running, repo, settings, on_start)
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                _case, key = running.pop(future)
                finished(future.result(), key)
    except KeyboardInterrupt:
        # Ctrl-C reached this thread only, and no verifier's process (each leads its own
        # session): kill those processes, start none, and let the workers return, which they
        # do at once without them. Waiting here is what lets the interpreter exit promptly:
        # it joins every pool thread on the way out.
        with stopping():
            pool.shutdown(wait=True, cancel_futures=True)
            _join_workers(prefix)
        raise
    finally:
        pool.shutdown(wait=not running, cancel_futures=True)


def _join_workers(prefix: str) -> None:
    """Wait for every thread of the pool named `prefix`. `pool.shutdown(wait=True)` is not
    enough: `ThreadPoolExecutor.submit` records a new worker thread only once `start()` has
    returned, so a Ctrl-C raised while `start()` waits leaves a running worker the pool does
    not know (seen when that worker's verifier started a process before `submit` returned)."""
    for thread in threading.enumerate():
        if thread.name.startswith(f"{prefix}_") and thread is not threading.current_thread():
            thread.join()


def _start_what_fits(
    pool: ThreadPoolExecutor,
    queue: list[tuple[Case, str]],
    running: dict[Future[Outcome], tuple[Case, str]],
    repo: Repo,
    settings: Settings,
    on_start: Callable[[Case], None] | None,
) -> None:
    lean_running = sum(1 for case, _ in running.values() if case.kind == "lean")
    index = 0
    while index < len(queue) and len(running) < settings.plan.jobs:
        case, key = queue[index]
        if case.kind == "lean" and lean_running >= settings.plan.lean_jobs:
            index += 1  # a certificate further down the queue may still fit
            continue
        queue.pop(index)
        if on_start is not None:
            on_start(case)
        running[pool.submit(verify_case, case, repo, settings)] = (case, key)
        lean_running += case.kind == "lean"


def verify_case(case: Case, repo: Repo, settings: Settings) -> Outcome:
    """Verify one case in a fresh work dir of its own; always returns a verdict document."""
    from jigcli.verdict import Verdict
    from jigcli.verify import submission as core  # looked up per call: tests stand one in
    from jigcli.verify.context import VerifyOptions

    started = time.monotonic()
    if case.problem is not None:  # nothing to run: its very name cannot be used
        verdict = Verdict(kind=case.kind, submission=case.rel, statement_id=case.statement_id)
        verdict.fail("bad_manifest", case.problem)
        verdict.record("manifest", False, case.problem)
        return Outcome(case, verdict.finish().to_json(), cached=False)
    timeout = settings.timeout_now()
    if timeout < MIN_START_SEC and settings.budget is not None:
        return Outcome(case, _budget_spent(case, settings.budget), cached=False, started=False)
    work_dir = work_dir_for(repo, case, settings.work_area)
    shutil.rmtree(work_dir, ignore_errors=True)
    try:
        work_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # a read-only checkout, a full disk: red, and never cached
        verdict = Verdict(kind=case.kind, submission=case.rel, statement_id=case.statement_id)
        verdict.fail("verifier_error", f"cannot create the work dir {work_dir}: {error}")
        return Outcome(case, verdict.finish().to_json(), cached=False)
    options = VerifyOptions(
        statement_id=settings.statement_id,
        timeout=timeout,
        lane=settings.lane,
        allow_no_netns=settings.allow_no_netns,
        work_dir=work_dir,
        shared=settings.shared,
    )
    verdict = core.verify(case.path, repo, options)
    return Outcome(case, verdict.to_json(), cached=False, seconds=time.monotonic() - started)


def _budget_spent(case: Case, budget: Deadline) -> dict[str, Any]:
    from jigcli.verdict import Verdict

    verdict = Verdict(kind=case.kind, submission=case.rel, statement_id=case.statement_id)
    verdict.fail(
        "timeout",
        f"step=budget: the run's {budget.seconds:g} s budget (--budget) ran out before this "
        "verification started",
    )
    return verdict.finish().to_json()
