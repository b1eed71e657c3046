"""Names for what a run keeps on the host while it runs (its cgroups, its stage folder) that
say whose they are, so that a later jig can sweep those of a jig that is gone (killed with
SIGKILL, or its machine's power cut) and never those of one still running.

`jig-sandbox-<pid>-<start>-<pidns>-<boot>-<random>`: the owner's pid and its start time (clock
ticks after boot, from /proc/<pid>/stat: a reused pid has another), the inode of its PID
namespace (a pid means nothing in another one: two containers' jigs are both process 1),
the first part of the kernel's boot id (nothing of a previous boot is alive), and a random
part, so that no two runs can ever pick the same name, whatever the above say.

An owner is gone when the name is of another boot, or of this PID namespace and no process
with its pid and start time exists. A name of another PID namespace is left alone: its
owner cannot be seen from here.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import NamedTuple

PREFIX = "jig-sandbox-"


class Owner(NamedTuple):
    pid: int
    start: int
    pidns: int
    boot: str


def run_name() -> str:
    """A fresh name for one run's cgroup or stage folder, owned by this process."""
    me = _me()
    return f"{PREFIX}{me.pid}-{me.start}-{me.pidns}-{me.boot}-{os.urandom(4).hex()}"


def owner_of(name: str) -> Owner | None:
    """The owner a `run_name()` names; None for any other name (left alone by sweeps)."""
    if not name.startswith(PREFIX):
        return None
    fields = name[len(PREFIX) :].split("-")
    if len(fields) < 5 or not all(field.isdigit() for field in fields[:3]):
        return None
    return Owner(int(fields[0]), int(fields[1]), int(fields[2]), fields[3])


def gone(name: str) -> bool:
    """Whether the jig that made `name` is known to be gone (see the module docstring)."""
    owner = owner_of(name)
    if owner is None:
        return False
    me = _me()
    if owner.boot != me.boot:
        return True
    if owner.pidns != me.pidns:
        return False
    return start_time(owner.pid) != owner.start


def mine(name: str) -> bool:
    """Whether `name` was made by this very process."""
    owner = owner_of(name)
    me = _me()
    return owner is not None and (owner.pid, owner.start, owner.pidns) == (
        me.pid,
        me.start,
        me.pidns,
    )


def start_time(pid: int) -> int | None:
    """When process `pid` started (clock ticks after boot), None when there is none."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) may hold spaces and parentheses: count after its last ')'.
    fields = stat.rpartition(")")[2].split()
    try:
        return int(fields[19])  # field 22, starttime
    except (IndexError, ValueError):
        return None


def _me() -> Owner:
    return _owner(os.getpid())  # the cache is per pid: a forked child is someone else


@functools.cache
def _owner(pid: int) -> Owner:
    try:
        pidns = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        pidns = 0
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip().split("-")[0]
    except OSError:
        boot = "noboot"
    return Owner(pid, start_time(pid) or 0, pidns, boot or "noboot")
