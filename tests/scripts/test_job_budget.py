"""scripts/job_budget.py: jig's deadline is measured from the CI job's start, so the set-up
comes out of the same budget and jig always ends before the job's hard cap."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "job_budget.py"
_spec = importlib.util.spec_from_file_location("job_budget", SCRIPT)
assert _spec is not None and _spec.loader is not None
job_budget = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(job_budget)


@pytest.mark.parametrize(
    ("elapsed", "left"),
    [(0, 900), (300, 600), (839, 61), (840, 60), (899, 60), (5000, 60)],
)
def test_what_is_left_is_the_budget_less_the_set_up_never_below_a_minute(elapsed, left):
    assert job_budget.seconds_left("1000", "900", now=1000 + elapsed) == (left, None)


@pytest.mark.parametrize("started", [None, "", "yesterday", "-5"])
def test_an_unknown_start_gives_the_whole_budget_and_says_so(started):
    left, warning = job_budget.seconds_left(started, "900", now=10_000)
    assert left == 900 and warning is not None and "JIG_JOB_STARTED" in warning


def test_a_clock_that_went_back_never_gives_more_than_the_budget():
    assert job_budget.seconds_left("2000", "900", now=1000) == (900, None)


def test_the_script_prints_whole_seconds_for_the_shell():
    env = {"PATH": os.environ["PATH"], "JIG_JOB_STARTED": "1", "JIG_BUDGET_SEC": "900"}
    done = subprocess.run(
        [sys.executable, "-S", SCRIPT], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout == "60\n"
