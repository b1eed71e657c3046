"""The one narrow module that runs Lean's own tools for this repo (`lake`, `lean`), always through
`jigcli.process.run_bounded` (deadline, output cap, process-group kill).

Public API (small on purpose; `jig verify`, `jig doctor`, `jig pose` and `jig lean-check`
share it):

- `detect(repo, timeout=…) -> Toolchain`: find `lake` and `lean` on `PATH` or in
  `~/.elan/bin`, read `lean --version`, and refuse a version that differs from the repo's
  `lean-toolchain` (`ToolchainProblem`, naming both versions).
- `build(toolchain, repo, targets, timeout=…) -> LakeRun`: one `lake build <targets…>` of
  trusted targets (comparator, lean4export, statements, `Commons`).
- `lean_paths(toolchain, repo, timeout=…) -> LeanPaths`: the toolchain folder and the search
  path (`LEAN_PATH`) Lake sets for this repo, from which a run of comparator
  (`jigcli.lean.comparator.run`) makes its own;
- `elaborate(toolchain, repo, file, timeout=…) -> LeanRun`: one `lake env lean --json FILE`,
  its stdout parsed into `jigcli.lean.messages.LeanOutput` (`run.output.messages`).
- `describe(repo) -> dict`: what this machine has, for `jig doctor`.

Every run returns the `RunResult` it came from (`.result`), so a caller can keep Lean's full
output as evidence. Nothing here decides a verdict: that is the pipeline's job.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jigcli.lean.messages import (
    BuildDiagnostic,
    LeanOutput,
    build_diagnostics,
    lake_version,
    lean_version,
    parse_json_messages,
)
from jigcli.process import ProgramMissing, RunResult, run_bounded
from jigcli.repo import Repo

PROGRAMS = ("lake", "lean")
VERSION_PROBE_SEC = 60.0


class LakeEnvProblem(Exception):
    """Lake did not say where this repo's Lean and its trusted build are; `str()` says why."""


class ToolchainProblem(Exception):
    """No usable Lean toolchain: missing, or not the version the repo pins.

    `str()` is one sentence for a verdict detail; `kind` is `missing` or `version`.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Toolchain:
    lake: Path
    lean: Path
    lean_version: str
    lean_version_line: str
    env: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        return f"Lean {self.lean_version} ({self.lean})"


@dataclass
class LakeRun:
    result: RunResult
    diagnostics: list[BuildDiagnostic]

    @property
    def ok(self) -> bool:
        return self.result.ok


@dataclass
class LeanRun:
    result: RunResult
    output: LeanOutput

    @property
    def crashed(self) -> bool:
        """Lean ended without a decision: killed by a signal, or stray non-JSON output and a
        failing exit code with no error message to explain it."""
        if self.result.timed_out:
            return False
        if self.result.signal is not None:
            return True
        return self.result.returncode != 0 and not self.output.errors


# -- finding the programs ---------------------------------------------------------------------


def elan_bin() -> Path:
    return Path(os.environ.get("ELAN_HOME", str(Path.home() / ".elan"))) / "bin"


def find_program(name: str, env: Mapping[str, str] | None = None) -> Path | None:
    """`name` on `PATH`, else in `~/.elan/bin` (where elan installs its shims)."""
    search = (env or os.environ).get("PATH", "")
    found = shutil.which(name, path=search)
    if found:
        return Path(found)
    candidate = elan_bin() / name
    return candidate if candidate.is_file() and os.access(candidate, os.X_OK) else None


def _child_env(programs: Sequence[Path | None]) -> dict[str, str]:
    """The caller's environment, with the found programs' folders first on PATH (so that
    `lake env lean` finds the same `lean` that `detect` checked)."""
    env = dict(os.environ)
    folders = []
    for program in programs:
        if program is not None and str(program.parent) not in folders:
            folders.append(str(program.parent))
    env["PATH"] = os.pathsep.join([*folders, env.get("PATH", "")])
    return env


def detect(repo: Repo, *, timeout: float = VERSION_PROBE_SEC) -> Toolchain:
    """The toolchain to use for `repo`, or `ToolchainProblem` saying what is missing."""
    lake, lean = find_program("lake"), find_program("lean")
    missing = [name for name, path in (("lake", lake), ("lean", lean)) if path is None]
    if missing or lake is None or lean is None:
        raise ToolchainProblem(
            "missing",
            f"no Lean toolchain here: {' and '.join(missing)} not found on PATH or in {elan_bin()}",
        )
    env = _child_env([lean, lake])
    line = _version_line(lean, repo, env, timeout)
    found = lean_version(line)
    if found is None:
        raise ToolchainProblem("missing", f"`{lean} --version` printed no version: {line!r}")
    pinned = repo.lean_version
    if pinned is not None and found != pinned:
        raise ToolchainProblem(
            "version",
            f"this machine's Lean is {found} but lean-toolchain pins {pinned} "
            f"({repo.lean_toolchain}); install the pinned one with elan",
        )
    return Toolchain(
        lake=lake,
        lean=lean,
        lean_version=found,
        lean_version_line=line,
        env=env,
    )


def _version_line(lean: Path, repo: Repo, env: Mapping[str, str], timeout: float) -> str:
    try:
        result = run_bounded([lean, "--version"], cwd=repo.root, env=env, timeout=timeout)
    except ProgramMissing as exc:
        raise ToolchainProblem("missing", f"{exc.program} cannot be run") from exc
    if result.timed_out:
        raise ToolchainProblem("missing", f"`{lean} --version` did not answer in {timeout:g} s")
    return result.output.strip()


# -- running it -------------------------------------------------------------------------------


def build(toolchain: Toolchain, repo: Repo, targets: Sequence[str], *, timeout: float) -> LakeRun:
    """One `lake build` of every target, in the repo root."""
    result = _in_repo([toolchain.lake, "build", *targets], toolchain, repo, timeout)
    return LakeRun(result, build_diagnostics(result.output))


# -- where Lean lives -----------------------------------------------------------------------


@dataclass(frozen=True)
class LeanPaths:
    """Where this repo's Lean lives and reads from: the toolchain's folder (`LEAN_SYSROOT`,
    whose `bin/lean` is Lean itself) and Lake's search path (`LEAN_PATH`, the trusted build's
    library folders), the existing folders only."""

    sysroot: Path
    search_path: tuple[Path, ...]

    @property
    def lean(self) -> Path:
        return self.sysroot / "bin" / "lean"

    def lean_path(self) -> str:
        return os.pathsep.join(str(folder) for folder in self.search_path)


def lean_paths(toolchain: Toolchain, repo: Repo, *, timeout: float) -> LeanPaths:
    """`lake env printenv LEAN_SYSROOT LEAN_PATH` in the repo (`lake env` sets both, `lake help
    env`, lean4 `src/lake/Lake/CLI/Help.lean`), run outside any sandbox: the lakefile is this
    repo's own. Raises `LakeEnvProblem`."""
    argv: list[str | Path] = [toolchain.lake, "env", "printenv", "LEAN_SYSROOT", "LEAN_PATH"]
    result = _in_repo(argv, toolchain, repo, timeout)
    said = result.stdout.splitlines()
    if not result.ok or len(said) != 2:
        detail = (result.stderr or result.stdout).strip().splitlines()
        raise LakeEnvProblem(
            "`lake env` did not say where Lean and the trusted build are"
            + (f": {detail[-1][:200]}" if detail else f" (exit {result.returncode})")
        )
    sysroot = Path(said[0])
    if not sysroot.is_absolute() or not (sysroot / "bin" / "lean").is_file():
        raise LakeEnvProblem(f"`lake env` names {said[0]!r} as Lean's folder; it has no bin/lean")
    folders = [Path(part) for part in said[1].split(os.pathsep) if part]
    found = [folder for folder in folders if folder.is_absolute() and folder.is_dir()]
    return LeanPaths(sysroot, tuple(dict.fromkeys(found)))


