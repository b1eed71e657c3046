"""One budget for a whole run: how many processes it may hold and how much memory it may use
(its tmpfs folders included), and what enforces them.

Without it a fork bomb is bounded only by the wall clock and the PID namespace, and RLIMIT_AS
and RLIMIT_CPU are per process: a few hundred processes each within its limits, or files
written into a tmpfs, can take a 2-core host's memory and CPU long before the wall clock ends
the run. `Limits.processes` counts processes and threads alike, the sandbox's own one or two
included; `Limits.memory_mb` counts every page the run's processes hold, the tmpfs pages and
the kernel objects (inodes, dentries) they make included.

What the kernel offers, and what of it is used:

* RLIMIT_NPROC binds no process of the host's root (uid 0 of the initial user namespace), nor
  one with CAP_SYS_RESOURCE or CAP_SYS_ADMIN there. Since Linux 5.14 it counts the tasks of
  one (user namespace, uid) pair against the task's limit, and each ancestor namespace's count
  of that uid against the limit the child namespace's creator had. Set on the process that
  creates the namespace, it is thus one count shared by every sandbox of that uid (parallel
  `jig selftest --jobs N` runs starve each other); set *inside* a namespace made for the run,
  it is a count of that run alone. So `rlimit`: `prlimit` is the first program inside the
  run's own user namespace, which caps the run when its host uid is not root.
* A cgroup counts every task in it, whatever its uid, and every page they are charged for.
  So `cgroup`: one of its own per run, joined by the sandbox's first process before `exec`,
  where a hierarchy with the controller is writable (usually only by root): cgroup v1, one
  hierarchy per controller (`pids`, `memory`), or v2 with the controller in the hierarchy
  root's `cgroup.subtree_control`. It gets `pids.max` and a memory limit with no swap on top
  (v1 `memory.limit_in_bytes` and `memory.memsw.limit_in_bytes`, v2 `memory.max` and
  `memory.swap.max`), and is killed and removed after the run, whatever ended it.

Neither process cap is trusted untested: a route's probe forks under a small cap until the
kernel refuses, and a mechanism counts only when the refusal came at or below the cap
(`probe._probe_route`). The memory limit is read back once written.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from jigcli.sandbox.environment import SYSTEM_PATH  # where a sandbox finds prlimit
from jigcli.sandbox.owner import PREFIX, gone, run_name

CGROUP = "cgroup"
RLIMIT = "rlimit"
HOW = {
    CGROUP: "pids.max of a cgroup made for the run",
    RLIMIT: "RLIMIT_NPROC set inside the run's own user namespace (counted per namespace)",
}
PIDS, MEMORY = "pids", "memory"
# The file a cgroup made under a hierarchy must have for the controller to be usable there.
_CONTROL = {PIDS: ("pids.max",), MEMORY: ("memory.limit_in_bytes", "memory.max")}
_REMOVE_WAIT_SEC = 2.0


class ProcessCap(NamedTuple):
    """What caps a route's processes here (`mechanism`), or None; `why` says how, or why not."""

    mechanism: str | None
    why: str


class MemoryCap(NamedTuple):
    """Whether a run's memory is capped as a whole here, and how (or why not)."""

    capped: bool
    why: str


def unavailable(mechanism: str) -> str | None:
    """Why `mechanism` cannot be used on this machine, else None (it still has to be probed)."""
    if mechanism == CGROUP:
        if hierarchy(PIDS) is None:
            return "no writable cgroup hierarchy with the pids controller (needs root)"
        return None
    if prlimit() is None:
        return "prlimit is not installed in /usr/bin or /bin (util-linux)"
    return None


# What no memory cgroup bounds as a whole, and what bounds it instead (per process).
UNBOUNDED_WITHOUT_CGROUP = (
    "without a memory cgroup only each process is bounded (RLIMIT_AS, RLIMIT_NOFILE, the tmpfs "
    "sizes): socket and pipe buffers, and kernel objects (inodes, dentries), are not counted "
    "against the run's memory"
)
UNCHARGED_ON_V1 = (
    "cgroup v1: kernel memory (slab: the inodes and dentries of an inode flood) is not charged "
    "to the limit here; cgroup v2's memory.max charges it"
)


@functools.cache
def memory_cap() -> MemoryCap:
    """Whether runs' memory is capped as a whole here, and in words what is and is not: once
    a process, as the hierarchy it rests on is found once (`hierarchy`)."""
    point = hierarchy(MEMORY)
    if point is None:
        return MemoryCap(
            False,
            "no writable cgroup hierarchy with the memory controller; " + UNBOUNDED_WITHOUT_CGROUP,
        )
    said = f"a memory cgroup made for each run, with no swap, {placement(MEMORY)}"
    if not (point / "memory.max").exists() and not _v2_below(point):
        said += f"; {UNCHARGED_ON_V1}"
    return MemoryCap(True, said)


