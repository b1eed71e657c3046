"""Which route to use: each is probed once per process (and kind of job) before use.

A probe runs, through the route, a shell that forks under a small process cap until the
kernel refuses (`_FORK_TEST`), then execs the caller's own trivial job (its interpreter, its
view): the route is usable when that job exits 0, and a cap mechanism counts only when the
forks were refused at or below the cap. Each route tries its mechanisms in order and keeps
the first that holds:

| route          | process cap                                                           |
|----------------|-----------------------------------------------------------------------|
| bubblewrap     | cgroup (as root, which RLIMIT_NPROC never binds: bubblewrap maps the  |
|                | program to the invoker's uid), else RLIMIT_NPROC in its user namespace |
| unshare-root   | cgroup, else RLIMIT_NPROC in its user namespace                        |
| sandbox-exec   | none: macOS counts RLIMIT_NPROC per user across the machine            |
| none           | none                                                                  |
"""

from __future__ import annotations

import os
import threading
from typing import Any, NamedTuple

from jigcli import cachedir
from jigcli.sandbox import cgroups, probecache, seccomp
from jigcli.sandbox.cgroups import ProcessCap
from jigcli.sandbox.execute import execute
from jigcli.sandbox.job import Job, Limits, SetupFailed
from jigcli.sandbox.routes import NO_USERNS_ROUTE, NONE, ROUTES, Route, route_named

# The probe's process cap, and how many children it tries to fork under it.
PROBE_CAP = 8
PROBE_FORKS = PROBE_CAP + 4
PROBE_LIMITS = Limits(
    wall_sec=20, cpu_sec=10, address_space_mb=1024, output_bytes=4096, processes=PROBE_CAP
)
_FORKED = "jig-probe-forked"
# $1 children that sleep, one line each, in a subshell a refused fork ends; then the job.
_FORK_TEST = (
    'n=0; (while [ "$n" -lt "$1" ]; do sleep 30 & n=$((n + 1)); '
    f'echo {_FORKED}; done) 2>/dev/null; shift; exec "$@"'
)


class Probe(NamedTuple):
    """What a route's probe found: None or why the route cannot run here; its process cap."""

    why: str | None
    cap: ProcessCap


def _key(route: Route, job: Job) -> tuple[Any, ...]:
    return (route.name, job.argv, job.view.read_only, job.view.writable)


_probed: dict[tuple[Any, ...], Probe] = {}
_probe_lock = threading.Lock()


# The probes taken from the machine's cache, by key: their entries.
_remembered: dict[tuple[Any, ...], cachedir.Entry] = {}


def _probed_once(route: Route, job: Job) -> Probe:
    key = _key(route, job)
    with _probe_lock:
        if key not in _probed:
            missing = route.unavailable()
            _probed[key] = (
                Probe(missing, ProcessCap(None, "the route cannot run here"))
                if missing
                else _remembered_or_probed(route, job, key)
            )
        return _probed[key]


def _remembered_or_probed(route: Route, job: Job, key: tuple[Any, ...]) -> Probe:
    """The probe this machine's cache holds for `route` and `job` in its present state, else
    a fresh one (kept when the route works)."""
    entry = probecache.key((*key, job.view.hidden, _FORK_TEST, PROBE_LIMITS, PROBE_FORKS))
    stored = probecache.get(entry)
    if stored is not None and _could_have_found(route, stored):
        _remembered[key] = entry
        return Probe(None, ProcessCap(stored["mechanism"], stored["how"]))
    found = _probe_route(route, job)
    if found.why is None and found.cap.mechanism is not None:
        probecache.put(entry, {"mechanism": found.cap.mechanism, "how": found.cap.why})
    return found


def _could_have_found(route: Route, stored: dict[str, Any]) -> bool:
    """Whether a kept probe is one this jig could have written for `route` here: a cap
    mechanism the route tries that this machine offers now, in this jig's own words. Only a
    probe that found a cap is kept; one that found none is probed again, so an entry can
    never switch a cap off."""
    mechanism = stored.get("mechanism")
    return (
        set(stored) == {"mechanism", "how"}
        and mechanism in route.cap_mechanisms
        and stored["how"] == cgroups.HOW.get(mechanism)
        and cgroups.unavailable(mechanism) is None
    )


def remembered(route: Route, job: Job) -> bool:
    """Whether this process took `route`'s probe with `job` from the machine's cache."""
    return _key(route, job) in _remembered


def forget(route: Route, job: Job) -> None:
    """Drop the probe of `route` with `job`, here and in the machine's cache: the next
    `choose` probes again (after a failure a stale probe would explain)."""
    key = _key(route, job)
    with _probe_lock:
        _probed.pop(key, None)
        entry = _remembered.pop(key, None)
    if entry is not None:
        probecache.forget(entry)


def probe(route: Route, job: Job) -> str | None:
    """None when `route` runs `job` (a trivial run that must exit 0) here, else why not.
    Once per process for each route and kind of job."""
    return _probed_once(route, job).why


