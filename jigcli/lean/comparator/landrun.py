"""jig's `$COMPARATOR_LANDRUN`: each build, export and second kernel comparator starts, run in
jig's bubblewrap sandbox, and nothing else.

comparator (`Main.lean` at `v4.33.0`, `buildLandrunArgs`) starts every untrusted step as

    $COMPARATOR_LANDRUN --best-effort --ro / --rw /dev -ldd -add-exec
        [--env NAME]… [--ro PATH]… [--rwx PATH]… [--rox PATH]… -- CMD ARGS…

with its working folder the project's, and three shapes of step:

- `safeLakeBuild`: `lake build <module>`, `--env PATH HOME LEAN_ABORT_ON_PANIC`, `--ro
  <project>`, `--rwx <project>/.lake`, `--rox <lean prefix> <git>`; its stdout and stderr are
  comparator's own;
- `safeExport`: `<lean4export> <module> -- <names…>`, `--env PATH HOME LEAN_PATH
  LEAN_ABORT_ON_PANIC`, `--ro <project> <project>/.lake`, `--rox <lean prefix>`; comparator
  reads the export from its stdout;
- `runNanoda`: `<nanoda> <config file>`, no `--env`, `--ro <config file>`; the export on its
  stdin.

Any other call is refused (exit 126, one line on stderr): a command, module or path the run's
control file (written by jig, never shown to a sandboxed step) does not name. `--ro /` is
narrowed to the system folders (`/usr`, `/bin`, `/lib…`), so of `$HOME` and the rest of the
host a step sees only the paths named above; the repo's `.lake/packages` (Mathlib and the
rest, from the trusted build) appears read-only at `<project>/.lake/packages`, inside the
writable `.lake`, so a build writes only the run's own `.lake` and no package. `-ldd` and
`-add-exec` (landrun's way of reaching a program's libraries) need nothing: the system folders
and the toolchain are all there. Each step runs through `jigcli.sandbox` like any other job:
no network, its own PID, IPC and UTS namespaces, the seccomp filter, no capabilities, memory
and process caps in a cgroup of its own, the run's wall clock. Every step, how it ended and
how long it took, is appended to the control folder's log, which jig reads afterwards: how the
run went, as seen from outside every sandbox.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from jigcli.sandbox import probe as probing
from jigcli.sandbox.execute import execute
from jigcli.sandbox.job import Job, Limits, SetupFailed, View

PREFIX = ("--best-effort", "--ro", "/", "--rw", "/dev", "-ldd", "-add-exec")
REFUSED = 126  # the exit status of a call refused before anything ran
OUT_OF_TIME = 124
# What a route is probed with before a step runs through it: the step's view, a trivial
# program (a probe runs its job: the step itself must run once, and only when asked).
PROBE_ARGV = ("/bin/sh", "-c", ":")
CONTROL_NAME = "landrun.json"
LOG_NAME = "landrun.log"
# What each step may pass from comparator's environment (`envPass` at the tag).
BUILD_ENV = frozenset({"PATH", "HOME", "LEAN_ABORT_ON_PANIC"})
EXPORT_ENV = frozenset({"PATH", "HOME", "LEAN_PATH", "LEAN_ABORT_ON_PANIC"})
# lean4export's own flags (`Main.lean` of leanprover/lean4export) jig's steps may give;
# comparator gives none.
EXPORT_FLAGS = frozenset({"--ignore-missing"})


class Refused(Exception):
    """A call this command does not run; `str()` says why."""


@dataclass(frozen=True)
class Call:
    """One call, parsed: what comparator asked to pass, show and run."""

    env: tuple[str, ...]
    readable: tuple[Path, ...]
    writable: tuple[Path, ...]
    executable: tuple[Path, ...]
    argv: tuple[str, ...]


@dataclass(frozen=True)
class Control:
    """The run's control file: what its calls may name, written by jig before comparator
    starts, in a folder no sandboxed step sees."""

    project: str
    toolchain: str  # Lean's prefix, as `lean --print-prefix` says it
    git: str
    lean4export: str
    nanoda: str | None
    packages: str | None  # the repo's `.lake/packages`
    builds: tuple[str, ...]  # the modules `lake build` may be asked for
    exports: tuple[str, ...]  # the modules lean4export may read
    deadline: float  # seconds since the epoch
    memory_mb: int
    processes: int

    @classmethod
    def read(cls, folder: Path) -> Control:
        data = json.loads((folder / CONTROL_NAME).read_text(encoding="utf-8"))
        data["builds"], data["exports"] = tuple(data["builds"]), tuple(data["exports"])
        return cls(**data)

    def write(self, folder: Path) -> None:
        text = json.dumps(asdict(self), indent=2, sort_keys=True)
        fd = os.open(folder / CONTROL_NAME, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)

    @property
    def dot_lake(self) -> str:
        return str(Path(self.project) / ".lake")


def parse(args: Sequence[str]) -> Call:
    """`args` read the way comparator writes them at the tag, and no other way."""
    if tuple(args[: len(PREFIX)]) != PREFIX:
        raise Refused(f"the call does not begin with comparator's {' '.join(PREFIX)}")
    rest = list(args[len(PREFIX) :])
    groups: dict[str, list[str]] = {"--env": [], "--ro": [], "--rwx": [], "--rox": []}
    order = list(groups)
    at = 0
    while rest and rest[0] != "--":
        flag = rest.pop(0)
        if flag not in groups or order.index(flag) < at or not rest:
            raise Refused(f"unexpected {flag!r}: comparator passes --env, --ro, --rwx, --rox")
        at = order.index(flag)
        groups[flag].append(rest.pop(0))
    if not rest or len(rest) < 2:
        raise Refused("no command after --")
    paths = {flag: tuple(Path(p) for p in groups[flag]) for flag in order[1:]}
    for path in (p for found in paths.values() for p in found):
        if not path.is_absolute() or ".." in path.parts:
            raise Refused(f"{str(path)!r} is not an absolute path without ..")
    return Call(
        tuple(groups["--env"]), paths["--ro"], paths["--rwx"], paths["--rox"], tuple(rest[1:])
    )


def kind(call: Call, control: Control) -> str:
    """`build`, `export` or `nanoda`: which of comparator's steps `call` is, or `Refused`."""
    project, dot_lake = Path(control.project), Path(control.dot_lake)
    program, *args = call.argv
    if program == "lake":
        _expect(
            call, BUILD_ENV, (project,), (dot_lake,), (Path(control.toolchain), Path(control.git))
        )
        if len(args) != 2 or args[0] != "build" or args[1] not in control.builds:
            raise Refused(f"lake {' '.join(args)!r} is not a build of this run's modules")
        return "build"
    if program == control.lean4export:
        _expect(call, EXPORT_ENV, (project, dot_lake), (), (Path(control.toolchain),))
        if not args or args[0] not in control.exports or "--" not in args:
            raise Refused("lean4export is asked for a module this run does not export")
        flags = args[1 : args.index("--")]
        if not set(flags) <= EXPORT_FLAGS or any(
            name.startswith("-") for name in args[args.index("--") + 1 :]
        ):
            raise Refused(f"lean4export is given flags {flags!r}")
        return "export"
    if control.nanoda is not None and program == control.nanoda:
        if len(args) != 1 or call.readable != (Path(args[0]),):
            raise Refused("nanoda is asked for anything but its configuration file")
        _expect(call, frozenset(), call.readable, (), ())
        if not Path(args[0]).is_file() or Path(args[0]).is_symlink():
            raise Refused("nanoda's configuration is not a regular file")
        return "nanoda"
    raise Refused(f"{program!r} is none of the programs this run may start")


