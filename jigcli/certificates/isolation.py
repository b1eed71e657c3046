"""How a checker runs in the sandbox: `python -S -B checker.py witness` on staged copies.

The sandbox (`jigcli.sandbox`) knows nothing of checkers; this module turns one into a job:
the interpreter and the read-only paths it needs, the checker and witness as the scratch
folder's two inputs, the spec's limits, and an environment that makes runs reproducible.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from jigcli.certificates.spec import CertLimits
from jigcli.sandbox import probe as probing
from jigcli.sandbox.job import Job, Limits, View
from jigcli.sandbox.routes import Route

CHECKER_NAME = "checker.py"
WITNESS_NAME = "witness"
# -S: no site (standard library only, and a faster start); -B: write no bytecode.
PYTHON_FLAGS = ("-S", "-B")
PYTHON_ENV = {
    "PYTHONHASHSEED": "0",  # set and dict order reproducible from run to run
    "PYTHONUTF8": "1",
    "PYTHONSAFEPATH": "1",  # the scratch folder is not on sys.path
    "PYTHONDONTWRITEBYTECODE": "1",
}


def default_python() -> Path:
    """The interpreter jig itself runs on, resolved (a venv's python is its base's)."""
    return Path(os.path.realpath(sys.executable or shutil.which("python3") or "python3"))


def interpreter_view(python: Path) -> tuple[Path, ...]:
    """The interpreter's own prefix (bin/ and lib/), when it lives outside the system view."""
    prefix = python.parent.parent
    if prefix == Path("/") or prefix.is_relative_to("/usr"):
        return ()
    return (prefix,)


def sandbox_limits(limits: CertLimits, wall_sec: float) -> Limits:
    """The sandbox's limits for a checker run with `limits`, within `wall_sec`."""
    return Limits(
        wall_sec=wall_sec,
        cpu_sec=limits.cpu_sec,
        address_space_mb=limits.address_space_mb,
        output_bytes=limits.output_bytes,
        scratch_mb=limits.scratch_mb,
        processes=limits.processes,
    )


def checker_job(
    python: Path, checker_source: bytes, witness: bytes, limits: CertLimits, wall_sec: float
) -> Job:
    """The job that runs a checker on a witness."""
    return Job(
        argv=(str(python), *PYTHON_FLAGS, CHECKER_NAME, WITNESS_NAME),
        view=View(
            read_only=interpreter_view(python),
            inputs={CHECKER_NAME: checker_source, WITNESS_NAME: witness},
        ),
        limits=sandbox_limits(limits, wall_sec),
        env=PYTHON_ENV,
    )


def probe_job(python: Path) -> Job:
    """A trivial run of `python` with a checker's view: what a route's probe must run."""
    return Job(
        argv=(str(python), *PYTHON_FLAGS, "-c", "pass"),
        view=View(read_only=interpreter_view(python)),
        limits=probing.PROBE_LIMITS,
        env=PYTHON_ENV,
    )


def choose(python: Path, *, allow_none: bool = False, only: str | None = None) -> Route | None:
    """The route a checker on `python` runs through here (see `jigcli.sandbox.probe`)."""
    return probing.choose(probe_job(python), allow_none=allow_none, only=only)


def refusal(python: Path) -> str:
    return probing.refusal(probe_job(python))


def describe(python: Path | None = None) -> dict[str, Any]:
    """Each route for a checker on `python` (default: jig's own), for `jig doctor`."""
    interpreter = python or default_python()
    return {"python": str(interpreter), **probing.describe(probe_job(interpreter))}
