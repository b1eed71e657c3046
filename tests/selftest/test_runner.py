import os
import signal
import threading
from pathlib import Path

import pytest

from jigcli.process import Deadline, run_bounded
from jigcli.repo import Repo
from jigcli.schemas import validate
from jigcli.selftest.cache import Keys, VerdictCache
from jigcli.selftest.discover import Case, discover
from jigcli.selftest.runner import (
    GIB,
    Interrupted,
    Plan,
    Settings,
    plan_jobs,
    verify_cases,
    work_dir_for,
)


def settings(jobs: int = 1, lean_jobs: int | None = None) -> Settings:
    return Settings(Plan(jobs, lean_jobs or jobs), timeout=60.0, allow_no_netns=False)


def run(root: Path, cache_dir: Path | None = None, jobs: int = 1, lean_jobs: int | None = None):
    repo = Repo(root)
    cache = VerdictCache(cache_dir) if cache_dir is not None else None
    seen: list[str] = []
    outcomes = verify_cases(
        discover(repo),
        repo,
        settings(jobs, lean_jobs),
        cache=cache,
        keys=Keys(repo, allow_no_netns=False),
        on_done=lambda outcome: seen.append(outcome.case.rel),
    )
    assert sorted(seen) == sorted(o.case.rel for o in outcomes)
    return {o.case.rel: o for o in outcomes}


def test_default_jobs_are_the_cpus_and_lean_jobs_one_per_8_gib():
    assert plan_jobs(4, memory_bytes=16 * GIB) == Plan(jobs=4, lean_jobs=2)
    assert plan_jobs(4, memory_bytes=64 * GIB) == Plan(jobs=4, lean_jobs=4)
    assert plan_jobs(4, memory_bytes=4 * GIB) == Plan(jobs=4, lean_jobs=1)
    assert plan_jobs(None, memory_bytes=64 * GIB).jobs >= 1


def test_work_dirs_are_private_even_for_look_alike_paths(repo_root):
    repo = Repo(repo_root)
    one = Case(repo_root / "a/b__c.json", "a/b__c.json", {}, b"")
    two = Case(repo_root / "a__b/c.json", "a__b/c.json", {}, b"")
    assert work_dir_for(repo, one) != work_dir_for(repo, two)
    assert work_dir_for(repo, one).is_relative_to(repo_root / ".jig" / "work" / "selftest")


def test_each_verification_gets_its_own_fresh_work_dir(repo_root, kit, fake_verify):
    for name in ("A", "B", "C"):
        kit.lean_manifest(repo_root, f"Submissions/S001/{name}.json")
    stale = work_dir_for(Repo(repo_root), discover(Repo(repo_root))[0]) / "stale.txt"
    stale.parent.mkdir(parents=True)
    stale.write_text("from an earlier run")
    run(repo_root, jobs=3)
    work_dirs = [call.work_dir for call in fake_verify.calls]
    assert len(set(work_dirs)) == 3 and all(d is not None and d.is_dir() for d in work_dirs)
    assert not stale.exists()


def test_parallel_jobs_really_run_together(repo_root, kit, fake_verify):
    for name in ("A", "B"):
        kit.certificate_manifest(repo_root, "C001", name)
    both_inside = threading.Barrier(2, timeout=30)  # breaks unless two calls overlap
    fake_verify.during = lambda rel, data, options: both_inside.wait()
    outcomes = run(repo_root, jobs=2)
    assert all(o.document["verdict"] == "green" for o in outcomes.values())


def test_parallel_jobs_never_write_into_each_others_work_dir(repo_root, kit, fake_verify):
    for index in range(8):
        kit.certificate_manifest(repo_root, "C001", f"w{index}")

    def write_and_check(rel, data, options):
        mine = options.work_dir / "scratch.txt"
        mine.write_text(rel)
        threading.Event().wait(0.01)  # let the other job interleave
        assert mine.read_text() == rel
        assert [p.name for p in options.work_dir.iterdir()] == ["scratch.txt"]

    fake_verify.during = write_and_check
    outcomes = run(repo_root, jobs=2)
    assert all(o.document["verdict"] == "green" for o in outcomes.values())


