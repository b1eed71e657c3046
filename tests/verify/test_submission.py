"""`jigcli.verify.submission.verify` itself, with the pipelines stood in for: a manifest for
another statement is refused before any pipeline runs, a crash anywhere is a red
`verifier_error` naming the step, and a pipeline stuck past the budget is cut off by the
watchdog with a fresh `timeout` verdict, whatever it had half written."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from jigcli.manifest import Manifest
from jigcli.repo import Repo
from jigcli.verdict import Verdict
from jigcli.verify import submission
from jigcli.verify.context import VerifyContext, VerifyOptions

Pipeline = Callable[[Manifest, Verdict, VerifyContext], None]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    (tmp_path / "jig.yaml").write_text("")
    return Repo.locate(tmp_path)


def _manifest(repo: Repo, statement_id: str = "T001") -> Path:
    folder = repo.root / "Certificates" / statement_id / "submissions"
    folder.mkdir(parents=True)
    manifest = folder / "x.json"
    document = {
        "schema": "conject.submission.v1",
        "kind": "certificate",
        "statement_id": statement_id,
        "witness": "x.txt",
    }
    manifest.write_text(json.dumps(document))
    return manifest


def _stand_in(monkeypatch: pytest.MonkeyPatch, pipeline: Pipeline) -> list[str]:
    """Put `pipeline` where the certificate pipeline is; returns the ids it was called for."""
    calls: list[str] = []

    def recorded(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
        calls.append(manifest.statement_id)
        pipeline(manifest, verdict, context)

    monkeypatch.setattr("jigcli.certificates.pipeline.verify_certificate", recorded)
    return calls


def _passes(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
    context.enter("checker")
    verdict.record("checker", True, "accepted")


def test_the_stand_in_pipeline_can_turn_a_verdict_green(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _stand_in(monkeypatch, _passes)
    verdict = submission.verify(_manifest(repo), repo, VerifyOptions(statement_id="T001"))
    assert (verdict.verdict, calls) == ("green", ["T001"])


def test_a_manifest_for_another_statement_is_refused_before_any_pipeline_runs(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _stand_in(monkeypatch, _passes)
    verdict = submission.verify(_manifest(repo), repo, VerifyOptions(statement_id="T002"))
    assert (verdict.verdict, verdict.reason) == ("red", "statement_id_mismatch")
    assert "'T001'" in verdict.detail and "'T002'" in verdict.detail
    assert verdict.statement_id == "T001" and calls == []


def test_a_crash_in_a_pipeline_is_a_red_verifier_error_that_names_the_step(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    def crashes(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
        context.enter("checker")
        verdict.record("checker", True, "accepted")
        raise RuntimeError("the disk went away")

    _stand_in(monkeypatch, crashes)
    verdict = submission.verify(_manifest(repo), repo, VerifyOptions())
    assert (verdict.verdict, verdict.reason) == ("red", "verifier_error")
    assert verdict.detail == "RuntimeError: the disk went away (during checker)"
    crashed = verdict.checks["verifier"]
    assert crashed.ok is False and "RuntimeError: the disk went away" in (crashed.output or "")


def test_a_pipeline_that_overruns_the_budget_is_a_timeout_naming_its_step(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    def overruns(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
        context.enter("checker")
        time.sleep(context.deadline.remaining() + 0.1)  # then returns, having decided nothing

    _stand_in(monkeypatch, overruns)
    verdict = submission.verify(_manifest(repo), repo, VerifyOptions(timeout=1))
    assert (verdict.verdict, verdict.reason) == ("red", "timeout")
    assert verdict.detail.startswith("step=checker: the 1 s budget")


def test_a_wedged_pipeline_is_cut_off_by_the_watchdog_and_its_half_verdict_dropped(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def wedged(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
        context.enter("checker")
        verdict.record("checker", True, "accepted")  # half a verdict, then stuck
        release.wait(30)
        verdict.record("late", True, "written after the watchdog gave up")

    monkeypatch.setattr(submission, "_WATCHDOG_GRACE_SEC", 0.2)
    _stand_in(monkeypatch, wedged)
    started = time.monotonic()
    verdict = submission.verify(_manifest(repo), repo, VerifyOptions(timeout=1))
    waited = time.monotonic() - started
    release.set()
    assert (verdict.verdict, verdict.reason) == ("red", "timeout")
    assert verdict.detail.startswith("step=checker:")
    assert verdict.checks == {} and verdict.statement_id == "T001"
    assert waited < 10  # the budget and the grace, not the pipeline's 30 s
    document = verdict.to_json()
    assert document["verdict"] == "red" and "late" not in document["checks"]


def test_a_malformed_manifest_is_a_red_bad_manifest_and_no_pipeline_runs(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = _stand_in(monkeypatch, _passes)
    manifest = _manifest(repo)
    manifest.write_text('{"schema": "conject.submission.v1", "kind": "certificate"}')
    verdict = submission.verify(manifest, repo, VerifyOptions())
    assert (verdict.verdict, verdict.reason, calls) == ("red", "bad_manifest", [])