def _expect(
    call: Call,
    env: frozenset[str],
    readable: tuple[Path, ...],
    writable: tuple[Path, ...],
    executable: tuple[Path, ...],
) -> None:
    if not set(call.env) <= env:
        raise Refused(f"the call passes {sorted(set(call.env) - env)} from the environment")
    asked = (call.readable, call.writable, call.executable)
    if asked != (readable, writable, executable):
        named = (readable, writable, executable)
        raise Refused(f"the call asks for paths {asked} where comparator names {named}")


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2 or args[0] != "--control":
        print("jig-landrun: run by comparator as --control FOLDER ARGS…", file=sys.stderr)
        return 2
    folder = Path(args[1])
    try:
        control = Control.read(folder)
        call = parse(args[2:])
        step = kind(call, control)
    except (Refused, OSError, ValueError, TypeError, KeyError) as refused:
        print(f"jig-landrun: refused: {refused}", file=sys.stderr)
        _log(folder, {"step": "refused", "argv": args[2:], "why": str(refused)})
        return REFUSED
    return _run(step, call, control, folder)


def _run(step: str, call: Call, control: Control, folder: Path) -> int:
    job = job_for(step, call, control)
    started = time.monotonic()
    entry: dict[str, object] = {"step": step, "argv": list(call.argv)}
    if job.limits.wall_sec <= 0:
        entry["ended"] = "timeout"
        print("jig-landrun: the verification's wall budget ran out", file=sys.stderr)
        _log(folder, entry)
        return OUT_OF_TIME
    trial = job._replace(argv=PROBE_ARGV, limits=probing.PROBE_LIMITS)
    route = probing.choose(trial, confining=True)
    if route is None:
        why = probing.refusal(trial, confining=True)
        print(f"jig-landrun: no sandbox here confines a Lean step: {why}", file=sys.stderr)
        _log(folder, {**entry, "ended": "sandbox_unavailable", "why": why})
        return REFUSED
    cap = probing.process_cap(route, trial)
    try:
        done = execute(route, job, cap.mechanism, passthrough=True)
    except SetupFailed as failed:
        print(f"jig-landrun: the sandbox could not be set up: {failed}", file=sys.stderr)
        _log(folder, {**entry, "ended": "sandbox_unavailable", "why": str(failed)})
        return REFUSED
    entry.update(
        route=route.name,
        seconds=round(time.monotonic() - started, 3),
        exit=done.exit_status,
        signal=done.signal,
        out_of_memory=done.out_of_memory,
        memory_mb=done.memory_mb,
        seccomp=done.seccomp,
        ended="timeout" if done.result.timed_out else "flood" if done.result.truncated else "exit",
    )
    _log(folder, entry)
    if done.result.timed_out:
        print("jig-landrun: the verification's wall budget ran out", file=sys.stderr)
        return OUT_OF_TIME
    if done.exit_status is None:
        return 128 + (done.signal or 9)
    return done.exit_status