def test_lean_jobs_are_held_to_their_own_limit(repo_root, kit, fake_verify):
    for index in range(4):
        kit.lean_manifest(repo_root, f"Submissions/S00{index}/A.json")
        kit.certificate_manifest(repo_root, "C001", f"w{index}")
    lock, now, most = threading.Lock(), [0], [0]

    def count(rel, data, options):
        if data["kind"] != "lean":
            return
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        threading.Event().wait(0.02)
        with lock:
            now[0] -= 1

    fake_verify.during = count
    run(repo_root, jobs=3, lean_jobs=1)
    assert most[0] == 1
    assert len(fake_verify.calls) == 8


def test_lean_cases_start_first(repo_root, kit, fake_verify):
    kit.certificate_manifest(repo_root, "C001", "a")
    kit.lean_manifest(repo_root, "Submissions/S001/Z.json")
    run(repo_root, jobs=1)
    assert [call.rel for call in fake_verify.calls] == [
        "Submissions/S001/Z.json",
        "Certificates/C001/submissions/a.json",
    ]


def test_a_second_run_is_answered_from_the_cache(repo_root, kit, fake_verify, tmp_path):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    kit.certificate_manifest(repo_root, "C001", "w", "red", "invalid_witness")
    first = run(repo_root, tmp_path / "cache")
    assert not any(o.cached for o in first.values()) and len(fake_verify.calls) == 2
    second = run(repo_root, tmp_path / "cache")
    assert all(o.cached for o in second.values()) and len(fake_verify.calls) == 2
    assert {rel: o.document for rel, o in second.items()} == {
        rel: o.document for rel, o in first.items()
    }


def test_a_changed_input_is_verified_again_and_only_it(repo_root, kit, fake_verify, tmp_path):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    kit.lean_manifest(repo_root, "Submissions/S001/B.json")
    run(repo_root, tmp_path / "cache")
    (repo_root / "Submissions/S001/B.lean").write_text("-- a new proof\n")
    fake_verify.calls.clear()
    outcomes = run(repo_root, tmp_path / "cache")
    assert fake_verify.verified == ["Submissions/S001/B.json"]
    assert outcomes["Submissions/S001/A.json"].cached


def test_infrastructure_failures_are_verified_again_next_time(
    repo_root, kit, fake_verify, tmp_path
):
    for name in ("T", "V", "L", "S"):
        kit.lean_manifest(repo_root, f"Submissions/S001/{name}.json")
    reasons = {
        "T": "timeout",
        "V": "verifier_error",
        "L": "toolchain_missing",
        "S": "sandbox_unavailable",
    }
    fake_verify.answers.update(
        {f"Submissions/S001/{n}.json": kit.Answer("red", r) for n, r in reasons.items()}
    )
    run(repo_root, tmp_path / "cache")
    fake_verify.calls.clear()
    outcomes = run(repo_root, tmp_path / "cache")
    assert len(fake_verify.calls) == 4 and not any(o.cached for o in outcomes.values())


def test_without_a_cache_everything_is_verified_every_time(repo_root, kit, fake_verify):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    run(repo_root)
    run(repo_root)
    assert len(fake_verify.calls) == 2


def test_a_work_dir_that_cannot_be_made_is_a_red_verifier_error(repo_root, kit, fake_verify):
    kit.certificate_manifest(repo_root, "C001", "w")
    (repo_root / ".jig").write_text("a file where jig's folder should be")
    [outcome] = run(repo_root).values()
    assert (outcome.document["verdict"], outcome.document["reason"]) == ("red", "verifier_error")
    assert "work dir" in outcome.document["detail"] and fake_verify.calls == []


class Budget(Deadline):
    """A run budget the test moves by hand, so no test waits on a clock."""

    def __init__(self, left: float) -> None:
        super().__init__(left)
        self.left = left

    def remaining(self) -> float:
        return max(0.0, self.left)


