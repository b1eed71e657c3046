"""The cap on how many processes a sandboxed program may hold at once, and what enforces it.

Without one, a fork bomb is bounded only by the wall clock and the PID namespace, and RLIMIT_AS
and RLIMIT_CPU are per process: a few hundred processes each within its limits can starve a
2-core host of memory and CPU long before the wall clock ends the run. `Limits.processes`
counts processes and threads alike, the sandbox's own one or two included.

What the kernel offers, and what of it is used:

* RLIMIT_NPROC binds no process of the host's root (uid 0 of the initial user namespace), nor
  one with CAP_SYS_RESOURCE or CAP_SYS_ADMIN there. Since Linux 5.14 it counts the tasks of
  one (user namespace, uid) pair against the task's limit, and each ancestor namespace's count
  of that uid against the limit the child namespace's creator had. Set on the process that
  creates the namespace, it is thus one count shared by every sandbox of that uid (parallel
  `jig selftest --jobs N` runs starve each other); set *inside* a namespace made for the run,
  it is a count of that run alone. So `rlimit`: `prlimit` is the first program inside the
  run's own user namespace (bubblewrap, unshare-userns), which caps the run when its host
  uid is not root.
* `pids.max` of a cgroup counts every task in it, whatever its uid. So `cgroup`: a cgroup of
  its own per run, joined by the sandbox's first process before `exec`, where a pids cgroup
  hierarchy is writable (usually only by root; cgroup v1 `pids`, or v2 with `pids` in the
  hierarchy root's `cgroup.subtree_control`).

Neither is trusted untested: a route's probe forks under a small cap until the kernel refuses,
and a mechanism counts only when the refusal came at or below the cap (`probe._probe_route`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jigcli.sandbox.environment import SYSTEM_PATH  # where a sandbox finds prlimit

CGROUP = "cgroup"
RLIMIT = "rlimit"
HOW = {
    CGROUP: "pids.max of a cgroup made for the run",
    RLIMIT: "RLIMIT_NPROC set inside the run's own user namespace (counted per namespace)",
}
_RUN_PREFIX = "jig-sandbox-"
_REMOVE_WAIT_SEC = 2.0


@dataclass(frozen=True)
class ProcessCap:
    """What caps a route's processes here (`mechanism`), or None; `why` says how, or why not."""

    mechanism: str | None
    why: str


def unavailable(mechanism: str) -> str | None:
    """Why `mechanism` cannot be used on this machine, else None (it still has to be probed)."""
    if mechanism == CGROUP:
        if pids_hierarchy() is None:
            return "no writable cgroup hierarchy with the pids controller (needs root)"
        return None
    if prlimit() is None:
        return "prlimit is not installed in /usr/bin or /bin (util-linux)"
    return None


def prlimit() -> str | None:
    return shutil.which("prlimit", path=SYSTEM_PATH)


def rlimit_prefix(processes: int) -> list[str]:
    """The argv prefix that sets RLIMIT_NPROC (soft and hard) for the program after it."""
    program = prlimit()
    if program is None:
        raise FileNotFoundError("prlimit")
    return [program, f"--nproc={processes}:{processes}", "--"]


# -- cgroups -------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunCgroup:
    """The cgroup one sandboxed run lives in."""

    folder: Path

    def refused(self) -> int | None:
        """How many new processes `pids.max` refused (`pids.events`), when the kernel says."""
        with contextlib.suppress(OSError, ValueError):
            for line in (self.folder / "pids.events").read_text().splitlines():
                key, _, count = line.partition(" ")
                if key == "max":
                    return int(count)
        return None


_found: list[Path | None] = []
_find_lock = threading.Lock()
_serial = itertools.count()


def pids_hierarchy() -> Path | None:
    """Where this process can make cgroups that have `pids.max`, else None. Found once."""
    with _find_lock:
        if not _found:
            _found.append(_find(_mountinfo()))
        return _found[0]


def _mountinfo() -> str:
    try:
        return Path("/proc/self/mountinfo").read_text()
    except OSError:
        return ""


def candidates(mountinfo: str) -> list[Path]:
    """Mount points that may carry the pids controller: cgroup v1 `pids` ones, then v2 ones."""
    v1: list[Path] = []
    v2: list[Path] = []
    for line in mountinfo.splitlines():
        mount, separator, source = line.partition(" - ")
        fields, tail = mount.split(), source.split()
        if not separator or len(fields) < 5 or len(tail) < 3:
            continue
        point = Path(_unescape(fields[4]))
        if tail[0] == "cgroup" and "pids" in tail[2].split(","):
            v1.append(point)
        elif tail[0] == "cgroup2":
            v2.append(point)
    return v1 + v2


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def _find(mountinfo: str) -> Path | None:
    for point in candidates(mountinfo):
        if _makes_pids_cgroups(point):
            _remove_stale(point)
            return point
    return None


def _makes_pids_cgroups(point: Path) -> bool:
    """Whether a cgroup made under `point` gets `pids.max` (tried for real, then removed)."""
    trial = point / f"{_RUN_PREFIX}{os.getpid()}-trial"
    try:
        trial.mkdir()
    except OSError:
        return False
    try:
        return (trial / "pids.max").exists()
    finally:
        with contextlib.suppress(OSError):
            trial.rmdir()


def _remove_stale(point: Path) -> None:
    """Remove the empty cgroups of jig processes that died before they could (SIGKILL)."""
    with contextlib.suppress(OSError):
        for folder in point.glob(f"{_RUN_PREFIX}*"):
            owner = folder.name[len(_RUN_PREFIX) :].split("-")[0]
            if owner.isdigit() and not Path("/proc", owner).exists():
                with contextlib.suppress(OSError):
                    folder.rmdir()


@contextlib.contextmanager
def enforced(mechanism: str | None, processes: int) -> Iterator[RunCgroup | None]:
    """For `cgroup`, a fresh cgroup with `pids.max = processes`, emptied and removed afterwards.

    Raises OSError when the cgroup cannot be made. Other mechanisms need nothing here.
    """
    hierarchy = pids_hierarchy() if mechanism == CGROUP else None
    if hierarchy is None:
        yield None
        return
    folder = hierarchy / f"{_RUN_PREFIX}{os.getpid()}-{next(_serial)}"
    folder.mkdir()
    try:
        (folder / "pids.max").write_text(str(processes))
        yield RunCgroup(folder)
    finally:
        _empty_and_remove(folder)


def _empty_and_remove(folder: Path) -> None:
    """Kill whatever is left in the cgroup (normally nothing: the PID namespace ended), then
    remove it once the kernel has let its tasks go."""
    deadline = time.monotonic() + _REMOVE_WAIT_SEC
    delay = 0.0005  # bubblewrap's init is usually still exiting, for a millisecond or so
    while True:
        _kill_members(folder)
        try:
            folder.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            if time.monotonic() > deadline:
                return  # left for `_remove_stale` of a later jig
            time.sleep(delay)
            delay = min(delay * 2, 0.02)


def _kill_members(folder: Path) -> None:
    kill = folder / "cgroup.kill"  # cgroup v2, Linux 5.14+: the whole cgroup at once
    with contextlib.suppress(OSError):
        if kill.exists():
            kill.write_text("1")
            return
        for pid in (folder / "cgroup.procs").read_text().split():
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
