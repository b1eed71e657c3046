"""How many seconds jig may still take, measured from the CI job's start.

    python scripts/job_budget.py

reads `JIG_JOB_STARTED` (the Unix time the job's first step wrote to `$GITHUB_ENV`) and
`JIG_BUDGET_SEC` (the whole job's budget for getting to a verdict, 900 in the workflow) and
prints what is left of that budget now, in whole seconds. The set-up (elan, the toolchain,
the Mathlib cache, apt) comes out of the same budget, so jig's own deadline ends at the same
moment of the job however long the set-up took, and always before the job's hard cap: a slow
proof gets jig's own red `timeout`, and only the runner stopping the job yields
`runner_stopped`. At least MINIMUM seconds are given (jig needs a moment to write even a
timeout); a missing or malformed start gives the whole budget and says so on stderr.

Standard library only: it runs before jig is installed.
"""

from __future__ import annotations

import os
import sys
import time

MINIMUM = 60
DEFAULT_BUDGET = 900


def seconds_left(started: str | None, budget: str | None, now: float) -> tuple[int, str | None]:
    """(seconds left, a warning or None)."""
    whole = int(budget) if budget and budget.isdigit() else DEFAULT_BUDGET
    if not started or not started.isdigit():
        return whole, f"JIG_JOB_STARTED is {started!r}, not a Unix time; the whole budget is given"
    elapsed = max(0, int(now) - int(started))
    return max(MINIMUM, whole - elapsed), None


def main() -> int:
    left, warning = seconds_left(
        os.environ.get("JIG_JOB_STARTED"), os.environ.get("JIG_BUDGET_SEC"), time.time()
    )
    if warning:
        print(f"job_budget: {warning}", file=sys.stderr)
    print(left)
    return 0


if __name__ == "__main__":
    sys.exit(main())