def elaborate(toolchain: Toolchain, repo: Repo, file: Path, *, timeout: float) -> LeanRun:
    """One `lake env lean --json FILE`; the messages are parsed, stray lines kept."""
    result = _in_repo([toolchain.lake, "env", "lean", "--json", file], toolchain, repo, timeout)
    return LeanRun(result, parse_json_messages(result.stdout))


def _in_repo(
    argv: Sequence[str | Path], toolchain: Toolchain, repo: Repo, timeout: float
) -> RunResult:
    """`argv` in the repo root, with the toolchain's environment and a time limit."""
    return run_bounded(argv, cwd=repo.root, env=toolchain.env or None, timeout=max(timeout, 0.001))


# -- for jig doctor ---------------------------------------------------------------------------


def mathlib_cache(repo: Repo) -> Path:
    """Where `lake exe cache get` unpacks Mathlib's oleans."""
    return repo.root / ".lake" / "packages" / "mathlib" / ".lake" / "build"


def describe(repo: Repo) -> dict[str, Any]:
    """What this machine has for Lean, without deciding anything (for `jig doctor`)."""
    programs = {name: find_program(name) for name in (*PROGRAMS, "elan")}
    report: dict[str, Any] = {
        "programs": {name: str(path) if path else None for name, path in programs.items()},
        "pins": {
            "lean_toolchain": repo.lean_toolchain,
            "lean_version": repo.lean_version,
            "mathlib_rev": repo.mathlib_rev,
        },
        "mathlib_cache": {
            "path": repo.rel(mathlib_cache(repo)),
            "present": mathlib_cache(repo).is_dir(),
        },
        "versions": {},
        "ready": False,
        "problem": None,
    }
    env = _child_env(list(programs.values()))
    for name, flag in (("lean", "--version"), ("lake", "--version"), ("elan", "--version")):
        path = programs[name]
        if path is not None:
            report["versions"][name] = _quiet_version(path, flag, repo, env)
    try:
        detect(repo)
    except ToolchainProblem as problem:
        report["problem"] = str(problem)
    else:
        report["ready"] = report["mathlib_cache"]["present"]
        if not report["ready"]:
            report["problem"] = "the Mathlib cache is missing: run `lake exe cache get`"
    lake_line = report["versions"].get("lake")
    if lake_line:
        parsed = lake_version(lake_line)
        report["lake_lean_version"] = parsed[1] if parsed else None
    return report


def _quiet_version(path: Path, flag: str, repo: Repo, env: Mapping[str, str]) -> str | None:
    try:
        result = run_bounded([path, flag], cwd=repo.root, env=env, timeout=VERSION_PROBE_SEC)
    except ProgramMissing:
        return None
    if result.timed_out:
        return None
    return result.output.strip() or None
