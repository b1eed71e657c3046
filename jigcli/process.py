"""The one process runner: every external program jig starts goes through `run_bounded`.

It applies, in one place, what a verifier needs from a child process: a wall clock (the
whole process group is killed at the deadline, so a wedged `lean` or a forking checker
never outlives it), resource limits set in the child before `exec`, a fresh session, an
environment the caller chose, and stdout/stderr read with a byte cap (a pipe is not
limited by RLIMIT_FSIZE, so a flood is stopped here, never buffered whole).

`stopping()` kills every child `run_bounded` has running, in whichever thread, and refuses
new ones: how a Ctrl-C reaches verifications that worker threads wait on (Python raises
KeyboardInterrupt in the main thread only, and each child leads its own session, so the
terminal's SIGINT reaches neither the workers nor their children).
"""

from __future__ import annotations

import contextlib
import os
import resource
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from jigcli import spawn

DEFAULT_OUTPUT_CAP = 64 * 1024 * 1024
_KILL_GRACE_SEC = 2.0
_POLL_SEC = 0.25
_DRAIN_AFTER_EXIT_SEC = 0.5


class Deadline:
    """A wall-clock budget shared by the steps of one verification."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self._end - time.monotonic())

    def expired(self) -> bool:
        return self.remaining() <= 0.0


class Limits(NamedTuple):
    """Kernel-enforced limits for the child (RLIMIT_*). `None` leaves a limit as inherited."""

    cpu_sec: int | None = None
    address_space_mb: int | None = None
    file_size_mb: int | None = None
    processes: int | None = None
    open_files: int | None = None  # RLIMIT_NOFILE: with the process cap, bounds its sockets
    no_core: bool = True
    # Cgroup folders the child joins before `exec` (one per cgroup v1 hierarchy, or one v2
    # folder), so their limits (`pids.max`, memory) bind it and everything it starts.
    cgroups: tuple[Path, ...] = ()
    # Give the child a new, empty session keyring: the caller's (and the keys it holds)
    # must not be reachable from an untrusted program.
    fresh_keyring: bool = False
    # RLIMIT_CPU's hard limit equal to its soft one: SIGKILL at the limit, no SIGXCPU a
    # program could catch to go on for another second (and print a verdict in it).
    cpu_kill: bool = False
    # SIGKILL the child when jig dies, however it dies (SIGKILL included): a sandbox whose
    # wall clock is jig's must not outlive it (Linux; elsewhere the process group kill only).
    parent_death: bool = False

    def child_setup(self) -> spawn.ChildSetup:
        """What the child needs before its program runs (`jigcli.spawn`)."""
        return spawn.ChildSetup(
            rlimits=spawn.rlimit_pairs(self.rlimits(), self.cpu_kill),
            cgroups=self.cgroups,
            fresh_keyring=self.fresh_keyring,
            parent_death=self.parent_death,
        )

    def rlimits(self) -> list[tuple[int, int]]:
        pairs: list[tuple[int, int]] = []
        if self.cpu_sec is not None:
            # The soft limit sends SIGXCPU; the hard limit one second later is SIGKILL.
            pairs.append((resource.RLIMIT_CPU, self.cpu_sec))
        if self.address_space_mb is not None:
            pairs.append((resource.RLIMIT_AS, self.address_space_mb * 1024 * 1024))
        if self.file_size_mb is not None:
            pairs.append((resource.RLIMIT_FSIZE, self.file_size_mb * 1024 * 1024))
        if self.processes is not None:
            pairs.append((resource.RLIMIT_NPROC, self.processes))
        if self.open_files is not None:
            pairs.append((resource.RLIMIT_NOFILE, self.open_files))
        if self.no_core:
            pairs.append((resource.RLIMIT_CORE, 0))
        return pairs


class RunResult(NamedTuple):
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    duration_sec: float
    timed_out: bool = False
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    stdout_bytes: int = 0
    stderr_bytes: int = 0
    notes: tuple[str, ...] = ()
    # CPU seconds (user + system) of the child and every descendant it waited for; None where
    # the platform cannot say. Tells a CPU-limit kill apart from any other SIGKILL.
    cpu_sec: float | None = None
    pid: int = 0  # the child's, which led its own process group and session
    # What the child wrote on stdout, as bytes (up to the cap): `stdout` is it decoded for a
    # person, undecodable bytes replaced, so it cannot tell `\xff` from U+FFFD.
    stdout_data: bytes = b""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    @property
    def signal(self) -> int | None:
        """The signal that ended the child, when one did."""
        if self.returncode is not None and self.returncode < 0:
            return -self.returncode
        return None

    @property
    def truncated(self) -> bool:
        return self.stdout_truncated or self.stderr_truncated

    @property
    def output(self) -> str:
        """stdout then stderr, as a person would read them."""
        return "\n".join(part for part in (self.stdout, self.stderr) if part)


class ProgramMissing(Exception):
    """The program to run is not installed (not found on PATH or not executable)."""

    def __init__(self, program: str) -> None:
        super().__init__(program)
        self.program = program


_adopting: list[bool] = []  # whether jig is its descendants' reaper (set once)
_adopting_lock = threading.Lock()


def become_subreaper() -> bool:
    """Make jig the reaper of its orphaned descendants (Linux): a sandbox's init that its
    launcher leaves behind then comes back to jig, which reaps it (`reap`), instead of
    going to the machine's init, which in a container may never reap it. From then on each
    `run_bounded` reaps what its child's group left to jig (`reap_adopted`). Once."""
    with _adopting_lock:
        if not _adopting:
            call = spawn.prctl()
            _adopting.append(call is not None and call(spawn.PR_SET_CHILD_SUBREAPER, 1) == 0)
        return _adopting[0]


