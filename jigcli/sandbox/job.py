"""What to run in a sandbox, what of the host it sees, what it may use, and how it ended.

Nothing here knows what the program is (a certificate's checker, a build): the caller says
which host paths the program needs to read or write, which small input files it gets in its
scratch folder, and its limits.
"""

from __future__ import annotations

import signal
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

from jigcli.process import RunResult


class Limits(NamedTuple):
    """What one run may use. `output_bytes` caps stdout and stderr each."""

    wall_sec: float
    cpu_sec: int
    # RLIMIT_AS of each process; None for a program that maps more than it uses (Lean maps
    # every imported .olean: Mathlib is gigabytes of address space), whose memory only a
    # memory cgroup (`memory_mb`) can cap.
    address_space_mb: int | None
    output_bytes: int
    # The private scratch folder's size (a tmpfs where the route can make one) and the
    # largest file the program may write anywhere (RLIMIT_FSIZE).
    scratch_mb: int = 16
    # The most processes and threads the run may hold at once, the sandbox's own one or two
    # included, where a mechanism enforces it (`jigcli.sandbox.cgroups`).
    processes: int = 32
    # The memory the whole run may hold at once, its processes' pages, its tmpfs files and
    # the kernel objects they make included, where a memory cgroup enforces it.
    memory_mb: int | None = None
    # SIGKILL at the CPU limit, with no SIGXCPU first (`jigcli.process.Limits.cpu_kill`).
    cpu_kill: bool = False
    # The descriptors each process may hold (RLIMIT_NOFILE); None: as inherited. Where no
    # memory cgroup counts socket buffers, this times the process cap times the host's default
    # buffer (the filter keeps every socket at it: `seccomp.BUFFER_SIZES`) bounds them.
    open_files: int | None = None


class View(NamedTuple):
    """What of the host's files the program sees besides the system folders (read-only).

    Host paths appear at the same path inside, so the program names them as the host does
    on every route; `inputs` are small files placed read-only in the private scratch folder,
    where the program starts unless `workdir` says otherwise (relative names in its argv
    resolve there).
    """

    read_only: tuple[Path, ...] = ()
    hidden: tuple[Path, ...] = ()  # folders inside those shown as empty
    writable: tuple[Path, ...] = ()
    inputs: Mapping[str, bytes] = MappingProxyType({})
    workdir: Path | None = None
    # Host folders shown read-only at another path (source, where it appears), placed after
    # the writable ones: a read-only folder inside a writable one (bubblewrap only).
    mounted: tuple[tuple[Path, Path], ...] = ()


class Job(NamedTuple):
    """One program to run: its argv (as it sees paths), its view, its limits, and what its
    environment holds besides the few variables the sandbox sets (`environment`)."""

    argv: tuple[str, ...]
    view: View
    limits: Limits
    env: Mapping[str, str] = MappingProxyType({})
    # Whether it may open IP sockets (loopback only: every route has its own network); a
    # job that needs none gets local sockets alone (`seccomp.LOCAL_FAMILIES`).
    ip: bool = True
    # A Python in the job's view, for a route whose launcher cannot load the seccomp filter
    # itself: its init runs it to load the filter, then becomes the init (`UnshareRoot`).
    python: str | None = None


class SetupFailed(Exception):
    """The sandbox itself could not be set up for a run (not anything the program did)."""


class Execution(NamedTuple):
    """One run as the route saw it."""

    route: str
    result: RunResult
    exit_status: int | None  # None when a signal ended it
    signal: int | None
    cpu_sec: float | None  # the program's CPU time, where the route can tell
    processes_cap: str | None = None  # the mechanism that capped its processes, if any
    refused_forks: int | None = None  # new processes the cap refused, where the kernel says
    memory_mb: int | None = None  # the memory limit a cgroup enforced; None: none did
    out_of_memory: bool = False  # the kernel killed a process of it at that limit
    seccomp: bool = False  # whether a seccomp filter held the program's system calls

    @property
    def signal_name(self) -> str:
        if self.signal is None:
            return ""
        try:
            return signal.Signals(self.signal).name
        except ValueError:
            return f"signal {self.signal}"