def process_cap(route: Route, job: Job) -> ProcessCap:
    """What caps the processes of a run through `route` here, as its probe verified."""
    if not route.cap_mechanisms:
        return ProcessCap(None, route.uncapped)
    return _probed_once(route, job).cap


def _probe_route(route: Route, job: Job) -> Probe:
    """Probe `route` with each of its cap mechanisms in turn; the first that holds is kept.

    A mechanism holds when the probe's forks are refused at or below its cap. When none does,
    the route is probed once more with none, to tell an uncapped route from a broken one.
    """
    tried: list[str] = []
    for mechanism in route.cap_mechanisms:
        missing = cgroups.unavailable(mechanism)
        if missing is not None:
            tried.append(f"{mechanism}: {missing}")
            continue
        why, started = _probe_run(route, job, mechanism)
        if why is None and started < PROBE_CAP:
            return Probe(None, ProcessCap(mechanism, cgroups.HOW[mechanism]))
        tried.append(f"{mechanism}: " + (why or _not_refused(started)))
    why, _ = _probe_run(route, job, None)
    if why is not None:
        return Probe(why, ProcessCap(None, "the route cannot run here"))
    reasons = [part for part in (*tried, route.uncapped) if part]
    return Probe(why, ProcessCap(None, "; ".join(reasons)))


def _not_refused(started: int) -> str:
    said = f"the kernel let it start {started} processes under a cap of {PROBE_CAP}"
    if os.geteuid() == 0:
        said += " (RLIMIT_NPROC never binds the host's root)"
    return said


def _probe_run(route: Route, job: Job, cap: str | None) -> tuple[str | None, int]:
    """(None, processes started) when the probe ran through `route`, else (why, 0)."""
    forks = PROBE_FORKS if cap is not None else 0
    # The route's `armed`, then a first line to jig: a jig killed during the set-up leaves
    # a script that ends there (SIGPIPE), before a child that would sleep 30 s past it.
    script = f"{route.armed}echo jig-probe-start && {_FORK_TEST}"
    argv = ("/bin/sh", "-c", script, "jig-probe", str(forks), *job.argv)
    # A job that runs with no address-space limit (it maps more than it uses) is probed so.
    limits = PROBE_LIMITS
    if job.limits.address_space_mb is None:
        limits = limits._replace(address_space_mb=None)
    trial = job._replace(argv=argv, limits=limits)
    try:
        done = execute(route, trial, cap)
    except SetupFailed as failed:
        return str(failed), 0
    if done.exit_status == 0:
        return None, done.result.stdout.split().count(_FORKED)
    lines = (done.result.stderr or done.result.stdout).strip().splitlines()
    ended = f"exit status {done.exit_status}" if done.signal is None else done.signal_name
    return f"the probe failed ({ended})" + (f": {lines[-1][:200]}" if lines else ""), 0


def choose(
    job: Job, *, allow_none: bool = False, only: str | None = None, confining: bool = False
) -> Route | None:
    """The first route that passes its probe with `job` (or just `only`), among those that
    confine the program's files to its view when `confining`; `NONE` when allowed; else
    None."""
    candidates = ROUTES if only is None else (route_named(only),)
    for route in candidates:
        if confining and not route.confines_files and route is not NONE:
            continue
        if route is NONE or probe(route, job) is None:
            return route
    return NONE if allow_none else None


def refusal(job: Job, *, confining: bool = False) -> str:
    """Why no route can run `job` here, one clause per route, for a `sandbox_unavailable`."""
    said = "; ".join(f"{route.name}: {_why_not(route, job, confining)}" for route in ROUTES)
    return said + (f"; {NO_USERNS_ROUTE}" if os.geteuid() != 0 else "")


def _why_not(route: Route, job: Job, confining: bool) -> str | None:
    if confining and not route.confines_files:
        return f"does not confine a program's files (it sees {route.files})"
    return probe(route, job)


def describe(job: Job) -> dict[str, Any]:
    """Each route on this machine, for `jig doctor`: available, probed with `job`, ok, and
    why not; whether it caps a run's processes (by what, or why not) and its memory as a
    whole, whether a seccomp filter holds its calls, and whether it holds when jig runs as
    root (and how)."""
    memory = cgroups.memory_cap()
    no_filter = seccomp.unavailable()
    rows: list[dict[str, Any]] = []
    for route in ROUTES:
        missing = route.unavailable()
        why = missing or probe(route, job)
        cap = process_cap(route, job)
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
                "memory": {"capped": memory.capped, "why": memory.why},
                "seccomp": {
                    "applied": route.filters_calls and no_filter is None,
                    "why": no_filter or route.filter_how,
                },
                "as_root": {"holds": route.holds_as_root, "why": route.as_root},
                "files": {"confined": route.confines_files, "why": route.files},
            }
        )
    chosen = next((row["name"] for row in rows if row["ok"]), None)
    return {"chosen": chosen, "routes": rows}
