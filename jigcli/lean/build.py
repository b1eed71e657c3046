"""The one build of a submission: Lean run on its source in a sandbox that confines its files.

Building a module runs its code: macros, elaborators, tactics, `initialize`, whatever an
import registers. The trusted targets (the judge, the statements, `Commons`; Mathlib from its
cache) are built first, unsandboxed, from this repo's own sources. Then the submission is
built by `lean` itself (`backend.compile_argv`, Lake's own command for one module), not by
`lake build`, which would need the root package's `.lake/build` writable, where the trusted
`.olean` files the judge imports live. The build runs through the best route that confines a
program's files to its view (`jigcli.sandbox`, `Route.confines_files`: bubblewrap), probed
with this Lean:

- it reads: the toolchain's folder and Lake's search path for this repo (the trusted build's
  library folders), read-only; copies of its source and the setup file in its scratch;
- it writes: one fresh folder jig made for it and nothing else of the host; its scratch and
  `/dev/shm` are tmpfs of bounded size, its root, `/proc` and `/dev` read-only. It never sees
  the host's `/tmp`, `$HOME`, `.jig/`, the judge or a verdict;
- no network, its own PIDs, IPC and hostname, no capabilities (and uid 65534 in its user
  namespace when jig runs as root), a new session keyring, the seccomp filter;
- limits for the whole build: `MEMORY_MB` through the memory cgroup where one can be made (no
  RLIMIT_AS: Lean maps every `.olean` it imports, gigabytes for Mathlib), `PROCESSES`
  processes and threads, no file larger than `LARGEST_FILE_MB`, the verification's wall
  budget; nothing it started survives it (its PID namespace, the cgroup).

With no such route the verdict is `sandbox_unavailable`, unless the run allows no isolation
(`--allow-no-netns`, local development): the verdict then records `isolation: none`. Only
what `lean` itself reports decides: a build passes when Lean exited 0, logged no warning and
no error (Lake's `--wfail`; "declaration uses `sorry`" is a warning), and wrote the `.olean`.

Then `export` runs a second step through the same route, with the same limits: `jig_export`
(`Verify/Export.lean`, made by the trusted build) imports the built module as Lean's importer
does (every part of its `.olean`, at the private level) and writes the module's constants as
text in lean4export's format (`jigcli/lean/export.py`) into a folder jig made after the build,
the build's own folder now read-only. jig never copies, opens or hands on a part of the
`.olean`: whatever the submission's code planted or crafted there, only the exporter (inside
the sandbox) reads it, and only the export's text leaves the sandbox, to be checked by
`jigcli.lean.export` and parsed by the judge.
"""

from __future__ import annotations

import math
import os
import signal
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.lean import backend
from jigcli.lean.export import EXPORT_NAME, FORMAT_VERSION, Export, ExportProblem, read_export
from jigcli.lean.messages import LeanOutput, parse_json_messages
from jigcli.repo import Repo
from jigcli.sandbox import probe as probing
from jigcli.sandbox.cgroups import memory_cap
from jigcli.sandbox.execute import execute
from jigcli.sandbox.job import Execution, Job, Limits, SetupFailed, View
from jigcli.sandbox.routes import NONE, Route

MEMORY_MB = 8192  # the whole build: every process, its tmpfs, what the kernel makes for it
PROCESSES = 256  # processes and threads: Lean runs a worker thread per core
LARGEST_FILE_MB = 1024  # the largest file it may write (its .olean), and each tmpfs's size
OUTPUT_BYTES = 16 * 1024 * 1024  # of stdout and of stderr, each
# The folders below the build's own one: what the build writes (its `.olean` and whatever
# else), and what the export step writes (made after the build, so the build never saw it).
WRITES = "out"
EXPORTS = "export"


