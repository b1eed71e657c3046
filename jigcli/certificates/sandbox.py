"""Where a certificate checker runs: isolation routes, best first, each probed before use.

The checker is trusted-but-reviewed, the witness it reads is not; the sandbox keeps a checker
bug driven by a hostile witness from reaching the host. Every route runs the checker through
`jigcli.run.run` (rlimits, wall clock, fresh session, output cap, process-group kill) with an
environment built from scratch, on a staged copy of the checker and the witness. The routes:

| route          | keeps from the checker                                          | needs      |
|----------------|-----------------------------------------------------------------|------------|
| bubblewrap     | network; host PIDs, IPC, hostname; every file but a read-only   | `bwrap`    |
|                | view of the interpreter; `$HOME`; host `/tmp`; user namespaces  |            |
| unshare-root   | network; host PIDs; root (runs as nobody, so only world-        | root       |
|                | readable files can be read and nothing of root's written)       |            |
| unshare-userns | network; host PIDs (files: the invoking user's own rights)      | not root   |
| sandbox-exec   | network; writes outside the stage (macOS)                       | macOS      |
| none           | nothing but the limits (`--allow-no-netns`, development only)   |            |

Only one unshare route applies to a given invoker: as root a user namespace would leave the
checker with root's file access, so root takes `unshare-root`, which drops to nobody.
A PID namespace (all but sandbox-exec and none) is what guarantees that nothing the checker
started survives it: when its first process dies the kernel kills the rest, setsid daemons
included. Each route is probed once per process (and interpreter) by running the interpreter
on a trivial script through it; the first route that passes is used.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.certificates.spec import CertLimits
from jigcli.run import Limits, ProgramMissing, RunResult, run

NOBODY = 65534
SCRATCH = Path("/scratch")  # the checker's working folder inside bubblewrap
CHECKER_NAME = "checker.py"
WITNESS_NAME = "witness"
# -S: no site (standard library only, and a faster start); -B: write no bytecode.
PYTHON_FLAGS = ("-S", "-B")
_PROBE_LIMITS = CertLimits(wall_sec=20, cpu_sec=10, address_space_mb=1024, output_bytes=4096)
_PROBE_WORD = "jig-sandbox-probe"


@dataclass(frozen=True)
class Stage:
    """A fresh host folder holding the copies one checker run works on."""

    folder: Path

    @property
    def checker(self) -> Path:
        return self.folder / CHECKER_NAME

    @property
    def witness(self) -> Path:
        return self.folder / WITNESS_NAME


@contextlib.contextmanager
def staged(checker_source: bytes, witness: bytes) -> Iterator[Stage]:
    """A private temporary folder with the checker and witness copies, removed afterwards."""
    stage = Stage(Path(tempfile.mkdtemp(prefix="jig-cert-")))
    try:
        stage.checker.write_bytes(checker_source)
        stage.witness.write_bytes(witness)
        yield stage
    finally:
        shutil.rmtree(stage.folder, ignore_errors=True)


def checker_env(workdir: Path) -> dict[str, str]:
    """The checker's whole environment: nothing of the caller's (no `$HOME`, no secrets)."""
    return {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TMPDIR": str(workdir),
        "PYTHONHASHSEED": "0",  # set and dict order reproducible from run to run
        "PYTHONUTF8": "1",
        "PYTHONSAFEPATH": "1",  # the scratch folder is not on sys.path
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def default_python() -> Path:
    """The interpreter jig itself runs on, resolved (a venv's python is its base's)."""
    return Path(os.path.realpath(sys.executable or shutil.which("python3") or "python3"))


# -- the routes --------------------------------------------------------------------------


class Route:
    """One way to isolate a checker. Subclasses fill in the parts that differ."""

    name = ""
    isolates = ""
    # Whether the run's CPU time includes the checker's (bubblewrap's outer process never
    # waits for the checker, so its tree's CPU time is not the checker's).
    counts_cpu = True
    # Whether a checker killed by signal N shows as exit status 128 + N (an init in between).
    signal_as_status = False

    def unavailable(self) -> str | None:
        """Why the route cannot exist on this machine (no program, wrong OS), else None."""
        return None

    def workdir(self, stage: Stage) -> Path:
        """Where the stage folder appears to the checker."""
        return stage.folder

    def prepare(self, stage: Stage) -> None:
        """Make the stage usable by the user the checker runs as."""

    def command(self, inner: Sequence[str], stage: Stage, limits: CertLimits) -> list[str]:
        """The argv that runs `inner` (whose paths are as the checker sees them) in the route."""
        return list(inner)

    def status(self, returncode: int) -> tuple[int | None, int | None]:
        """The checker's (exit status, signal) from the wrapper's return code."""
        if returncode < 0:
            return None, -returncode
        if self.signal_as_status and returncode > 128:
            return None, returncode - 128
        return returncode, None


class Bubblewrap(Route):
    name = "bubblewrap"
    counts_cpu = False
    signal_as_status = True  # bwrap's own init waits for the checker
    isolates = (
        "network, host processes, IPC and hostname; every file but a read-only view of the "
        "interpreter; $HOME and host /tmp (scratch is a private tmpfs)"
    )

    def unavailable(self) -> str | None:
        if shutil.which("bwrap") is None:
            return "bwrap is not installed (apt-get install bubblewrap)"
        return None

    def workdir(self, stage: Stage) -> Path:
        return SCRATCH

    def command(self, inner: Sequence[str], stage: Stage, limits: CertLimits) -> list[str]:
        return [
            "bwrap",
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--uid",
            str(NOBODY),
            "--gid",
            str(NOBODY),
            "--hostname",
            "jig-sandbox",
            "--die-with-parent",
            "--new-session",
            *_system_view(),
            *_interpreter_view(Path(inner[0])),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--perms",
            "0700",
            "--size",
            str(limits.scratch_mb * 1024 * 1024),
            "--tmpfs",
            str(SCRATCH),
            "--ro-bind",
            str(stage.checker),
            str(SCRATCH / CHECKER_NAME),
            "--ro-bind",
            str(stage.witness),
            str(SCRATCH / WITNESS_NAME),
            "--chdir",
            str(SCRATCH),
            "--",
            *inner,
        ]


def _system_view() -> list[str]:
    """The host's system folders, read-only, keeping usrmerge symlinks as symlinks."""
    args: list[str] = []
    for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]
    return args


