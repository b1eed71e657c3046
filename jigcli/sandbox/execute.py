"""One job through one route: its inputs staged, its processes capped, run by `jigcli.run`.

Every route runs the job through `jigcli.run.run` (rlimits, wall clock, fresh session, output
cap, process-group kill) with an environment built from scratch, its inputs copied into a
fresh stage folder that is removed afterwards.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from jigcli.run import Limits as RunLimits
from jigcli.run import ProgramMissing, run
from jigcli.sandbox import cgroups
from jigcli.sandbox.environment import environment
from jigcli.sandbox.job import Execution, Job, SetupFailed
from jigcli.sandbox.routes import Route


@contextlib.contextmanager
def staged(job: Job) -> Iterator[Path]:
    """A private temporary folder holding the job's inputs, removed afterwards."""
    stage = Path(tempfile.mkdtemp(prefix="jig-sandbox-"))
    try:
        for name, data in job.view.inputs.items():
            (stage / name).write_bytes(data)
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def execute(route: Route, job: Job, cap: str | None = None) -> Execution:
    """Run `job` through `route`, its processes capped by the mechanism `cap` (None:
    uncapped). Raises `SetupFailed` when the sandbox itself cannot be set up."""
    limits = job.limits
    try:
        with staged(job) as stage:
            route.prepare(stage)
            inner = list(job.argv)
            if cap == cgroups.RLIMIT:
                inner = [*cgroups.rlimit_prefix(limits.processes), *inner]
            with cgroups.enforced(cap, limits.processes) as cgroup:
                scratch = route.scratch(stage)
                result = run(
                    route.command(inner, job, stage),
                    cwd=job.view.workdir or stage,
                    env=environment(scratch, job.env),
                    timeout=limits.wall_sec,
                    limits=RunLimits(
                        cpu_sec=limits.cpu_sec,
                        address_space_mb=limits.address_space_mb,
                        file_size_mb=limits.scratch_mb,
                        no_core=True,
                        cgroup=None if cgroup is None else cgroup.folder,
                    ),
                    output_cap=limits.output_bytes,
                )
                refused = None if cgroup is None else cgroup.refused()
    except ProgramMissing as missing:
        raise SetupFailed(f"{missing.program} cannot be run") from missing
    except (OSError, subprocess.SubprocessError) as exc:
        said = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SetupFailed(f"the sandbox could not be set up: {said}") from exc
    exit_status, signum = route.status(result.returncode)
    cpu_sec = result.cpu_sec if route.counts_cpu else None
    return Execution(route.name, result, exit_status, signum, cpu_sec, cap, refused)
