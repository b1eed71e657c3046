"""One job through a real route: limits as asked, no more."""

import pytest

from jigcli.sandbox import probe
from jigcli.sandbox.execute import execute
from jigcli.sandbox.job import Job, Limits, View
from jigcli.sandbox.routes import route_named

ASK_LIMIT = Job(
    argv=("/bin/sh", "-c", "ulimit -v"),
    view=View(),
    limits=Limits(wall_sec=20, cpu_sec=10, address_space_mb=None, output_bytes=4096),
)


def test_a_job_without_an_address_space_limit_runs_and_is_probed_without_one():
    # Lean maps every imported .olean (gigabytes for Mathlib): RLIMIT_AS would stop it.
    bubblewrap = route_named("bubblewrap")
    why = probe.probe(bubblewrap, ASK_LIMIT)
    if why is not None:
        pytest.skip(f"bubblewrap cannot run here: {why}")
    done = execute(bubblewrap, ASK_LIMIT, probe.process_cap(bubblewrap, ASK_LIMIT).mechanism)
    assert done.exit_status == 0 and done.result.stdout.strip() == "unlimited"