def _interpreter_view(python: Path) -> list[str]:
    """The interpreter's own prefix (bin/ and lib/), when it lives outside the system view."""
    prefix = python.parent.parent
    if prefix == Path("/") or prefix.is_relative_to("/usr"):
        return []
    return ["--ro-bind", str(prefix), str(prefix)]


_UNSHARE_NS = ("--net", "--pid", "--fork", "--kill-child", "--mount-proc")
# PID 1 of a namespace ignores signals it has no handler for, SIGXCPU included, so the checker
# must not be PID 1: a shell is, and waits for it (`; exit` keeps the shell from exec'ing it).
_INIT = ("/bin/sh", "-c", '"$@"; exit $?', "jig-init")


class UnshareRoot(Route):
    name = "unshare-root"
    signal_as_status = True
    isolates = "network and host processes; runs as nobody (only world-readable files)"

    def unavailable(self) -> str | None:
        if os.geteuid() != 0:
            return "jig is not running as root (this route drops the checker to nobody)"
        for program in ("unshare", "setpriv"):
            if shutil.which(program) is None:
                return f"{program} is not installed (util-linux)"
        return None

    def prepare(self, stage: Stage) -> None:
        for path in (stage.folder, stage.checker, stage.witness):
            os.chown(path, NOBODY, NOBODY)

    def command(self, inner: Sequence[str], stage: Stage, limits: CertLimits) -> list[str]:
        drop = [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--no-new-privs",
            "--pdeathsig=keep",  # a uid change clears it; keep it so the checker dies with unshare
            "--",
        ]
        return ["unshare", *_UNSHARE_NS, "--", *drop, *_INIT, *inner]


class UnshareUserns(Route):
    name = "unshare-userns"
    signal_as_status = True
    isolates = "network and host processes (files: the invoking user's own rights)"

    def unavailable(self) -> str | None:
        if os.geteuid() == 0:
            return (
                "jig runs as root, where a user namespace keeps root's file access; "
                "unshare-root applies"
            )
        if shutil.which("unshare") is None:
            return "unshare is not installed (util-linux)"
        return None

    def command(self, inner: Sequence[str], stage: Stage, limits: CertLimits) -> list[str]:
        return ["unshare", "--user", "--map-root-user", *_UNSHARE_NS, "--", *_INIT, *inner]


class SandboxExec(Route):
    name = "sandbox-exec"
    isolates = "network and writes outside the stage folder (macOS)"

    def unavailable(self) -> str | None:
        if sys.platform != "darwin":
            return "macOS only"
        if shutil.which("sandbox-exec") is None:
            return "sandbox-exec is not on PATH"
        return None

    def command(self, inner: Sequence[str], stage: Stage, limits: CertLimits) -> list[str]:
        folder = str(stage.folder.resolve()).replace('"', '\\"')
        profile = (
            "(version 1)(allow default)(deny network*)(deny file-write*)"
            f'(allow file-write* (subpath "{folder}") (literal "/dev/null"))'
        )
        return ["sandbox-exec", "-p", profile, *inner]


