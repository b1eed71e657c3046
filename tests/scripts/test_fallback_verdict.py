import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.schemas import validate

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "fallback_verdict.py"
SUBMISSION = "Submissions/S001/A.json"


def fallback(tmp_path: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def after(
    tmp_path: Path,
    *,
    outcome: str,
    exit_code: str = "",
    job_status: str = "failure",
    submission: str = SUBMISSION,
    statement: str = "S001",
    ref: str = "main",
) -> dict:
    """The verdict the fallback leaves at tmp_path/verdicts/verdict.json after the verify
    step ended as `outcome` (with `exit_code` when jig got to report one)."""
    target = tmp_path / "verdicts" / "verdict.json"
    done = fallback(
        tmp_path,
        f"--out={target}",
        f"--outcome={outcome}",
        f"--exit-code={exit_code}",
        f"--job-status={job_status}",
        "--",
        submission,
        statement,
        ref,
    )
    assert done.returncode == 0, done.stderr
    verdict = json.loads(target.read_text())
    assert validate(verdict, "verdict") == []
    assert verdict["verdict"] == "red" and verdict["submission"] == submission
    return verdict


def test_a_job_the_runner_cancelled_or_stopped_is_the_runners_not_the_proofs(tmp_path):
    verdict = after(tmp_path, outcome="cancelled", job_status="cancelled")
    assert verdict["reason"] == "runner_stopped" and verdict["agent_actionable"] is False
    assert verdict["statement_id"] == "S001"
    assert "before jig wrote a verdict" in verdict["detail"]


@pytest.mark.parametrize("outcome", ["skipped", ""])  # "": the step is not listed at all
def test_a_job_cancelled_while_setting_up_is_runner_stopped(tmp_path, outcome):
    verdict = after(tmp_path, outcome=outcome, job_status="cancelled")
    assert verdict["reason"] == "runner_stopped"


def test_jig_exiting_2_on_a_missing_manifest_is_a_bad_manifest_not_a_timeout(tmp_path):
    verdict = after(tmp_path, outcome="failure", exit_code="2", ref="feature/x")
    assert verdict["reason"] == "bad_manifest"
    assert f"no manifest could be read at {SUBMISSION} on feature/x" in verdict["detail"]
    assert "does not exist" in verdict["detail"]


def test_jig_exiting_2_on_a_folder_says_it_is_a_folder(tmp_path):
    (tmp_path / SUBMISSION).mkdir(parents=True)
    verdict = after(tmp_path, outcome="failure", exit_code="2")
    assert verdict["reason"] == "bad_manifest" and "is a folder" in verdict["detail"]


def test_jig_exiting_2_on_a_manifest_that_exists_points_at_the_log(tmp_path):
    manifest = tmp_path / SUBMISSION
    manifest.parent.mkdir(parents=True)
    manifest.write_text("{}")
    verdict = after(tmp_path, outcome="failure", exit_code="2")
    assert verdict["reason"] == "bad_manifest" and "step's log" in verdict["detail"]


@pytest.mark.parametrize(
    ("exit_code", "said"),
    [("3", "exited 3"), ("1", "exited 1"), ("0", "exited 0"), ("137", "signal 9")],
)
def test_jig_ending_any_other_way_without_a_verdict_is_a_verifier_error(tmp_path, exit_code, said):
    verdict = after(tmp_path, outcome="failure", exit_code=exit_code)
    assert verdict["reason"] == "verifier_error" and said in verdict["detail"]


@pytest.mark.parametrize("outcome", ["skipped", ""])
def test_a_set_up_step_failing_before_jig_ran_is_a_verifier_error(tmp_path, outcome):
    verdict = after(tmp_path, outcome=outcome)
    assert verdict["reason"] == "verifier_error" and "never ran" in verdict["detail"]


def test_the_exit_code_decides_even_when_the_job_was_cancelled_afterwards(tmp_path):
    verdict = after(tmp_path, outcome="failure", exit_code="2", job_status="cancelled")
    assert verdict["reason"] == "bad_manifest"


@pytest.mark.parametrize("code", ["0", "1", "4"])  # 4: red, not checked on this runner
def test_leaves_an_existing_verdict_alone(tmp_path, code):
    target = tmp_path / "verdict.json"
    target.write_text('{"verdict": "red", "reason": "toolchain_missing"}\n')
    before = target.read_bytes()
    argv = [f"--out={target}", "--outcome=failure", f"--exit-code={code}", "--", SUBMISSION]
    done = fallback(tmp_path, *argv)
    assert done.returncode == 0 and target.read_bytes() == before


@pytest.mark.parametrize("cut_short", ["", '{"verdict": "gr'])
def test_a_verdict_cut_short_counts_as_none(tmp_path, cut_short):
    target = tmp_path / "verdict.json"
    target.write_text(cut_short)
    fallback(tmp_path, f"--out={target}", "--outcome=cancelled", "--", SUBMISSION)
    assert json.loads(target.read_text())["reason"] == "runner_stopped"


def test_the_statement_id_and_the_ref_are_optional(tmp_path):
    target = tmp_path / "verdict.json"
    argv = [f"--out={target}", "--outcome=failure", "--exit-code=2", "--", SUBMISSION]
    done = fallback(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(target.read_text())
    assert verdict["statement_id"] is None and "on this checkout" in verdict["detail"]


def test_a_certificate_submission_gets_a_certificate_verdict(tmp_path):
    manifest = tmp_path / "Certificates/C001/submissions/w.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"kind": "certificate", "statement_id": "C001"}))
    verdict = after(
        tmp_path, outcome="cancelled", submission="Certificates/C001/submissions/w.json"
    )
    assert verdict["kind"] == "certificate"


def test_works_before_jig_is_installed(tmp_path):
    # The job may die before `pip install -e .`: the script finds jig in its own checkout.
    env = {"PATH": os.environ.get("PATH", ""), "PYTHONNOUSERSITE": "1"}
    target = tmp_path / "verdict.json"
    done = subprocess.run(
        [sys.executable, "-S", SCRIPT, f"--out={target}", "--outcome=cancelled", "--", SUBMISSION],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(target.read_text())["reason"] == "runner_stopped"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["only-one"], "'only-one' is not --NAME=VALUE"),
        (["--outcome=failure", SUBMISSION], "no `--` before the dispatch's inputs"),
        (["--outcome=exploded", "--", SUBMISSION], "--outcome='exploded' is none of"),
        (["--outcome", "failure", "--", SUBMISSION], "'--outcome' is not --NAME=VALUE"),
        (["--verdict=green", "--outcome=failure", "--", SUBMISSION], "'--verdict=green'"),
        (["--outcome=failure", "--"], "no SUBMISSION after `--`"),
        (["--outcome=failure", "--", SUBMISSION, "S001", "main", "more"], "4 inputs"),
        ([], "no --outcome="),
    ],
)
def test_a_wrong_call_still_writes_a_red_verdict_then_prints_usage_and_exits_2(
    tmp_path, argv, said
):
    done = fallback(tmp_path, *argv)
    assert done.returncode == 2 and "usage:" in done.stderr
    verdict = json.loads((tmp_path / "verdicts" / "verdict.json").read_text())
    assert validate(verdict, "verdict") == []
    assert (verdict["verdict"], verdict["reason"]) == ("red", "verifier_error")
    assert said in verdict["detail"]


