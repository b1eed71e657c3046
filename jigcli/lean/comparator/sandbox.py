"""Whether comparator's steps can be sandboxed here, for `jig doctor`: the route the launcher
(`landrun`) would take, probed with this repo's Lean where there is one, else with the system
shell, and the limits each step runs under."""

from __future__ import annotations

from typing import Any

from jigcli.lean import backend
from jigcli.lean.comparator.run import BUILD_MEMORY_MB, PROCESSES
from jigcli.repo import Repo
from jigcli.sandbox import probe as probing
from jigcli.sandbox.cgroups import memory_cap
from jigcli.sandbox.job import Job, View


def describe_for(repo: Repo | None) -> dict[str, Any]:
    """The route, probed with `repo`'s Lean (`lean --version`, its toolchain shown read-only)
    where it has the pinned one and `lake env` says where it lives."""
    paths = None
    if repo is not None:
        try:
            toolchain = backend.detect(repo)
            paths = backend.lean_paths(toolchain, repo, timeout=backend.VERSION_PROBE_SEC)
        except (backend.ToolchainProblem, backend.LakeEnvProblem):
            paths = None
    if paths is not None:
        trial = Job(
            (str(paths.lean), "--version"), View(read_only=(paths.sysroot,)), probing.PROBE_LIMITS
        )
    else:
        trial = Job(("/bin/sh", "-c", ":"), View(), probing.PROBE_LIMITS)
    route = probing.choose(trial, confining=True)
    memory = memory_cap()
    return {
        "probed_with": "lean" if paths is not None else "/bin/sh (no Lean here)",
        "route": route.name if route is not None else None,
        "why": None if route is not None else probing.refusal(trial, confining=True),
        "memory": {"capped": memory.capped, "mb": BUILD_MEMORY_MB, "why": memory.why},
        "processes": PROCESSES,
    }
