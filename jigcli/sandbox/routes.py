"""The isolation routes, best first: each turns a job into the argv that runs it isolated.

| route          | keeps from the program                                          | needs      |
|----------------|-----------------------------------------------------------------|------------|
| bubblewrap     | network; host PIDs, IPC, hostname; every file but the system    | `bwrap`    |
|                | folders and the job's view; `$HOME`; host `/tmp`; user          |            |
|                | namespaces                                                      |            |
| unshare-root   | network; host PIDs; root (runs as nobody, so only world-        | root       |
|                | readable files can be read and nothing of root's written)       |            |
| unshare-userns | network; host PIDs (files: the invoking user's own rights)      | not root   |
| sandbox-exec   | network; writes outside the stage (macOS)                       | macOS      |
| none           | nothing but the limits (development only)                       |            |

Only one unshare route applies to a given invoker: as root a user namespace would leave the
program with root's file access, so root takes `unshare-root`, which drops to nobody.
A PID namespace (all but sandbox-exec and none) is what guarantees that nothing the program
started survives it: when its first process dies the kernel kills the rest, setsid daemons
included.

Routes with a mount namespace (bubblewrap) show the job's host paths at the same place and
its inputs in a private scratch folder; the others see the host's files with their user's
rights and start in the stage folder holding the inputs.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from jigcli.sandbox.cgroups import CGROUP, RLIMIT
from jigcli.sandbox.job import Job

NOBODY = 65534
SCRATCH = Path("/scratch")  # the program's working folder inside bubblewrap


class Route:
    """One way to isolate a program. Subclasses fill in the parts that differ."""

    name = ""
    isolates = ""
    # Whether the run's CPU time includes the program's (bubblewrap's outer process never
    # waits for the program, so its tree's CPU time is not the program's).
    counts_cpu = True
    # Whether a program killed by signal N shows as exit status 128 + N (an init in between).
    signal_as_status = False
    # How its processes may be capped, best first; each is verified by the probe before use.
    cap_mechanisms: tuple[str, ...] = ()
    # Why nothing caps its processes when none of those holds (or it has none).
    uncapped = ""

    def unavailable(self) -> str | None:
        """Why the route cannot exist on this machine (no program, wrong OS), else None."""
        return None

    def scratch(self, stage: Path) -> Path:
        """Where the stage folder (the inputs, the scratch space) appears to the program."""
        return stage

    def prepare(self, stage: Path) -> None:
        """Make the stage usable by the user the program runs as."""

    def command(self, inner: Sequence[str], job: Job, stage: Path) -> list[str]:
        """The argv that runs `inner` (the job's argv after any prefix such as prlimit) in
        the route, with `stage` holding the job's inputs."""
        return list(inner)

    def status(self, returncode: int) -> tuple[int | None, int | None]:
        """The program's (exit status, signal) from the wrapper's return code."""
        if returncode < 0:
            return None, -returncode
        if self.signal_as_status and returncode > 128:
            return None, returncode - 128
        return returncode, None


class Bubblewrap(Route):
    name = "bubblewrap"
    counts_cpu = False
    signal_as_status = True  # bwrap's own init waits for the program
    cap_mechanisms = (CGROUP, RLIMIT)
    isolates = (
        "network, host processes, IPC and hostname; every file but the system folders and "
        "the job's own paths, read-only; $HOME and host /tmp (scratch is a private tmpfs)"
    )

    def unavailable(self) -> str | None:
        if shutil.which("bwrap") is None:
            return "bwrap is not installed (apt-get install bubblewrap)"
        return None

    def scratch(self, stage: Path) -> Path:
        return SCRATCH

    def command(self, inner: Sequence[str], job: Job, stage: Path) -> list[str]:
        view = job.view
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
            *_binds("--ro-bind", view.read_only),
            *_binds("--bind", view.writable),
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--perms",
            "0700",
            "--size",
            str(job.limits.scratch_mb * 1024 * 1024),
            "--tmpfs",
            str(SCRATCH),
            *_binds("--ro-bind", [stage / name for name in view.inputs], inside=SCRATCH),
            "--chdir",
            str(view.workdir or SCRATCH),
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


def _binds(option: str, paths: Sequence[Path], inside: Path | None = None) -> list[str]:
    """`option SRC DEST` for each path: at the same place, or by name under `inside`."""
    args: list[str] = []
    for path in paths:
        args += [option, str(path), str(path if inside is None else inside / path.name)]
    return args


_UNSHARE_NS = ("--net", "--pid", "--fork", "--kill-child", "--mount-proc")
# PID 1 of a namespace ignores signals it has no handler for, SIGXCPU included, so the program
# must not be PID 1: a shell is, and waits for it (`; exit` keeps the shell from exec'ing it).
_INIT = ("/bin/sh", "-c", '"$@"; exit $?', "jig-init")


class UnshareRoot(Route):
    name = "unshare-root"
    signal_as_status = True
    isolates = "network and host processes; runs as nobody (only world-readable files)"
    cap_mechanisms = (CGROUP,)
    uncapped = (
        "RLIMIT_NPROC is not used: the program runs as the host's nobody with no user "
        "namespace of its own, where it would count every process of nobody on the host"
    )

    def unavailable(self) -> str | None:
        if os.geteuid() != 0:
            return "jig is not running as root (this route drops the program to nobody)"
        for program in ("unshare", "setpriv"):
            if shutil.which(program) is None:
                return f"{program} is not installed (util-linux)"
        return None

    def prepare(self, stage: Path) -> None:
        for path in (stage, *stage.iterdir()):
            os.chown(path, NOBODY, NOBODY)

    def command(self, inner: Sequence[str], job: Job, stage: Path) -> list[str]:
        drop = [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            "--no-new-privs",
            "--pdeathsig=keep",  # a uid change clears it; keep it so the program dies with unshare
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

    def command(self, inner: Sequence[str], job: Job, stage: Path) -> list[str]:
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

    def command(self, inner: Sequence[str], job: Job, stage: Path) -> list[str]:
        writable = [stage.resolve(), *(path.resolve() for path in job.view.writable)]
        subpaths = " ".join(f'(subpath "{_quoted(path)}")' for path in writable)
        profile = (
            "(version 1)(allow default)(deny network*)(deny file-write*)"
            f'(allow file-write* {subpaths} (literal "/dev/null"))'
        )
        return ["sandbox-exec", "-p", profile, *inner]


def _quoted(path: Path) -> str:
    return str(path).replace("\\", "\\\\").replace('"', '\\"')


class Unisolated(Route):
    name = "none"
    isolates = "nothing but the resource limits (local development only)"
    uncapped = "no isolation: nothing caps the program's processes"


ROUTES: tuple[Route, ...] = (Bubblewrap(), UnshareRoot(), UnshareUserns(), SandboxExec())
NONE = Unisolated()


def route_named(name: str) -> Route:
    for route in (*ROUTES, NONE):
        if route.name == name:
            return route
    raise ValueError(f"no isolation route {name!r}")