def reap_adopted(group: int) -> list[int]:
    """Reap the processes of process group `group` (a finished child's: its pid cannot be
    reused while the group lives) that jig adopted as their reaper, killing any still alive:
    a launcher that died before its own child (unshare's init, killed with the group) leaves
    it to jig. `waitpid(-group)` sees only jig's own children in that group, and jig's own
    children each lead a group of their own, so none of theirs is touched."""
    reaped: list[int] = []
    deadline = time.monotonic() + _KILL_GRACE_SEC
    while True:
        try:
            pid, _ = os.waitpid(-group, os.WNOHANG)
        except ChildProcessError:
            return reaped  # no child of jig's is left in the group
        if pid:
            reaped.append(pid)
            continue
        if time.monotonic() > deadline:
            return reaped  # one that outlives SIGKILL this long (a hung mount) is left
        with contextlib.suppress(ProcessLookupError):
            os.killpg(group, signal.SIGKILL)
        time.sleep(0.002)


def reap(pid: int, within_sec: float = _KILL_GRACE_SEC) -> bool:
    """Reap `pid`, one of jig's children by adoption, killing it if it is still there after
    `within_sec`; False when it is not jig's to reap."""
    killed = False
    deadline = time.monotonic() + within_sec
    while True:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return False
        if done:
            return True
        if time.monotonic() > deadline:
            if killed:
                return False
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            killed, deadline = True, time.monotonic() + _KILL_GRACE_SEC
        time.sleep(0.002)


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by `pid`; quiet when it is already gone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


class Stopped(Exception):
    """`run_bounded` was called inside `stopping()`: the caller is shutting down, start nothing."""


class _Children:
    """The process groups `run_bounded` has started and not yet reaped (a pid stays ours until
    it is reaped, so killing one of these never hits a reused pid), and whether `stopping()`
    is on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pids: set[int] = set()
        self.refusing = False

    def track(self, pid: int) -> bool:
        """Count `pid`'s group as running; False (and not counted) inside `stopping()`."""
        with self.lock:
            if not self.refusing:
                self.pids.add(pid)
            return not self.refusing

    def untrack(self, pid: int) -> None:
        with self.lock:
            self.pids.discard(pid)


_children = _Children()