def _v2_below(point: Path) -> bool:
    """Whether `point` lies in a cgroup v2 hierarchy (its cgroups have memory.max)."""
    return any(
        mount.v2 and point.is_relative_to(mount.point) for mount in mounts(_mountinfo(), MEMORY)
    )


def prlimit() -> str | None:
    return shutil.which("prlimit", path=SYSTEM_PATH)


def rlimit_prefix(processes: int) -> list[str]:
    """The argv prefix that sets RLIMIT_NPROC (soft and hard) for the program after it."""
    program = prlimit()
    if program is None:
        raise FileNotFoundError("prlimit")
    return [program, f"--nproc={processes}:{processes}", "--"]


# -- finding hierarchies --------------------------------------------------------------------


_found: dict[str, Path | None] = {}
_find_lock = threading.Lock()
# The cgroups of runs still going: removed at exit too, since a Ctrl-C ends jig while the
# thread that made them may not get to its `finally` (the interpreter does not wait for it).
_live: set[Path] = set()
_live_lock = threading.Lock()


def hierarchy(controller: str) -> Path | None:
    """The folder under which this process makes cgroups that have `controller`, else None:
    its own cgroup where it can (so the limits of whatever runs jig, a CI job's or a systemd
    unit's, still bind the run), else the hierarchy's root. Found once; stale cgroups of
    gone jigs there are swept then."""
    with _find_lock:
        if controller not in _found:
            _found[controller] = _find(controller, _mountinfo(), _own_cgroups())
        return _found[controller]


def placement(controller: str) -> str:
    """Where runs' cgroups with `controller` go here, in words, for `jig doctor`."""
    folder = hierarchy(controller)
    if folder is None:
        return "nowhere: no writable hierarchy has it"
    own = [
        own_folder(mount, controller, _own_cgroups())
        for mount in mounts(_mountinfo(), controller)
        if folder.is_relative_to(mount.point)
    ]
    if folder in own:
        return f"in jig's own cgroup {folder}: the limits around jig bind the run too"
    return (
        f"at the hierarchy's root {folder}: jig's own cgroup takes no children with it (cgroup "
        "v2 without delegation, e.g. systemd-run -p Delegate=yes), so limits set on the "
        "cgroup around jig do not bind the run"
    )


def _mountinfo() -> str:
    try:
        return Path("/proc/self/mountinfo").read_text()
    except OSError:
        return ""


def _own_cgroups() -> str:
    try:
        return Path("/proc/self/cgroup").read_text()
    except OSError:
        return ""


class Mount(NamedTuple):
    point: Path
    root: str  # the folder of the hierarchy mounted there (mountinfo's 4th field)
    v2: bool


def mounts(mountinfo: str, controller: str = PIDS) -> list[Mount]:
    """Mounts that may carry `controller`: cgroup v1 ones with it, then v2 ones."""
    v1: list[Mount] = []
    v2: list[Mount] = []
    for line in mountinfo.splitlines():
        mount, separator, source = line.partition(" - ")
        fields, tail = mount.split(), source.split()
        if not separator or len(fields) < 5 or len(tail) < 3:
            continue
        point = Path(_unescape(fields[4]))
        if tail[0] == "cgroup" and controller in tail[2].split(","):
            v1.append(Mount(point, _unescape(fields[3]), False))
        elif tail[0] == "cgroup2":
            v2.append(Mount(point, _unescape(fields[3]), True))
    return v1 + v2


def candidates(mountinfo: str, controller: str = PIDS) -> list[Path]:
    """Mount points that may carry `controller`: cgroup v1 ones with it, then v2 ones."""
    return [mount.point for mount in mounts(mountinfo, controller)]


def _unescape(field: str) -> str:
    """mountinfo writes space, tab, newline and backslash in paths as octal escapes."""
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def own_folder(mount: Mount, controller: str, own: str) -> Path | None:
    """This process's own cgroup under `mount` (from /proc/self/cgroup's `own` text), or
    None when it does not lie under what is mounted there."""
    for line in own.splitlines():
        number, _, rest = line.partition(":")
        names, _, path = rest.partition(":")
        v2_line = number == "0" and names == ""
        if (mount.v2 and v2_line) or (not mount.v2 and controller in names.split(",")):
            inside = PurePosixPath(path)
            root = PurePosixPath(mount.root)
            if inside.is_relative_to(root):
                return mount.point.joinpath(*inside.relative_to(root).parts)
    return None


def _find(controller: str, mountinfo: str, own: str) -> Path | None:
    for mount in mounts(mountinfo, controller):
        mine = own_folder(mount, controller, own)
        for folder in dict.fromkeys(f for f in (mine, mount.point) if f is not None):
            if _makes_cgroups_with(folder, controller):
                _remove_stale(folder)
                return folder
    return None