@dataclass
class Build:
    """How the submission's build ended, and what it left for the judge."""

    reason: str  # ok, build_failed, timeout, sandbox_unavailable
    detail: str
    route: str | None  # the route it ran through; None when none could
    output: str = ""  # Lean's messages as `path:line:col:` lines, other output, stderr
    sandbox: Route | None = None  # the route itself, which the export step runs through too


@dataclass
class Exported:
    """How the export step ended: `export` is the checked export when `reason` is ok."""

    reason: str  # ok, verifier_error, timeout
    detail: str
    output: str = ""
    export: Export | None = None


def limits(wall_sec: float) -> Limits:
    """The build's limits; the wall clock is the verification's, and CPU time is left to it
    (RLIMIT_CPU counts every thread of one process, and Lean uses a thread per core)."""
    return Limits(
        wall_sec=wall_sec,
        cpu_sec=math.ceil(wall_sec) * max(os.cpu_count() or 1, 1) + 1,
        address_space_mb=None,
        output_bytes=OUTPUT_BYTES,
        scratch_mb=LARGEST_FILE_MB,
        processes=PROCESSES,
        memory_mb=MEMORY_MB,
    )


def view(paths: backend.LeanPaths, repo: Repo) -> View:
    """The toolchain and the trusted library folders, read-only; `.jig/` and the judge's own
    folder shown empty should the search path ever hold them."""
    shown = (paths.sysroot, *paths.search_path)
    private = (repo.work_dir, backend.judge_exe(repo).parent)
    hidden = tuple(
        folder
        for folder in private
        if folder.is_dir() and any(folder.is_relative_to(path) for path in shown)
    )
    return View(read_only=shown, hidden=hidden)


def probe_job(paths: backend.LeanPaths, repo: Repo) -> Job:
    """`lean --version` with the build's view: what a route must run to be used."""
    return Job(
        argv=(str(paths.lean), "--version"),
        view=view(paths, repo),
        limits=limits(probing.PROBE_LIMITS.wall_sec),
    )


def build_job(
    paths: backend.LeanPaths, repo: Repo, module: str, source: bytes, out: Path, wall: float
) -> Job:
    """The build of `module` from `source` into the folder `out`."""
    name = f"{module.rsplit('.', 1)[-1]}.lean"
    inputs = {name: source, backend.SETUP_NAME: backend.module_setup(module)}
    # Lake makes the `.olean`'s folders before it runs Lean; so does jig.
    olean_path(out, module).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    return Job(
        argv=backend.compile_argv(paths, name, olean_path(out, module)),
        view=view(paths, repo)._replace(writable=(out,), inputs=inputs),
        limits=limits(wall),
        env={"LEAN_PATH": paths.lean_path()},
    )


def olean_path(folder: Path, module: str) -> Path:
    """Where the module's `.olean` goes below a search-path folder, as Lean looks it up
    (`Lean.findOLean`, src/Lean/Util/Path.lean: the module's name parts as folders)."""
    return folder.joinpath(*module.split(".")).with_name(f"{module.split('.')[-1]}.olean")


def export_job(paths: backend.LeanPaths, repo: Repo, module: str, folder: Path, wall: float) -> Job:
    """`jig_export` on the module the build left in `folder/out`, read-only now, writing its
    export into `folder/export`. The build's folder comes first on the search path: should
    the trusted library folders hold a stale build of a module of the same name, the one
    just built is the one exported."""
    exporter = backend.exporter_exe(repo)
    out, into = folder / WRITES, folder / EXPORTS
    shown = view(paths, repo)
    return Job(
        argv=(str(exporter), "--module", module, "--out", str(into / EXPORT_NAME)),
        view=shown._replace(read_only=(*shown.read_only, out, exporter), writable=(into,)),
        limits=limits(wall),
        env={
            "LEAN_PATH": os.pathsep.join([str(out), paths.lean_path()]),
            "LEAN_SYSROOT": str(paths.sysroot),
        },
    )