@contextlib.contextmanager
def stopping() -> Iterator[None]:
    """Kill every process group `run_bounded` has running, in any thread, and make it raise
    `Stopped` instead of starting a process until the block ends."""
    with _children.lock:
        _children.refusing = True
        for pid in _children.pids:
            kill_group(pid)
    try:
        yield
    finally:
        with _children.lock:
            _children.refusing = False


def run_bounded(
    argv: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    limits: Limits | None = None,
    output_cap: int = DEFAULT_OUTPUT_CAP,
    stdin_data: bytes | None = None,
    on_line: Callable[[str], None] | None = None,
    pass_fds: Sequence[int] = (),
    stdin_fd: int | None = None,
    forward: tuple[int, int] | None = None,
) -> RunResult:
    """Run `argv` to completion, within `timeout` seconds and `output_cap` bytes per stream.

    The child leads its own session; when it exits, times out or floods, everything left in
    its process group is killed. `on_line` (optional) sees each stdout line as it arrives,
    for progress. `stdin_fd` is a descriptor the child reads as its stdin (instead of
    `stdin_data` or nothing); with `forward`, what the child writes on stdout and stderr is
    written, byte for byte as it arrives, to those two descriptors instead of being kept
    (the caps still stop a flood): how a command that stands between two programs, such as
    comparator's sandbox command, passes their streams through. Raises `ProgramMissing` when
    the program does not exist, and `Stopped` inside `stopping()`.
    """
    args = [os.fspath(a) for a in argv]
    setup = (limits or Limits(no_core=False)).child_setup()
    started = time.monotonic()
    try:
        proc = spawn.start(
            args,
            setup,
            cwd=cwd,
            env=dict(env) if env is not None else None,
            stdin=_stdin(stdin_data, stdin_fd),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            pass_fds=pass_fds,
        )
    except (FileNotFoundError, PermissionError) as exc:
        raise ProgramMissing(args[0]) from exc
    if not _children.track(proc.pid):  # checked once started: none slips past `stopping`
        kill_group(proc.pid)
        proc.communicate()
        raise Stopped(f"not running {args[0]}: jig is stopping")
    reader = _CappedReader(proc, output_cap, on_line, forward)
    try:
        if stdin_data is not None and proc.stdin is not None:
            _feed_stdin(proc, stdin_data)
        deadline = None if timeout is None else started + timeout
        timed_out = reader.pump(deadline)
        reader.flush_line()
        if not (timed_out or reader.flooded):
            timed_out = not _wait_until(proc, deadline)  # it may close its pipes and linger
    except BaseException:
        # Ctrl-C (or any error) while waiting: the child's group must not outlive the caller.
        kill_group(proc.pid)
        _children.untrack(proc.pid)
        proc.wait()
        raise
    _children.untrack(proc.pid)  # before the reap, while its pid cannot have been reused
    if timed_out or reader.flooded:
        kill_group(proc.pid)
    returncode, cpu_sec = _reap(proc)
    kill_group(proc.pid)  # anything the child left running in its group dies with it
    if _adopting and _adopting[0]:
        reap_adopted(proc.pid)
    return RunResult(
        argv=args,
        returncode=returncode,
        stdout=reader.text(0),
        stderr=reader.text(1),
        stdout_data=reader.data(0),
        duration_sec=time.monotonic() - started,
        timed_out=timed_out,
        stdout_truncated=reader.truncated[0],
        stderr_truncated=reader.truncated[1],
        stdout_bytes=reader.seen[0],
        stderr_bytes=reader.seen[1],
        cpu_sec=cpu_sec,
        pid=proc.pid,
        notes=(f"output exceeded {output_cap} bytes; the process was stopped",)
        if reader.flooded
        else (),
    )


def _stdin(data: bytes | None, fd: int | None) -> int:
    if fd is not None:
        return fd
    return subprocess.PIPE if data is not None else subprocess.DEVNULL