def _makes_cgroups_with(point: Path, controller: str) -> bool:
    """Whether a cgroup made under `point` gets `controller`'s files (tried, then removed)."""
    trial = point / f"{run_name()}-trial"
    try:
        trial.mkdir()
    except OSError:
        return False
    try:
        return any((trial / name).exists() for name in _CONTROL[controller])
    finally:
        with contextlib.suppress(OSError):
            trial.rmdir()


def _remove_stale(point: Path) -> None:
    """Remove the cgroups of jig processes that are gone (SIGKILL) without removing them."""
    with contextlib.suppress(OSError):
        for folder in point.glob(f"{PREFIX}*"):
            if gone(folder.name):
                # One try each: a stale cgroup still charged for unreaped tasks cannot go
                # yet, and waiting on it would make every later run pay that wait.
                _empty_and_remove(folder, wait_sec=0.0)


# -- one run's cgroup -----------------------------------------------------------------------


class RunCgroup(NamedTuple):
    """The cgroup folders one sandboxed run lives in (one per v1 hierarchy, or one v2)."""

    pids: Path | None = None
    memory: Path | None = None
    memory_mb: int | None = None
    folders: tuple[Path, ...] = ()

    def refused(self) -> int | None:
        """How many new processes `pids.max` refused (`pids.events`), when the kernel says."""
        return None if self.pids is None else _count(self.pids / "pids.events", "max")

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the run at its memory limit."""
        if self.memory is None:
            return False
        for name in ("memory.events", "memory.oom_control"):  # v2, v1
            count = _count(self.memory / name, "oom_kill")
            if count is not None:
                return count > 0
        return False


def _count(path: Path, key: str) -> int | None:
    with contextlib.suppress(OSError, ValueError):
        for line in path.read_text().splitlines():
            name, _, count = line.partition(" ")
            if name == key:
                return int(count)
    return None


@contextlib.contextmanager
def enforced(
    mechanism: str | None, processes: int, memory_mb: int | None = None
) -> Iterator[RunCgroup | None]:
    """Fresh cgroups for one run: `pids.max = processes` when `mechanism` is `cgroup`, and a
    memory limit of `memory_mb` (no swap) where a memory hierarchy is writable; emptied and
    removed afterwards, whatever ended the run (a timeout, Ctrl-C, an error).

    Raises OSError when a cgroup cannot be made. None when neither applies.
    """
    pids_point = hierarchy(PIDS) if mechanism == CGROUP else None
    memory_point = hierarchy(MEMORY) if memory_mb is not None else None
    if pids_point is None and memory_point is None:
        yield None
        return
    name = run_name()
    made: list[Path] = []
    try:
        pids = memory = None
        if pids_point is not None:
            pids = _make(pids_point / name, made)
            (pids / "pids.max").write_text(str(processes))
        if memory_point is not None and memory_mb is not None:
            memory = _make(memory_point / name, made)
            _limit_memory(memory, memory_mb)
        yield RunCgroup(pids, memory, memory_mb, tuple(made))
    finally:
        for folder in made:
            _empty_and_remove(folder)
            with _live_lock:
                _live.discard(folder)


def _make(folder: Path, made: list[Path]) -> Path:
    if folder not in made:  # v2: one folder carries both controllers
        folder.mkdir()
        made.append(folder)
        with _live_lock:
            _live.add(folder)
    return folder


@atexit.register
def _remove_live() -> None:
    with _live_lock:
        left = list(_live)
    for folder in left:
        _empty_and_remove(folder)


def _limit_memory(folder: Path, memory_mb: int) -> None:
    """Cap the folder's memory at `memory_mb`, swap included; OSError unless it reads back."""
    limit = memory_mb * 1024 * 1024
    if (folder / "memory.max").exists():  # v2
        (folder / "memory.max").write_text(str(limit))
        with contextlib.suppress(FileNotFoundError):  # no swap accounting: no swap to cap
            (folder / "memory.swap.max").write_text("0")
        said = (folder / "memory.max").read_text().strip()
    else:  # v1: memsw (memory + swap) may not be below the memory limit, so it comes second
        (folder / "memory.limit_in_bytes").write_text(str(limit))
        with contextlib.suppress(FileNotFoundError):
            (folder / "memory.memsw.limit_in_bytes").write_text(str(limit))
        said = (folder / "memory.limit_in_bytes").read_text().strip()
    if not said.isdigit() or int(said) > limit:
        raise OSError(f"the memory limit of {folder} reads back as {said}, not {limit}")


def _empty_and_remove(folder: Path, wait_sec: float = _REMOVE_WAIT_SEC) -> None:
    """Kill whatever is left in the cgroup (normally nothing: the PID namespace ended), then
    remove it once the kernel has let its tasks go (waiting at most `wait_sec`)."""
    deadline = time.monotonic() + wait_sec
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
