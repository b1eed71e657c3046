"""Route probes remembered across jig processes, per machine state.

A probe runs a whole sandbox (some 100 ms): paid by every `jig verify`, it was the largest
part of one verification after the checker itself. A probe that found a route working is
kept in the cache folder (`jigcli.cachedir`), under a key made of everything its result
rests on, so that any change re-probes:

- the route, the job's argv and view (the interpreter and its folders), the probe's own
  script and limits;
- each program the routes run (bwrap, unshare, setpriv, prlimit, mount): path, size, mtime;
- the kernel (release and build), the boot, the user (uid, gid), the sysctls that switch
  user namespaces on or off, and where this process makes cgroups (the cgroup mode).

A failed probe is never kept (the next run probes again). A run that fails in a way a stale
probe would explain (the sandbox could not be set up, its launcher complained) forgets the
entry, probes again and retries once (`jigcli.certificates.checker.check_witness`).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from jigcli import cachedir
from jigcli.sandbox import cgroups

FORMAT = "jig-probe-v1"
_PROGRAMS = ("bwrap", "unshare", "setpriv", "prlimit", "mount", "sh")
_SYSCTLS = (
    "user/max_user_namespaces",
    "kernel/unprivileged_userns_clone",
    "kernel/apparmor_restrict_unprivileged_userns",
)
_ENTRY_CAP = 64 * 1024


def key(parts: tuple[Any, ...]) -> cachedir.Entry:
    """The cache entry of a probe identified by `parts` (route, job, probe script), on this
    machine as it is now."""
    state = {
        "format": FORMAT,
        "probe": [str(part) for part in parts],
        "programs": [_program(name) for name in _PROGRAMS],
        "kernel": [
            os.uname().release,
            os.uname().version,
            _read("/proc/sys/kernel/random/boot_id"),
        ],
        "user": [os.geteuid(), os.getegid()],
        "sysctls": [_read(f"/proc/sys/{name}") for name in _SYSCTLS],
        "cgroups": [str(cgroups.hierarchy(c)) for c in (cgroups.PIDS, cgroups.MEMORY)],
    }
    return cachedir.entry("probes", state, ".json")


def get(entry: cachedir.Entry) -> dict[str, Any] | None:
    """The stored probe at `entry`, or None (absent, unreadable, malformed: a miss)."""
    try:
        stored = json.loads(cachedir.read_entry(entry, _ENTRY_CAP) or b"")
    except ValueError:
        return None
    return stored if isinstance(stored, dict) else None


def put(entry: cachedir.Entry, found: dict[str, Any]) -> None:
    """Keep a probe that found its route working."""
    cachedir.keep(entry, json.dumps(found).encode())


def forget(entry: cachedir.Entry) -> None:
    cachedir.forget(entry)


def _program(name: str) -> list[Any]:
    found = shutil.which(name, path="/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        return [name, None]
    try:
        info = os.stat(found)
    except OSError:
        return [name, found]
    return [name, found, info.st_size, info.st_mtime_ns, info.st_ino]


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""
