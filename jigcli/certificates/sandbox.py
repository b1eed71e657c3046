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
on a small script through it; the first route that passes is used.

How many processes a run may hold is capped where the kernel can be made to (see
`jigcli.certificates.processes`), and the same probe verifies it: the script forks under a
small cap until the kernel refuses. Each route tries its mechanisms in order and keeps the
first the probe shows to hold:

| route          | process cap                                                           |
|----------------|-----------------------------------------------------------------------|
| bubblewrap     | cgroup (as root, which RLIMIT_NPROC never binds: bubblewrap maps the  |
|                | checker to the invoker's uid), else RLIMIT_NPROC in its user namespace |
| unshare-root   | cgroup only: the checker is the host's nobody with no user namespace   |
|                | of its own, where RLIMIT_NPROC would count every nobody process        |
| unshare-userns | cgroup, else RLIMIT_NPROC in its user namespace                        |
| sandbox-exec   | none: macOS counts RLIMIT_NPROC per user across the machine            |
| none           | none                                                                  |
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.certificates import processes
from jigcli.certificates.processes import CGROUP, RLIMIT, ProcessCap
from jigcli.certificates.spec import CertLimits
from jigcli.run import Limits, ProgramMissing, RunResult, run

NOBODY = 65534
SCRATCH = Path("/scratch")  # the checker's working folder inside bubblewrap
CHECKER_NAME = "checker.py"
WITNESS_NAME = "witness"
# -S: no site (standard library only, and a faster start); -B: write no bytecode.
PYTHON_FLAGS = ("-S", "-B")
# The probe's process cap, and how many children it tries to fork under it (its witness).
_PROBE_CAP = 8
_PROBE_FORKS = _PROBE_CAP + 4
_PROBE_LIMITS = CertLimits(
    wall_sec=20, cpu_sec=10, address_space_mb=1024, output_bytes=4096, processes=_PROBE_CAP
)
_PROBE_WORD = "jig-sandbox-probe"
# Forks up to N children (N read from the witness) that wait for it, stopping at the first
# refusal, reaps them and prints how many it started.
_PROBE_SCRIPT = f"""import os, sys
tries = int(open(sys.argv[1]).read() or 0)
read, write = os.pipe()
started = 0
for _ in range(tries):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.close(write)
        os.read(read, 1)
        os._exit(0)
    started += 1
os.close(write)
for _ in range(started):
    os.wait()
print({_PROBE_WORD!r}, started)
"""


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
    # How its processes may be capped, best first; each is verified by the probe before use.
    cap_mechanisms: tuple[str, ...] = ()
    # Why nothing caps its processes when none of those holds (or it has none).
    uncapped = ""

    def unavailable(self) -> str | None:
        """Why the route cannot exist on this machine (no program, wrong OS), else None."""
        return None

    def workdir(self, stage: Stage) -> Path:
        """Where the stage folder appears to the checker."""
        return stage.folder

    def prepare(self, stage: Stage) -> None:
        """Make the stage usable by the user the checker runs as."""

    def command(
        self, inner: Sequence[str], stage: Stage, limits: CertLimits, python: Path
    ) -> list[str]:
        """The argv that runs `inner` (paths as the checker sees them; `python` is the
        interpreter it runs, after any prefix such as prlimit) in the route."""
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
    cap_mechanisms = (CGROUP, RLIMIT)
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

    def command(
        self, inner: Sequence[str], stage: Stage, limits: CertLimits, python: Path
    ) -> list[str]:
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
            *_interpreter_view(python),
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
    cap_mechanisms = (CGROUP,)
    uncapped = (
        "RLIMIT_NPROC is not used: the checker runs as the host's nobody with no user "
        "namespace of its own, where it would count every process of nobody on the host"
    )

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

    def command(
        self, inner: Sequence[str], stage: Stage, limits: CertLimits, python: Path
    ) -> list[str]:
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
    cap_mechanisms = (CGROUP, RLIMIT)

    def unavailable(self) -> str | None:
        if os.geteuid() == 0:
            return (
                "jig runs as root, where a user namespace keeps root's file access; "
                "unshare-root applies"
            )
        if shutil.which("unshare") is None:
            return "unshare is not installed (util-linux)"
        return None

    def command(
        self, inner: Sequence[str], stage: Stage, limits: CertLimits, python: Path
    ) -> list[str]:
        return ["unshare", "--user", "--map-root-user", *_UNSHARE_NS, "--", *_INIT, *inner]


class SandboxExec(Route):
    name = "sandbox-exec"
    isolates = "network and writes outside the stage folder (macOS)"
    uncapped = "macOS counts RLIMIT_NPROC per user across the whole machine, not per run"

    def unavailable(self) -> str | None:
        if sys.platform != "darwin":
            return "macOS only"
        if shutil.which("sandbox-exec") is None:
            return "sandbox-exec is not on PATH"
        return None

    def command(
        self, inner: Sequence[str], stage: Stage, limits: CertLimits, python: Path
    ) -> list[str]:
        folder = str(stage.folder.resolve()).replace('"', '\\"')
        profile = (
            "(version 1)(allow default)(deny network*)(deny file-write*)"
            f'(allow file-write* (subpath "{folder}") (literal "/dev/null"))'
        )
        return ["sandbox-exec", "-p", profile, *inner]


class Unisolated(Route):
    name = "none"
    isolates = "nothing but the resource limits (local development only)"
    uncapped = "no isolation: nothing caps the checker's processes"


ROUTES: tuple[Route, ...] = (Bubblewrap(), UnshareRoot(), UnshareUserns(), SandboxExec())
NONE = Unisolated()


def route_named(name: str) -> Route:
    for route in (*ROUTES, NONE):
        if route.name == name:
            return route
    raise ValueError(f"no isolation route {name!r}")


# -- running -----------------------------------------------------------------------------


class SetupFailed(Exception):
    """The sandbox itself could not be set up for a run (not anything the checker did)."""


@dataclass
class Execution:
    """One checker run as the route saw it."""

    route: str
    result: RunResult
    exit_status: int | None  # None when a signal ended it
    signal: int | None
    cpu_sec: float | None  # the checker's CPU time, where the route can tell
    processes_cap: str | None = None  # the mechanism that capped its processes, if any
    refused_forks: int | None = None  # new processes the cap refused, where the kernel says

    @property
    def signal_name(self) -> str:
        if self.signal is None:
            return ""
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"


def execute(
    route: Route,
    python: Path,
    stage: Stage,
    limits: CertLimits,
    wall_sec: float,
    cap: str | None = None,
) -> Execution:
    """Run the staged checker on the staged witness through `route`, within `limits`, its
    processes capped by the mechanism `cap` (None: uncapped). Raises `SetupFailed`."""
    inside = route.workdir(stage)
    inner = [str(python), *PYTHON_FLAGS, str(inside / CHECKER_NAME), str(inside / WITNESS_NAME)]
    try:
        route.prepare(stage)
        if cap == RLIMIT:
            inner = [*processes.rlimit_prefix(limits.processes), *inner]
        with processes.enforced(cap, limits.processes) as cgroup:
            result = run(
                route.command(inner, stage, limits, python),
                cwd=stage.folder,
                env=checker_env(inside),
                timeout=wall_sec,
                limits=Limits(
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


@dataclass(frozen=True)
class Probe:
    """What a route's probe found: None or why the route cannot run here; its process cap."""

    why: str | None
    cap: ProcessCap


_probed: dict[tuple[str, Path], Probe] = {}
_probe_lock = threading.Lock()


def _probed_once(route: Route, python: Path) -> Probe:
    key = (route.name, python)
    with _probe_lock:
        if key not in _probed:
            missing = route.unavailable()
            _probed[key] = (
                Probe(missing, ProcessCap(None, "the route cannot run here"))
                if missing
                else _probe_once(route, python)
            )
        return _probed[key]


def probe(route: Route, python: Path) -> str | None:
    """None when `route` runs `python` on a trivial script here, else why not. Once per process."""
    return _probed_once(route, python).why


def process_cap(route: Route, python: Path) -> ProcessCap:
    """What caps the processes of a run through `route` here, as its probe verified."""
    if not route.cap_mechanisms:
        return ProcessCap(None, route.uncapped)
    return _probed_once(route, python).cap


def _probe_once(route: Route, python: Path) -> Probe:
    """Probe `route` with each of its cap mechanisms in turn; the first that holds is kept.

    A mechanism holds when the probe's forks are refused at or below its cap. When none does,
    the route is probed once more with none, to tell an uncapped route from a broken one.
    """
    tried: list[str] = []
    for mechanism in route.cap_mechanisms:
        missing = processes.unavailable(mechanism)
        if missing is not None:
            tried.append(f"{mechanism}: {missing}")
            continue
        why, started = _probe_run(route, python, mechanism)
        if why is None and started < _PROBE_CAP:
            return Probe(None, ProcessCap(mechanism, processes.HOW[mechanism]))
        tried.append(f"{mechanism}: " + (why or _not_refused(started)))
    why, _ = _probe_run(route, python, None)
    if why is not None:
        return Probe(why, ProcessCap(None, "the route cannot run here"))
    reasons = [part for part in (*tried, route.uncapped) if part]
    return Probe(why, ProcessCap(None, "; ".join(reasons)))


def _not_refused(started: int) -> str:
    said = f"the kernel let it start {started} processes under a cap of {_PROBE_CAP}"
    if os.geteuid() == 0:
        said += " (RLIMIT_NPROC never binds the host's root)"
    return said


def _probe_run(route: Route, python: Path, cap: str | None) -> tuple[str | None, int]:
    """(None, processes started) when the probe script ran through `route`, else (why, 0)."""
    forks = _PROBE_FORKS if cap is not None else 0
    with staged(_PROBE_SCRIPT.encode(), str(forks).encode()) as stage:
        try:
            done = execute(route, python, stage, _PROBE_LIMITS, _PROBE_LIMITS.wall_sec, cap)
        except SetupFailed as failed:
            return str(failed), 0
    said = done.result.stdout.split()
    if done.exit_status == 0 and len(said) == 2 and said[0] == _PROBE_WORD and said[1].isdigit():
        return None, int(said[1])
    lines = (done.result.stderr or done.result.stdout).strip().splitlines()
    ended = f"exit status {done.exit_status}" if done.signal is None else done.signal_name
    return f"the probe failed ({ended})" + (f": {lines[-1][:200]}" if lines else ""), 0


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
    """Each route on this machine, for `jig doctor`: available, probed, ok, and why not; and
    whether it caps a checker's processes, by what, or why not."""
    interpreter = python or default_python()
    rows: list[dict[str, Any]] = []
    for route in ROUTES:
        missing = route.unavailable()
        why = missing or probe(route, interpreter)
        cap = process_cap(route, interpreter)
        rows.append(
            {
                "name": route.name,
                "isolates": route.isolates,
                "available": missing is None,
                "probed": missing is None,
                "ok": why is None,
                "why": why,
                "processes": {
                    "capped": cap.mechanism is not None,
                    "mechanism": cap.mechanism,
                    "why": cap.why,
                },
            }
        )
    chosen = next((row["name"] for row in rows if row["ok"]), None)
    return {"python": str(interpreter), "chosen": chosen, "routes": rows}
