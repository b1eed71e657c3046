"""How `jigcli.process.run_bounded` starts a child with its limits already in force.

What a child needs before its program runs: its cgroups joined, its rlimits set, a new
session keyring, and SIGKILL asked for when jig dies. Two ways, the same result:

- the gate (Linux, with util-linux's `setpriv`): the child starts as
  `setpriv --pdeathsig KILL -- /bin/sh -c GATE jig-gate CGROUP-FILES… -- program…`, two
  small system programs. The shell joins its cgroups, says it is ready on its stdout and
  waits for a line on its stdin; jig sets its rlimits from outside (`prlimit(2)`) meanwhile,
  then writes `go`, and only then does the shell exec the program (on /dev/null, or on the
  rest of that pipe where the caller feeds the program's stdin). The keyring is joined
  beforehand by the thread that starts the child (session keyrings belong to a thread's
  credentials, which a child copies), so it is that thread's from then on too: only threads
  that start sandboxed programs join one. Python then starts the child with vfork, where a
  `preexec_fn` would force a fork of the whole interpreter and Python code in the child:
  measured here, 3–4 ms a start against 1.
- in the child (elsewhere, without `setpriv`, or when the program reads a descriptor of the
  caller's as its stdin): the same steps as a `preexec_fn`.

The parent-death signal is armed before anything waits for `go`: a jig that dies before
writing it leaves a shell reading end-of-file, which exits; one that dies after it finds the
signal armed (the gate stands in for the forked child's getppid check).
"""

from __future__ import annotations

import contextlib
import functools
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

# Where the gate's programs are looked for: the system's own, never the caller's PATH.
_SYSTEM_PATH = "/usr/bin:/bin:/usr/sbin:/sbin"
_SHELL = "/bin/sh"
_READY = b"jig-gate-ready\n"
_GO = b"go\n"
# The gate's shell joins the cgroups named before `--` itself ("0": the writer moves, which
# skips the kernel's global lock that moving another process takes, an RCU grace period of
# some 10 ms), says so on its stdout, then reads one line on its stdin: anything but `go` (jig
# died first, or wrote nothing) ends it before anything of the program runs. A shell's `read`
# takes a pipe's bytes one at a time, so what follows the line is left for the program.
_GATE = (
    'while [ "$1" != -- ]; do printf 0 >"$1" || exit 125; shift; done; shift; '
    'printf "jig-gate-ready\\n" && read -r go && [ "$go" = go ] || exit 125; exec "$@"'
)
_GATE_NAME = "jig-gate"
# How long two small system programs may take to reach the gate (they take milliseconds): a
# machine that cannot start them in this long fails the run's set-up rather than hanging it.
_GATE_START_SEC = 30.0
# What jig reads of a gate that failed: its shell's error line, at most.
_GATE_SAID_CAP = 4096


class ChildSetup(NamedTuple):
    """What the child needs before its program runs (see the module docstring)."""

    # (resource, (soft, hard)) for setrlimit/prlimit
    rlimits: tuple[tuple[int, tuple[int, int]], ...] = ()
    # cgroup folders to join: each one's `tasks` (v1: one thread) or `cgroup.procs` (v2)
    cgroups: tuple[Path, ...] = ()
    fresh_keyring: bool = False
    parent_death: bool = False

    def needed(self) -> bool:
        return bool(self.rlimits or self.cgroups or self.fresh_keyring or self.parent_death)


