"""How a checker runs in the sandbox: `python -S -B checker.py witness` on staged copies.

The sandbox (`jigcli.sandbox`) knows nothing of checkers; this module turns one into a job:
the interpreter and the read-only paths it needs, the checker and witness as the scratch
folder's two inputs, the spec's limits, and an environment that makes runs reproducible.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import Any, NamedTuple

from jigcli.certificates.spec import CertLimits
from jigcli.process import ProgramMissing, run_bounded
from jigcli.sandbox import probe as probing
from jigcli.sandbox.job import Job, Limits, View
from jigcli.sandbox.routes import Route

CHECKER_NAME = "checker.py"
# A checker reads a witness and prints a line: a few descriptors. Bounded, so that sockets
# (and their kernel buffers) are too where no memory cgroup counts them.
CHECKER_OPEN_FILES = 64
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


class InterpreterView(NamedTuple):
    """What a checker's interpreter needs to read: the executable, its standard library and
    the shared libraries beside its own (libpython), outside the system folders; and the
    folders of installed packages inside its library, shown empty (a checker is
    standard-library only)."""

    read_only: tuple[Path, ...]
    hidden: tuple[Path, ...]


# Asked of an interpreter other than jig's own: where its library lives.
_ASK = (
    "import json, sys, sysconfig; base = {'base': sys.base_prefix, 'platbase': "
    "sys.base_exec_prefix}; print(json.dumps([sysconfig.get_path('stdlib', vars=base), "
    "sysconfig.get_path('platstdlib', vars=base), sysconfig.get_config_var('LIBDIR') or '']))"
)
_SYSTEM = tuple(Path("/", top) for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64"))


@functools.cache
def interpreter_view(python: Path) -> InterpreterView:
    """Only the interpreter's own library folders, never its prefix (which may be a home:
    a Python built with --prefix=$HOME would show all of it)."""
    folders = _library_folders(python)
    libdir = folders.pop() if folders else None
    shown = [python, *folders]
    if libdir is not None and libdir.is_dir():
        shown += sorted(entry for entry in libdir.glob("*.so*") if entry.is_file())
    own = tuple(dict.fromkeys(path for path in shown if not _in_system(path)))
    hidden = tuple(
        folder / packages
        for folder in folders
        if folder in own
        for packages in ("site-packages", "dist-packages")
        if (folder / packages).is_dir()
    )
    return InterpreterView(own, hidden)


def _library_folders(python: Path) -> list[Path]:
    """[stdlib, platstdlib, LIBDIR] of `python` (the running interpreter's own when it is
    jig's), deduplicated with LIBDIR last; [] when the interpreter cannot say."""
    if python == default_python():
        base = {"base": sys.base_prefix, "platbase": sys.base_exec_prefix}
        said = [
            sysconfig.get_path("stdlib", vars=base),
            sysconfig.get_path("platstdlib", vars=base),
            sysconfig.get_config_var("LIBDIR") or "",
        ]
    else:
        try:
            done = run_bounded(
                [str(python), "-S", "-B", "-I", "-c", _ASK], timeout=30, output_cap=65536
            )
            said = json.loads(done.stdout) if done.ok else []
        except (ProgramMissing, ValueError):
            return []
    if len(said) != 3 or not all(isinstance(folder, str) for folder in said):
        return []
    stdlib, platstdlib, libdir = (Path(folder) for folder in said)
    return [*dict.fromkeys((stdlib, platstdlib)), libdir]


def _in_system(path: Path) -> bool:
    return any(path.is_relative_to(top) for top in _SYSTEM)


def sandbox_limits(limits: CertLimits, wall_sec: float) -> Limits:
    """The sandbox's limits for a checker run with `limits`, within `wall_sec`."""
    return Limits(
        wall_sec=wall_sec,
        cpu_sec=limits.cpu_sec,
        address_space_mb=limits.address_space_mb,
        output_bytes=limits.output_bytes,
        scratch_mb=limits.scratch_mb,
        processes=limits.processes,
        memory_mb=limits.memory_mb,
        cpu_kill=True,  # past its CPU limit a checker says nothing more (`checker.judge`)
        open_files=CHECKER_OPEN_FILES,
    )


# The first bytes of a checker run's stdout, written once the route's launcher has set the
# sandbox up and before anything of the checker runs: what tells a launcher that failed
# (no such line) from a checker that prints a launcher's words (it cannot un-print this).
# Written to a pipe only jig reads, the line also proves jig alive once the route's sandbox
# is bound to its life (`Route.armed` runs first): a jig killed during the set-up leaves a
# script whose printf fails (SIGPIPE), so the checker never starts.
STARTED = b"jig-checker-started\n"
_SAY_STARTED = 'printf "jig-checker-started\\n" && exec "$@"'


def checker_job(
    python: Path,
    checker_source: bytes,
    witness: bytes,
    limits: CertLimits,
    wall_sec: float,
    armed: str = "",
) -> Job:
    """The job that runs a checker on a witness; `armed` is the route's `Route.armed`."""
    inputs = {CHECKER_NAME: checker_source, WITNESS_NAME: witness}
    argv: tuple[str, ...] = (str(python), *PYTHON_FLAGS, CHECKER_NAME, WITNESS_NAME)
    return Job(
        argv=("/bin/sh", "-c", armed + _SAY_STARTED, "jig-start", *argv),
        view=View(
            read_only=interpreter_view(python).read_only,
            hidden=interpreter_view(python).hidden,
            inputs=inputs,
        ),
        limits=sandbox_limits(limits, wall_sec),
        env=PYTHON_ENV,
        ip=False,  # a checker reads a witness and prints a line: local sockets at most
        python=str(python),
    )


def probe_job(python: Path) -> Job:
    """A trivial run of `python` with a checker's view: what a route's probe must run."""
    return Job(
        argv=(str(python), *PYTHON_FLAGS, "-c", "pass"),
        view=View(
            read_only=interpreter_view(python).read_only, hidden=interpreter_view(python).hidden
        ),
        limits=probing.PROBE_LIMITS,
        env=PYTHON_ENV,
        ip=False,  # probed as a checker runs, under the filter a checker gets
        python=str(python),
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