def choose(
    paths: backend.LeanPaths, repo: Repo, *, allow_unsandboxed: bool
) -> tuple[Route | None, str]:
    """The route the build runs through here, with "", or (None, why no route can)."""
    trial = probe_job(paths, repo)
    route = probing.choose(trial, allow_none=allow_unsandboxed, confining=True)
    if route is None:
        return None, probing.refusal(trial, confining=True)
    return route, ""


def build(
    paths: backend.LeanPaths,
    repo: Repo,
    module: str,
    source: bytes,
    shown: str,
    folder: Path,
    *,
    wall_sec: float,
    allow_unsandboxed: bool = False,
) -> Build:
    """Build `module` from `source` (shown to the user as `shown`) in `folder`, a fresh
    private folder: the build writes `folder/out`, the judge reads `folder/olean`."""
    route, refused = choose(paths, repo, allow_unsandboxed=allow_unsandboxed)
    if route is None:
        return Build("sandbox_unavailable", f"no sandbox here confines a build ({refused})", None)
    out = folder / WRITES
    out.mkdir(mode=0o700)
    job = build_job(paths, repo, module, source, out, wall_sec)
    cap = probing.process_cap(route, probe_job(paths, repo))
    try:
        done = execute(route, job, cap.mechanism)
    except SetupFailed as failed:
        detail = f"the {route.name} sandbox could not run the build: {failed}"
        return Build("sandbox_unavailable", detail, None)
    messages = parse_json_messages(done.result.stdout)
    output = _shown_output(messages, done, shown)
    built = Build("build_failed", "", route.name, output, route)
    problem = _ended_badly(done, messages, shown)
    if problem is not None:
        built.reason, built.detail = problem
        return built
    olean = olean_path(out, module)
    if not _present(olean):
        built.detail = f"lean exited 0 but wrote no {olean.name}"
        return built
    built.reason, built.detail = "ok", _how(route, done, shown)
    return built


def export(
    paths: backend.LeanPaths,
    repo: Repo,
    module: str,
    folder: Path,
    route: Route,
    *,
    wall_sec: float,
) -> Exported:
    """The second step: the export of the module the build left in `folder`, made through
    `route` and checked (`jigcli.lean.export`). Any way it ends but a usable export is red:
    a `timeout`, else a `verifier_error` saying why."""
    (folder / EXPORTS).mkdir(mode=0o700)  # fails if anything made it first
    job = export_job(paths, repo, module, folder, wall_sec)
    cap = probing.process_cap(route, probe_job(paths, repo))
    try:
        done = execute(route, job, cap.mechanism)
    except SetupFailed as failed:
        detail = f"the {route.name} sandbox could not run the export: {failed}"
        return Exported("verifier_error", detail)
    said = "\n".join(part for part in (done.result.stdout, done.result.stderr) if part.strip())
    problem = _export_ended_badly(done)
    if problem is not None:
        return Exported(*problem, said)
    try:
        checked = read_export(folder / EXPORTS, module)
    except ExportProblem as unusable:
        return Exported("verifier_error", str(unusable), said)
    count = len(checked.declarations)
    detail = (
        f"{count} constant{'' if count == 1 else 's'} of {module} exported in the {route.name} "
        f"sandbox ({len(checked.data)} bytes of lean4export format {FORMAT_VERSION})"
    )
    return Exported("ok", detail, said, checked)


def _export_ended_badly(done: Execution) -> tuple[str, str] | None:
    return (
        _out_of_time(done, "export")
        or _killed(done, "export", "jig_export", "verifier_error")
        or _exited(done, "jig_export", "verifier_error")
    )