def _feed_stdin(proc: subprocess.Popen[bytes], data: bytes) -> None:
    assert proc.stdin is not None
    try:
        proc.stdin.write(data)
    except BrokenPipeError:
        pass
    finally:
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the child has exited, without reaping it: `_reap` reads its CPU time then."""
    if proc.returncode is not None:
        return True
    if not hasattr(os, "waitid"):  # macOS before Python 3.13: reap now, lose the CPU time
        return proc.poll() is not None
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def _wait_until(proc: subprocess.Popen[bytes], deadline: float | None) -> bool:
    """Wait for the child to exit (not reaping it); False when the deadline passed first."""
    delay = 0.001
    while not _exited(proc):
        now = time.monotonic()
        if deadline is not None and now >= deadline:
            return False
        time.sleep(delay if deadline is None else min(delay, deadline - now))
        delay = min(delay * 2, 0.05)
    return True


def _reap(proc: subprocess.Popen[bytes]) -> tuple[int, float | None]:
    """The exit status and, where the platform says, the CPU seconds of the child's tree."""
    if not _wait_until(proc, time.monotonic() + _KILL_GRACE_SEC):
        proc.kill()
    if proc.returncode is not None:
        return proc.returncode, None
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:  # someone else reaped it; Popen knows how to say so
        return proc.wait(), None
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


def _write_all(fd: int, data: bytes) -> None:
    """All of `data` on `fd`; a reader that went away loses the rest, as a pipe would."""
    view = memoryview(data)
    with contextlib.suppress(BrokenPipeError):
        while view:
            view = view[os.write(fd, view) :]


class _CappedReader:
    """Reads both pipes without blocking on either, keeping at most `cap` bytes of each."""

    def __init__(
        self,
        proc: subprocess.Popen[bytes],
        cap: int,
        on_line: Callable[[str], None] | None,
        forward: tuple[int, int] | None = None,
    ) -> None:
        self.proc = proc
        self.forward = forward
        self.cap = cap
        self.on_line = on_line
        self.chunks: tuple[list[bytes], list[bytes]] = ([], [])
        self.seen = [0, 0]
        self.truncated = [False, False]
        self.flooded = False
        self._partial_line = b""

    def pump(self, deadline: float | None) -> bool:
        """Read until both pipes close; True when the deadline passed first.

        Once the child itself has exited, whatever it left holding the pipes gets a short
        grace to finish writing and is then abandoned (and killed with the group by `run_bounded`),
        so an escaped grandchild cannot keep a verification open until its deadline.
        """
        selector = selectors.DefaultSelector()
        for index, stream in enumerate((self.proc.stdout, self.proc.stderr)):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
            selector.register(stream, selectors.EVENT_READ, index)
        exited_at: float | None = None
        try:
            while selector.get_map():
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    return True
                if exited_at is None and _exited(self.proc):
                    exited_at = now
                if exited_at is not None and now - exited_at > _DRAIN_AFTER_EXIT_SEC:
                    return False
                wait = _POLL_SEC if deadline is None else min(_POLL_SEC, deadline - now)
                for key, _ in selector.select(timeout=wait):
                    data = os.read(key.fd, 65536)
                    if not data:
                        selector.unregister(key.fileobj)
                        continue
                    self._keep(int(key.data), data)
                    if self.flooded:
                        return False
            return False
        finally:
            selector.close()

    def _keep(self, index: int, data: bytes) -> None:
        room = self.cap - self.seen[index]
        self.seen[index] += len(data)
        if room > 0 and self.forward is not None:
            _write_all(self.forward[index], data[:room])
        elif room > 0:
            self.chunks[index].append(data[:room])
        if len(data) > room:
            self.truncated[index] = True
            self.flooded = True
        if index == 0 and self.on_line is not None:
            self._emit_lines(data)

    def _emit_lines(self, data: bytes) -> None:
        assert self.on_line is not None
        *lines, self._partial_line = (self._partial_line + data).split(b"\n")
        for line in lines:
            self.on_line(line.decode("utf-8", "replace"))

    def flush_line(self) -> None:
        if self.on_line is not None and self._partial_line:
            self.on_line(self._partial_line.decode("utf-8", "replace"))
            self._partial_line = b""

    def data(self, index: int) -> bytes:
        return b"".join(self.chunks[index])

    def text(self, index: int) -> str:
        return self.data(index).decode("utf-8", "replace")
