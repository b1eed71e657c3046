"""One job through one route: its view checked, its inputs staged, its budget enforced, run
by `jigcli.process`.

Every route runs the job through `jigcli.process.run_bounded` (rlimits, wall clock, fresh
session, output cap, process-group kill, a new session keyring) with an environment built from
scratch, its inputs copied into a fresh stage folder, in cgroups made for the run (processes,
memory) where this machine has them; the stage and the cgroups are removed afterwards,
whatever ended the run.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import stat
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path

from jigcli.process import Limits as RunLimits
from jigcli.process import ProgramMissing, become_subreaper, reap, run_bounded
from jigcli.safefiles import others_may_swap_in
from jigcli.sandbox import cgroups, seccomp
from jigcli.sandbox.environment import environment
from jigcli.sandbox.job import Execution, Job, SetupFailed
from jigcli.sandbox.owner import PREFIX, gone, run_name
from jigcli.sandbox.routes import Route
from jigcli.sandbox.views import check_view

# Stages of runs still going: removed at exit too, since a Ctrl-C ends jig while the thread
# that made them may not get to its `finally` (the interpreter does not wait for it).
_live: set[Path] = set()
_swept: list[bool] = []


@contextlib.contextmanager
def staged(job: Job) -> Iterator[Path]:
    """A private temporary folder holding the job's inputs, removed afterwards; named for
    this process (`owner.run_name`), so that a later jig removes it if this one is killed.

    It is filled through a descriptor of the folder jig made, never by path: once made, its
    name is not looked up again until the run binds it, and `temporary_root` picks only a
    parent no other user can rename it in."""
    root = temporary_root()
    if not _swept:
        _swept.append(True)
        sweep_stages(root)
    stage = root / run_name()  # random in part: mkdir makes it, or fails, never reuses one
    stage.mkdir(mode=0o700)
    _live.add(stage)
    try:
        _fill(stage, job.view.inputs)
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        _live.discard(stage)


_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def _fill(stage: Path, inputs: Mapping[str, bytes]) -> None:
    """Write `inputs` into the folder jig just made at `stage`, through its descriptor, after
    checking that it is that folder: jig's own, mode 0700, not a link."""
    try:
        folder = os.open(stage, _FOLDER)
    except OSError as error:  # a link (ELOOP, or ENOTDIR with O_DIRECTORY) or gone
        why = f"the stage {stage} is not the folder jig made ({error.strerror})"
        raise SetupFailed(why) from None
    try:
        info = os.fstat(folder)
        if info.st_uid != os.geteuid() or info.st_mode & 0o077:  # made 0700 (or less: umask)
            raise SetupFailed(f"the stage {stage} is not the folder jig made; not run")
        for name, data in inputs.items():
            fd = os.open(name, _NEW_FILE, 0o644, dir_fd=folder)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
    finally:
        os.close(folder)