def _ended_badly(done: Execution, messages: LeanOutput, shown: str) -> tuple[str, str] | None:
    stopped = _out_of_time(done, "build")
    if stopped is None and done.result.truncated:
        stopped = (
            "build_failed",
            f"the build printed more than {OUTPUT_BYTES} bytes and was stopped",
        )
    stopped = stopped or _killed(done, "build", "lean", "build_failed")
    if stopped is not None:
        return stopped
    logged = [m for m in messages.messages if m.severity in ("error", "warning")]
    if logged:  # errors first: the first one explains the failure best
        first = sorted(logged, key=lambda m: m.severity != "error")[0]
        return "build_failed", f"{first.where(shown)} {first.severity}: {first.headline()}"
    return _exited(done, "lean", "build_failed")


def _out_of_time(done: Execution, step: str) -> tuple[str, str] | None:
    """A sandboxed step stopped at its wall or CPU budget (only a long run reaches the CPU
    limit): `timeout`, whatever it printed."""
    if done.result.timed_out:
        return "timeout", f"step={step}: the {step} ran out of the wall budget"
    if done.signal == signal.SIGXCPU:
        return "timeout", f"step={step}: the {step} used up its CPU time"
    return None


def _killed(done: Execution, step: str, program: str, reason: str) -> tuple[str, str] | None:
    """A sandboxed step killed at its memory limit or by a signal."""
    if done.out_of_memory:
        return reason, f"the {step} was killed at its memory limit of {done.memory_mb} MB"
    if done.signal is not None:
        return reason, f"{program} was killed by {done.signal_name}"
    return None


def _exited(done: Execution, program: str, reason: str) -> tuple[str, str] | None:
    """A non-zero exit, with the last line the program printed."""
    if done.exit_status == 0:
        return None
    said = (done.result.stderr or done.result.stdout).strip().splitlines()
    tail = f": {said[-1][:200]}" if said else ""
    return reason, f"{program} exited {done.exit_status}{tail}"


def _how(route: Route, done: Execution, shown: str) -> str:
    where = f"in the {route.name} sandbox"
    if route is NONE:
        where = "with no sandbox (--allow-no-netns: local development only)"
    memory = f"memory capped at {done.memory_mb} MB" if done.memory_mb else "memory not capped"
    return f"lean {shown} {where}; {memory}"


def _shown_output(messages: LeanOutput, done: Execution, shown: str) -> str:
    """Lean's messages as an editor reads them, then whatever else it printed."""
    lines = [f"{m.where(shown)} {m.severity}: {m.data}" for m in messages.messages]
    lines += messages.other_lines
    if done.result.stderr.strip():
        lines.append(done.result.stderr.rstrip())
    return "\n".join(lines)


def _present(path: Path) -> bool:
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def describe_for(repo: Repo | None) -> dict[str, Any]:
    """`describe`, probed with `repo`'s Lean where it has the pinned toolchain and `lake env`
    says where Lean lives; else with the system shell."""
    if repo is None:
        return describe(None, None)
    try:
        toolchain = backend.detect(repo)
        paths = backend.lean_paths(toolchain, repo, timeout=backend.VERSION_PROBE_SEC)
    except (backend.ToolchainProblem, backend.LakeEnvProblem):
        return describe(None, None)
    return describe(paths, repo)


def describe(paths: backend.LeanPaths | None, repo: Repo | None) -> dict[str, Any]:
    """Whether a Lean build can be sandboxed here, for `jig doctor`: probed with this repo's
    Lean when there is one, else with the system shell (the same view, less the toolchain)."""
    trial = (
        probe_job(paths, repo)
        if paths is not None and repo is not None
        else Job(("/bin/sh", "-c", ":"), View(), limits(probing.PROBE_LIMITS.wall_sec))
    )
    route = probing.choose(trial, confining=True)
    memory = memory_cap()
    return {
        "probed_with": "lean" if paths is not None else "/bin/sh (no Lean here)",
        "route": route.name if route is not None else None,
        "why": None if route is not None else probing.refusal(trial, confining=True),
        "memory": {"capped": memory.capped, "mb": MEMORY_MB, "why": memory.why},
        "processes": PROCESSES,
    }