@pytest.mark.parametrize(
    ("submission", "statement", "ref", "reason", "said"),
    [
        (SUBMISSION, "-h", "main", "unknown_statement", "statement_id '-h' is not"),
        (SUBMISSION, "--help", "main", "unknown_statement", "'--help'"),
        (SUBMISSION, "S 001", "main", "unknown_statement", "'S 001'"),
        (SUBMISSION, "S" * 129, "main", "unknown_statement", "is not a statement id"),
        (SUBMISSION, "S001", "-x", "bad_manifest", "ref '-x' is not a plain"),
        (SUBMISSION, "S001", "a..b", "bad_manifest", "ref 'a..b'"),
        ("-h", "S001", "main", "bad_manifest", "submission '-h' is not a manifest path"),
        ("../../etc/passwd", "S001", "main", "bad_manifest", "is not a manifest path"),
        ("Submissions/S001/A.json\n### ✅ green", "S001", "main", "bad_manifest", "\\n"),
    ],
)
def test_a_hostile_dispatch_input_is_refused_in_a_written_red_verdict(
    tmp_path, submission, statement, ref, reason, said
):
    target = tmp_path / "verdicts" / "verdict.json"
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    argv = [f"--out={target}", "--outcome=failure", "--exit-code=2", "--"]
    done = fallback(tmp_path, *argv, submission, statement, ref, env=env)
    assert done.returncode == 0, done.stderr
    verdict = json.loads(target.read_text())
    assert validate(verdict, "verdict") == []
    assert (verdict["verdict"], verdict["reason"]) == ("red", reason)
    assert said in verdict["detail"]
    # only a valid input is written into the verdict's own fields
    assert verdict["submission"] in (None, SUBMISSION)
    assert verdict["statement_id"] in (None, "S001")
    assert "\n### " not in summary.read_text()


def test_the_fallback_verdict_goes_into_the_job_summary_too(tmp_path):
    summary = tmp_path / "summary.md"
    target = tmp_path / "verdict.json"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    argv = [f"--out={target}", "--outcome=failure", "--exit-code=2", "--", SUBMISSION, "S001"]
    assert fallback(tmp_path, *argv, env=env).returncode == 0
    assert f"| `{SUBMISSION}` | `S001` | red | bad_manifest |" in summary.read_text()


@pytest.mark.parametrize("exit_code", ["2", "137", ""])
def test_a_green_verdict_jig_did_not_write_in_this_run_is_replaced(tmp_path, exit_code):
    # The ref under test committed a forged green verdict at the path, and jig never wrote
    # its own (it refused its arguments, was killed, or never ran).
    target = tmp_path / "verdicts" / "verdict.json"
    target.parent.mkdir()
    target.write_text(json.dumps({"verdict": "green", "reason": "ok"}))
    outcome = "failure" if exit_code else "cancelled"
    argv = [f"--out={target}", f"--outcome={outcome}", f"--exit-code={exit_code}", "--"]
    done = fallback(tmp_path, *argv, SUBMISSION)
    assert done.returncode == 0
    assert json.loads(target.read_text())["verdict"] == "red"


@pytest.mark.parametrize("planted", ["link", "folder"])
def test_a_link_or_folder_at_the_path_is_replaced_not_followed(tmp_path, planted):
    target = tmp_path / "verdicts" / "verdict.json"
    target.parent.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched")
    if planted == "link":
        target.symlink_to(outside)
    else:
        (target / "inner").mkdir(parents=True)
    argv = [f"--out={target}", "--outcome=failure", "--exit-code=2", "--", SUBMISSION]
    done = fallback(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    assert not target.is_symlink() and json.loads(target.read_text())["verdict"] == "red"
    assert outside.read_text() == "untouched"