def job_for(step: str, call: Call, control: Control) -> Job:
    """The sandbox job of a parsed, allowed call."""
    project, dot_lake = Path(control.project), Path(control.dot_lake)
    mounted: tuple[tuple[Path, Path], ...] = ()
    if control.packages is not None and step != "nanoda":
        mounted = ((Path(control.packages), dot_lake / "packages"),)
    shown = (*call.readable, *call.executable)
    if step == "export":
        shown = (project, Path(control.toolchain))  # `.lake` is in the project's folder
    if step == "nanoda":  # landrun's `-add-exec` shows the program itself
        shown = (*call.readable, Path(call.argv[0]))
    view = View(read_only=shown, writable=call.writable, workdir=project, mounted=mounted)
    env = {name: os.environ[name] for name in call.env if name in os.environ}
    env["LEAN_ABORT_ON_PANIC"] = "1"  # comparator sets it for every step
    wall = control.deadline - time.time()
    limits = Limits(
        wall_sec=max(wall, 0.0),
        cpu_sec=math.ceil(max(wall, 1.0)) * max(os.cpu_count() or 1, 1) + 1,
        address_space_mb=None,
        output_bytes=MAX_OUTPUT_BYTES,
        scratch_mb=1024,
        processes=control.processes,
        memory_mb=control.memory_mb,
    )
    return Job(argv=call.argv, view=view, limits=limits, env=env)


# An export is the whole closure of the statement's and the proof's constants: for a proof
# over Mathlib, tens of MB; past this a step is a flood and is stopped.
MAX_OUTPUT_BYTES = 2 * 1024 * 1024 * 1024


def _log(folder: Path, entry: dict[str, object]) -> None:
    try:
        fd = os.open(
            folder / LOG_NAME, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600
        )
    except OSError:
        return
    with os.fdopen(fd, "a", encoding="utf-8") as log:
        log.write(json.dumps(entry, sort_keys=True) + "\n")


def read_log(folder: Path) -> list[dict[str, object]]:
    """The steps the run's calls took, in order."""
    try:
        text = (folder / LOG_NAME).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def launcher(folder: Path) -> Path:
    """The program comparator is given as `$COMPARATOR_LANDRUN`: a shell script in the
    control folder that runs `main` with this interpreter and this jig, isolated from the
    working folder's Python files (`-I`; the project folder holds the submission)."""
    import jigcli

    here = Path(jigcli.__file__).resolve().parent.parent
    code = (
        f"import sys; sys.path.insert(0, {str(here)!r}); "
        "from jigcli.lean.comparator.landrun import main; sys.exit(main())"
    )
    script = folder / "landrun"
    command = f"{_sh(sys.executable)} -I -c {_sh(code)} --control {_sh(str(folder))}"
    text = f'#!/bin/sh\nexec {command} "$@"\n'
    fd = os.open(script, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o700)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    return script


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