class Unisolated(Route):
    name = "none"
    isolates = "nothing but the resource limits (local development only)"


ROUTES: tuple[Route, ...] = (Bubblewrap(), UnshareRoot(), UnshareUserns(), SandboxExec())
NONE = Unisolated()


def route_named(name: str) -> Route:
    for route in (*ROUTES, NONE):
        if route.name == name:
            return route
    raise ValueError(f"no isolation route {name!r}")


# -- running -----------------------------------------------------------------------------


@dataclass
class Execution:
    """One checker run as the route saw it."""

    route: str
    result: RunResult
    exit_status: int | None  # None when a signal ended it
    signal: int | None
    cpu_sec: float | None  # the checker's CPU time, where the route can tell

    @property
    def signal_name(self) -> str:
        if self.signal is None:
            return ""
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"


def execute(
    route: Route, python: Path, stage: Stage, limits: CertLimits, wall_sec: float
) -> Execution:
    """Run the staged checker on the staged witness through `route`, within `limits`."""
    route.prepare(stage)
    inside = route.workdir(stage)
    inner = [str(python), *PYTHON_FLAGS, str(inside / CHECKER_NAME), str(inside / WITNESS_NAME)]
    result = run(
        route.command(inner, stage, limits),
        cwd=stage.folder,
        env=checker_env(inside),
        timeout=wall_sec,
        limits=Limits(
            cpu_sec=limits.cpu_sec,
            address_space_mb=limits.address_space_mb,
            file_size_mb=limits.scratch_mb,
            no_core=True,
        ),
        output_cap=limits.output_bytes,
    )
    exit_status, signum = route.status(result.returncode)
    cpu_sec = result.cpu_sec if route.counts_cpu else None
    return Execution(route.name, result, exit_status, signum, cpu_sec)


_probed: dict[tuple[str, Path], str | None] = {}
_probe_lock = threading.Lock()


def probe(route: Route, python: Path) -> str | None:
    """None when `route` runs `python` on a trivial script here, else why not. Once per process."""
    key = (route.name, python)
    with _probe_lock:
        if key not in _probed:
            _probed[key] = route.unavailable() or _probe_once(route, python)
        return _probed[key]


def _probe_once(route: Route, python: Path) -> str | None:
    with staged(f"print({_PROBE_WORD!r})\n".encode(), b"") as stage:
        try:
            done = execute(route, python, stage, _PROBE_LIMITS, _PROBE_LIMITS.wall_sec)
        except ProgramMissing as missing:
            return f"{missing.program} cannot be run"
        except OSError as exc:
            return f"the stage could not be prepared: {exc.strerror or exc}"
    if done.exit_status == 0 and done.result.stdout.strip() == _PROBE_WORD:
        return None
    said = (done.result.stderr or done.result.stdout).strip().splitlines()
    ended = f"exit status {done.exit_status}" if done.signal is None else done.signal_name
    return f"the probe failed ({ended})" + (f": {said[-1][:200]}" if said else "")


def choose(python: Path, *, allow_none: bool = False, only: str | None = None) -> Route | None:
    """The first route that passes its probe (or just `only`); `NONE` when allowed; else None."""
    candidates = ROUTES if only is None else (route_named(only),)
    for route in candidates:
        if route is NONE or probe(route, python) is None:
            return route
    return NONE if allow_none else None


def refusal(python: Path) -> str:
    """Why no route can run here, one clause per route, for a `sandbox_unavailable` verdict."""
    return "; ".join(f"{route.name}: {probe(route, python)}" for route in ROUTES)


def describe(python: Path | None = None) -> dict[str, Any]:
    """Each route on this machine, for `jig doctor`: available, probed, ok, and why not."""
    interpreter = python or default_python()
    rows: list[dict[str, Any]] = []
    for route in ROUTES:
        missing = route.unavailable()
        why = missing or probe(route, interpreter)
        rows.append(
            {
                "name": route.name,
                "isolates": route.isolates,
                "available": missing is None,
                "probed": missing is None,
                "ok": why is None,
                "why": why,
            }
        )
    chosen = next((row["name"] for row in rows if row["ok"]), None)
    return {"python": str(interpreter), "chosen": chosen, "routes": rows}