def budgeted(root: Path, budget: Deadline, *, timeout: float = 60.0, cache_dir=None, jobs=1):
    repo = Repo(root)
    chosen = Settings(Plan(jobs, jobs), timeout=timeout, allow_no_netns=False, budget=budget)
    outcomes = verify_cases(
        discover(repo),
        repo,
        chosen,
        cache=VerdictCache(cache_dir) if cache_dir is not None else None,
        keys=Keys(repo, allow_no_netns=False),
        on_done=lambda outcome: None,
    )
    return {o.case.rel: o for o in outcomes}


def test_each_verification_gets_at_most_what_is_left_of_the_budget(repo_root, kit, fake_verify):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    kit.certificate_manifest(repo_root, "C001", "w")
    budget = Budget(45.0)
    fake_verify.during = lambda rel, data, options: setattr(budget, "left", budget.left - 20)
    budgeted(repo_root, budget, timeout=60.0)
    assert [call.options.timeout for call in fake_verify.calls] == [45.0, 25.0]


def test_a_budget_larger_than_the_timeout_leaves_the_timeout(repo_root, kit, fake_verify):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    budgeted(repo_root, Budget(5000.0), timeout=60.0)
    assert [call.options.timeout for call in fake_verify.calls] == [60.0]


def test_once_the_budget_is_spent_the_rest_are_red_timeouts_never_verified(
    repo_root, kit, fake_verify, tmp_path
):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    kit.certificate_manifest(repo_root, "C001", "w")
    kit.certificate_manifest(repo_root, "C001", "x", "red", "invalid_witness")
    budget = Budget(900.0)
    fake_verify.during = lambda rel, data, options: setattr(budget, "left", 0.0)
    outcomes = budgeted(repo_root, budget, cache_dir=tmp_path / "cache")
    assert fake_verify.verified == ["Submissions/S001/A.json"]  # Lean first, then none
    for rel in ("Certificates/C001/submissions/w.json", "Certificates/C001/submissions/x.json"):
        document = outcomes[rel].document
        assert (document["verdict"], document["reason"]) == ("red", "timeout")
        assert "budget" in document["detail"] and "900" in document["detail"]
        assert "before" in document["detail"] and document["kind"] == "certificate"
        assert validate(document, "verdict") == []
    fake_verify.calls.clear()
    fake_verify.during = None
    again = budgeted(repo_root, Budget(900.0), cache_dir=tmp_path / "cache")
    assert len(fake_verify.calls) == 2 and not again["Certificates/C001/submissions/w.json"].cached


def interrupt_while_running(results: list):
    """A `during` that starts a long process, then presses Ctrl-C (a real SIGINT to this
    process, which Linux hands to the main thread) once it runs."""

    def during(rel, data, options):
        press = lambda line: os.kill(os.getpid(), signal.SIGINT)  # noqa: E731
        results.append(run_bounded(["sh", "-c", "echo up; sleep 30"], on_line=press))

    return during


def test_ctrl_c_kills_running_verifications_starts_no_more_and_caches_nothing(
    repo_root, kit, fake_verify, tmp_path
):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    kit.certificate_manifest(repo_root, "C001", "w")
    killed: list = []
    fake_verify.during = interrupt_while_running(killed)
    try:
        with pytest.raises(Interrupted) as stopped:
            run(repo_root, tmp_path / "cache", jobs=1)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped the runner instead of stopping it")
    assert stopped.value.outcomes == []  # the one that was running is not a verdict
    assert fake_verify.verified == ["Submissions/S001/A.json"]  # the other never started
    assert [result.signal for result in killed] == [9]  # killed, not waited for
    assert not (tmp_path / "cache").exists()


def test_ctrl_c_keeps_what_finished_before_it(repo_root, kit, fake_verify):
    kit.lean_manifest(repo_root, "Submissions/S001/A.json")
    kit.certificate_manifest(repo_root, "C001", "w")
    killed: list = []
    interrupt = interrupt_while_running(killed)
    fake_verify.during = lambda rel, data, options: (
        interrupt(rel, data, options) if data["kind"] == "certificate" else None
    )
    with pytest.raises(Interrupted) as stopped:
        run(repo_root, jobs=1)
    assert [o.case.rel for o in stopped.value.outcomes] == ["Submissions/S001/A.json"]
    assert run_bounded(["true"]).ok  # processes may start again once the run has stopped
