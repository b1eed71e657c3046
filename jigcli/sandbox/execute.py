"""One job through one route: its view checked, its inputs staged, its budget enforced, run
by `jigcli.process`.

Every route runs the job through `jigcli.process.run_bounded` (rlimits, wall clock, fresh
session, output cap, process-group kill, a new session keyring) with an environment built from
scratch, its inputs copied into a fresh stage folder, in cgroups made for the run (processes,
memory) where this machine has them; the stage and the cgroups are removed afterwards,
whatever ended the run.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from jigcli.process import Limits as RunLimits
from jigcli.process import ProgramMissing, run_bounded
from jigcli.sandbox import cgroups, seccomp
from jigcli.sandbox.environment import environment
from jigcli.sandbox.job import Execution, Job, SetupFailed
from jigcli.sandbox.routes import Route
from jigcli.sandbox.views import check_view

STAGE_PREFIX = "jig-sandbox-"
# Stages of runs still going: removed at exit too, since a Ctrl-C ends jig while the thread
# that made them may not get to its `finally` (the interpreter does not wait for it).
_live: set[Path] = set()


@contextlib.contextmanager
def staged(job: Job) -> Iterator[Path]:
    """A private temporary folder holding the job's inputs, removed afterwards."""
    stage = Path(tempfile.mkdtemp(prefix=STAGE_PREFIX))
    _live.add(stage)
    try:
        for name, data in job.view.inputs.items():
            (stage / name).write_bytes(data)
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        _live.discard(stage)


@atexit.register
def _remove_live() -> None:
    for stage in list(_live):
        shutil.rmtree(stage, ignore_errors=True)


@contextlib.contextmanager
def _filter_fd(route: Route) -> Iterator[int | None]:
    """The seccomp program on a file descriptor, for a route that loads one; else None."""
    program = seccomp.program() if route.filters_calls else None
    if program is None:
        yield None
        return
    fd = seccomp.descriptor(program)
    try:
        yield fd
    finally:
        os.close(fd)


def execute(route: Route, job: Job, cap: str | None = None) -> Execution:
    """Run `job` through `route`, its processes capped by the mechanism `cap` (None:
    uncapped). Raises `SetupFailed` when the sandbox itself cannot be set up (the view
    shows a home folder, a program is missing, a cgroup cannot be made)."""
    limits = job.limits
    refusal = check_view(job.view)
    if refusal is not None:
        raise SetupFailed(refusal)
    try:
        with (
            staged(job) as stage,
            _filter_fd(route) as filter_fd,
            cgroups.enforced(cap, limits.processes, limits.memory_mb) as cgroup,
        ):
            route.prepare(stage)
            inner = list(job.argv)
            if cap == cgroups.RLIMIT:
                inner = [*cgroups.rlimit_prefix(limits.processes), *inner]
            result = run_bounded(
                route.command(inner, job, stage, filter_fd),
                cwd=job.view.workdir or stage,
                env=environment(route.scratch(stage), job.env),
                timeout=limits.wall_sec,
                limits=RunLimits(
                    cpu_sec=limits.cpu_sec,
                    address_space_mb=limits.address_space_mb,
                    file_size_mb=limits.scratch_mb,
                    no_core=True,
                    cgroups=() if cgroup is None else cgroup.folders,
                    fresh_keyring=route.fresh_keyring,
                ),
                output_cap=limits.output_bytes,
                pass_fds=() if filter_fd is None else (filter_fd,),
            )
            refused = None if cgroup is None else cgroup.refused()
            memory = None if cgroup is None or cgroup.memory is None else limits.memory_mb
            out_of_memory = cgroup is not None and cgroup.out_of_memory()
    except ProgramMissing as missing:
        raise SetupFailed(f"{missing.program} cannot be run") from missing
    except (OSError, subprocess.SubprocessError) as exc:
        said = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SetupFailed(f"the sandbox could not be set up: {said}") from exc
    exit_status, signum = route.status(result.returncode)
    return Execution(
        route.name,
        result,
        exit_status,
        signum,
        cpu_sec=result.cpu_sec if route.counts_cpu else None,
        processes_cap=cap,
        refused_forks=refused,
        memory_mb=memory,
        out_of_memory=out_of_memory,
        seccomp=filter_fd is not None,
    )