def start(args: list[str], setup: ChildSetup, **popen: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(args, **popen)` with `setup` in force before the program runs;
    `popen["stdin"]` is DEVNULL, PIPE or a descriptor. Raises FileNotFoundError or
    PermissionError when the program cannot be run, OSError or SubprocessError when the
    setup cannot be done."""
    if not setup.needed():
        return subprocess.Popen(args, **popen)
    gate = _gate_prefix(setup, popen.get("stdin"))
    if gate is None:
        return subprocess.Popen(args, preexec_fn=_in_child(setup), **popen)
    _check_runnable(args[0], popen.get("env"), popen.get("cwd"))
    return _through_gate(gate, args, setup, popen)


# -- the gate --------------------------------------------------------------------------------


def _gate_prefix(setup: ChildSetup, stdin: Any) -> list[str] | None:
    """The argv before the program's, or None where the gate cannot do what `setup` asks
    (no prlimit(2), no setpriv for the parent-death signal) or the child's stdin is a
    descriptor of the caller's (the gate reads its `go` on the child's stdin)."""
    if stdin not in (subprocess.DEVNULL, subprocess.PIPE):
        return None
    if not hasattr(resource, "prlimit") or not os.path.exists(_SHELL):
        return None
    # A caller with no stdin for the program gets /dev/null; one that feeds it, the rest of
    # the gate's pipe.
    script = _GATE + " </dev/null" if stdin == subprocess.DEVNULL else _GATE
    shell = [_SHELL, "-c", script, _GATE_NAME]
    if not setup.parent_death:
        return shell
    setpriv = _setpriv()
    return None if setpriv is None else [setpriv, "--pdeathsig", "KILL", "--", *shell]


@functools.cache
def _setpriv() -> str | None:
    """util-linux's setpriv where it takes `--pdeathsig` (2.33 and later: RHEL 8's 2.32 and
    Ubuntu 18.04's 2.31 do not); else None. Asked by running it once for each setpriv
    binary and kept in jig's cache (about 3 ms a process otherwise): a kept answer that is
    wrong fails the gate's set-up or falls back to the forked child, never weakens either."""
    found = shutil.which("setpriv", path=_SYSTEM_PATH)
    if found is None:
        return None
    from jigcli import cachedir

    try:
        seen = os.stat(found)
    except OSError:
        return None
    kept = cachedir.entry(
        "setpriv", (found, seen.st_ino, seen.st_size, seen.st_mtime_ns, seen.st_ctime_ns), ".txt"
    )
    said = cachedir.read_entry(kept, 16)
    if said not in (_TAKES_PDEATHSIG, _NO_PDEATHSIG):
        said = _TAKES_PDEATHSIG if _takes_pdeathsig(found) else _NO_PDEATHSIG
        cachedir.keep(kept, said)
    return found if said == _TAKES_PDEATHSIG else None


_TAKES_PDEATHSIG, _NO_PDEATHSIG = b"pdeathsig", b"none"


def _takes_pdeathsig(setpriv: str) -> bool:
    try:
        said = subprocess.run(
            [setpriv, "--pdeathsig", "KILL", "--", _SHELL, "-c", ":"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return said.returncode == 0


def _check_runnable(program: str, env: Mapping[str, str] | None, cwd: Any) -> None:
    """What `Popen` would raise for a program it cannot run, since here the gate's shell
    is what Popen runs (its later exec of a program gone since would exit 127, as a
    shell's does)."""
    if "/" in program:
        path = os.path.join(os.fspath(cwd), program) if cwd else program
        if not os.path.exists(path):
            raise FileNotFoundError(2, "No such file or directory", program)
        if not os.access(path, os.X_OK) or os.path.isdir(path):
            raise PermissionError(13, "Permission denied", program)
        return
    if shutil.which(program, path=os.pathsep.join(os.get_exec_path(env))) is None:
        raise FileNotFoundError(2, "No such file or directory", program)


def _through_gate(
    gate: list[str], args: list[str], setup: ChildSetup, popen: dict[str, Any]
) -> subprocess.Popen[bytes]:
    """Start the gate on a stdin pipe, wait until it has joined its cgroups, set its rlimits,
    then write `go` on that pipe (a caller's stdin data follows it there; with none, the
    program's stdin is /dev/null)."""
    if setup.fresh_keyring:
        _join_new_keyring()
    fed = popen.pop("stdin") == subprocess.PIPE
    joins = [os.fspath(_membership_file(cgroup)) for cgroup in setup.cgroups]
    proc = subprocess.Popen([*gate, *joins, "--", *args], stdin=subprocess.PIPE, **popen)
    assert proc.stdin is not None
    try:
        _await_ready(proc)
        for which, limits in setup.rlimits:
            resource.prlimit(proc.pid, which, limits)
        os.write(proc.stdin.fileno(), _GO)
    except OSError as failed:  # as a preexec_fn's failure reads: never "program missing"
        _kill_waiting(proc)
        raise subprocess.SubprocessError(f"the child's set-up failed: {failed}") from failed
    except BaseException:
        _kill_waiting(proc)
        raise
    if not fed:
        proc.stdin.close()
        proc.stdin = None
    return proc


def _await_ready(proc: subprocess.Popen[bytes]) -> None:
    """Read the gate's ready line off the child's stdout (nothing of the program has run, so
    nothing else can be there); raise OSError with the shell's words when it ended first."""
    assert proc.stdout is not None and proc.stderr is not None
    seen = b""
    deadline = time.monotonic() + _GATE_START_SEC
    while len(seen) < len(_READY):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([proc.stdout], [], [], left)[0]:
            raise OSError(f"its gate did not open within {_GATE_START_SEC:g} s")
        chunk = os.read(proc.stdout.fileno(), len(_READY) - len(seen))
        if not chunk:
            break
        seen += chunk
    if seen == _READY:
        return
    proc.wait(_GATE_START_SEC)
    said = os.read(proc.stderr.fileno(), _GATE_SAID_CAP).decode("utf-8", "replace").strip()
    raise OSError(f"it ended before its program started ({said or f'status {proc.returncode}'})")


def _membership_file(cgroup: Path) -> Path:
    # cgroup v1's `tasks` moves one thread (the shell is single-threaded), which skips the
    # global lock `cgroup.procs` takes (an RCU grace period, some 10 ms, on every move);
    # cgroup v2 has only `cgroup.procs` for this.
    tasks = cgroup / "tasks"
    return tasks if tasks.exists() else cgroup / "cgroup.procs"


def _kill_waiting(proc: subprocess.Popen[bytes]) -> None:
    """End a child still at the gate, and its group where it leads one (its own session,
    when the caller asked for one): nothing it started outlives it."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


# -- in the forked child ---------------------------------------------------------------------


def _in_child(setup: ChildSetup) -> Callable[[], None]:
    """The same steps for a `preexec_fn`: plain system calls, everything bound before the
    fork (ctypes loads there)."""
    joins = [os.fsencode(_membership_file(cgroup)) for cgroup in setup.cgroups]
    new_keyring = _keyring_call() if setup.fresh_keyring else None
    arm = _death_signaller() if setup.parent_death else None

    def in_child() -> None:
        for join in joins:  # "0": the child moves itself
            fd = os.open(join, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        for which, limits in setup.rlimits:
            resource.setrlimit(which, limits)
        if new_keyring is not None:
            new_keyring()
        if arm is not None:
            arm()

    return in_child


def _death_signaller() -> Callable[[], None] | None:
    """A call, for the forked child, that asks the kernel for SIGKILL when jig dies. If jig
    died before the call, the child ends at once."""
    call = prctl()
    if call is None:
        return None
    jig = os.getpid()

    def arm() -> None:
        if call(PR_SET_PDEATHSIG, signal.SIGKILL) != 0 or os.getppid() != jig:
            os._exit(127)

    return arm


# -- the kernel calls Python has no binding for ----------------------------------------------

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER = 1, 36
# keyctl(2)'s number where jig runs on Linux; KEYCTL_JOIN_SESSION_KEYRING with no name makes
# and joins a new anonymous session keyring.
_KEYCTL = {"x86_64": 250, "aarch64": 219, "riscv64": 219, "ppc64le": 271, "s390x": 280}
_KEYCTL_JOIN_SESSION_KEYRING = 1


@functools.cache
def prctl() -> Callable[[int, int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    call = ctypes.CDLL(None, use_errno=True).prctl
    call.restype = ctypes.c_int
    call.argtypes = [ctypes.c_int, ctypes.c_ulong]
    return call


def _keyctl_number() -> int | None:
    if not sys.platform.startswith("linux"):
        return None
    return _KEYCTL.get(os.uname().machine)


@functools.cache
def _keyring_call() -> Callable[[], None] | None:
    """A call that joins a new session keyring; None where this kernel or architecture
    offers none (then there is no keyring to leak)."""
    number = _keyctl_number()
    if number is None:
        return None
    import ctypes

    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long
    syscall.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p]

    def join() -> None:
        if syscall(number, _KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
            raise OSError(ctypes.get_errno(), "cannot join a new session keyring")

    return join


def _join_new_keyring() -> None:
    join = _keyring_call()
    if join is not None:
        join()


def rlimit_pairs(
    pairs: Sequence[tuple[int, int]], cpu_kill: bool
) -> tuple[tuple[int, tuple[int, int]], ...]:
    """(resource, (soft, hard)) for each (resource, value): hard equal to soft, but for
    RLIMIT_CPU one second more unless `cpu_kill` (SIGXCPU first, then SIGKILL)."""
    return tuple(
        (which, (value, value + 1 if which == resource.RLIMIT_CPU and not cpu_kill else value))
        for which, value in pairs
    )