def temporary_root() -> Path:
    """Where stages go: the first of $TMPDIR, $TEMP, $TMP and /tmp that jig may write in and
    no other user can rename a stage in (`_safe_parent`), else a folder in jig's own private
    cache folder. A world-writable $TMPDIR without the sticky bit is passed over: another
    user could swap the stage for theirs between jig's writes and the run."""
    for candidate in (*(os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP")), "/tmp"):
        if candidate and os.path.isabs(candidate) and _safe_parent(Path(candidate)):
            return Path(candidate)
    from jigcli.cachedir import private_root

    fallback = private_root() / "stages"
    fallback.mkdir(mode=0o700, exist_ok=True)
    return fallback


def _safe_parent(folder: Path) -> bool:
    """Whether `folder` is a folder jig may write in whose entries no other user can rename."""
    try:
        info = os.stat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(info.st_mode)
        and not others_may_swap_in(info)
        and os.access(folder, os.W_OK | os.X_OK)
    )


def sweep_stages(folder: Path) -> None:
    """Remove the stage folders in `folder` of jigs that are gone (`owner.gone`), after
    killing what of theirs still runs in one (`kill_left_in`)."""
    kill_left_in(folder)
    with contextlib.suppress(OSError):
        for stage in folder.glob(f"{PREFIX}*"):
            if gone(stage.name) and stage.is_dir() and not stage.is_symlink():
                shutil.rmtree(stage, ignore_errors=True)


def kill_left_in(folder: Path) -> list[int]:
    """SIGKILL this user's processes whose working folder is the stage, in `folder`, of a
    jig that is gone; their pids. A jig SIGKILLed while bubblewrap's launcher is between
    its clone and the write that lets the sandbox's init go on leaves that init blocked for
    ever, in the stage it was started in, with no parent-death signal yet (bubblewrap.c at
    v0.8.0: the child reads child_wait_fd): where no cgroup of the run holds it for the
    next jig to empty (`cgroups._remove_stale`), only this finds it."""
    killed: list[int] = []
    real = os.path.realpath(folder)  # as /proc names a working folder
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if entry.name.isdigit() and _left_in(entry.path, real):
                with contextlib.suppress(OSError):
                    os.kill(int(entry.name), signal.SIGKILL)
                    killed.append(int(entry.name))
    return killed


def _left_in(process: str, folder: str) -> bool:
    try:
        cwd = os.readlink(f"{process}/cwd").removesuffix(" (deleted)")
    except OSError:  # gone, or not this user's to look at
        return False
    parent, _, name = cwd.rpartition("/")
    if not name.startswith(PREFIX) or parent != folder:
        return False
    try:
        theirs = os.stat(process).st_uid
    except OSError:
        return False
    return theirs == os.geteuid() and gone(name)


@atexit.register
def _remove_live() -> None:
    for stage in list(_live):
        shutil.rmtree(stage, ignore_errors=True)


@contextlib.contextmanager
def _adopted_init(route: Route) -> Iterator[int | None]:
    """For a route whose launcher orphans the sandbox's init: a pipe's write end for the
    launcher to name that init on, and once the run is over the init reaped by jig, made
    its reaper for this (`process.become_subreaper`). None where there is nothing to do."""
    # Every route's launcher can die before what it started (killed with its group at the
    # wall clock): jig adopts what it leaves, and `run_bounded` reaps that by group.
    if not become_subreaper() or not route.orphans_init:
        yield None
        return
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    try:
        yield write_end
    finally:
        os.close(write_end)
        try:
            os.set_blocking(read_end, False)
            said = _read_all(read_end)
        finally:
            os.close(read_end)
        pid = _child_pid(said)
        if pid is not None:
            reap(pid)


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(fd, 4096):
            chunks.append(chunk)
    return b"".join(chunks)


def _child_pid(said: bytes) -> int | None:
    """The `child-pid` of bubblewrap's --info-fd JSON, when it wrote one."""
    try:
        pid = json.loads(said.decode("utf-8")).get("child-pid")
    except (ValueError, AttributeError):
        return None
    return pid if isinstance(pid, int) and pid > 1 else None


@contextlib.contextmanager
def _filter_fd(route: Route, job: Job) -> Iterator[int | None]:
    """The seccomp program on a file descriptor, for a route that loads one; else None."""
    program = seccomp.program(ip=job.ip) if route.filters_calls else None
    if program is None:
        yield None
        return
    fd = seccomp.descriptor(program)
    try:
        yield fd
    finally:
        os.close(fd)


def execute(
    route: Route, job: Job, cap: str | None = None, *, passthrough: bool = False
) -> Execution:
    """Run `job` through `route`, its processes capped by the mechanism `cap` (None:
    uncapped). With `passthrough`, the program reads jig's own stdin and its stdout and stderr
    go, as they come, to jig's own (the run's result then holds neither). Raises
    `SetupFailed` when the sandbox itself cannot be set up (the view shows a home folder,
    a program is missing, a cgroup cannot be made)."""
    limits = job.limits
    refusal = check_view(job.view)
    if refusal is not None:
        raise SetupFailed(refusal)
    try:
        with (
            staged(job) as stage,
            _filter_fd(route, job) as filter_fd,
            cgroups.enforced(cap, limits.processes, limits.memory_mb) as cgroup,
            _adopted_init(route) as info_fd,
        ):
            route.prepare(stage)
            inner = list(job.argv)
            if cap == cgroups.RLIMIT:
                inner = [*cgroups.rlimit_prefix(limits.processes), *inner]
            argv = route.command(inner, job, stage, filter_fd)
            if info_fd is not None:
                argv = route.report_child(argv, info_fd)
            result = run_bounded(
                argv,
                cwd=job.view.workdir or stage,
                env=environment(route.scratch(stage), job.env),
                timeout=limits.wall_sec,
                limits=RunLimits(
                    cpu_sec=limits.cpu_sec,
                    address_space_mb=limits.address_space_mb,
                    file_size_mb=limits.scratch_mb,
                    no_core=True,
                    cgroups=() if cgroup is None else cgroup.folders,
                    fresh_keyring=route.fresh_keyring,
                    parent_death=True,
                    cpu_kill=limits.cpu_kill,
                    open_files=limits.open_files,
                ),
                output_cap=limits.output_bytes,
                pass_fds=tuple(fd for fd in (filter_fd, info_fd) if fd is not None),
                stdin_fd=0 if passthrough else None,
                forward=(1, 2) if passthrough else None,
            )
            refused = None if cgroup is None else cgroup.refused()
            memory = None if cgroup is None or cgroup.memory is None else limits.memory_mb
            out_of_memory = cgroup is not None and cgroup.out_of_memory()
    except ProgramMissing as missing:
        raise SetupFailed(f"{missing.program} cannot be run") from missing
    except (OSError, subprocess.SubprocessError) as exc:
        said = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise SetupFailed(f"the sandbox could not be set up: {said}") from exc
    exit_status, signum = route.status(result.returncode)
    return Execution(
        route.name,
        result,
        exit_status,
        signum,
        cpu_sec=result.cpu_sec if route.counts_cpu else None,
        processes_cap=cap,
        refused_forks=refused,
        memory_mb=memory,
        out_of_memory=out_of_memory,
        seccomp=filter_fd is not None,
    )
