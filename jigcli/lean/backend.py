"""The one narrow module that runs Lean: `lake`, `lean` and the trusted judge, always through
`jigcli.run.run` (deadline, output cap, process-group kill).

Public API (small on purpose; `jig verify`, `jig doctor`, `jig pose` and `jig lean-check`
share it):

- `detect(repo, timeout=…) -> Toolchain`: find `lake` and `lean` (and `elan`) on `PATH` or in
  `~/.elan/bin`, read `lean --version`, and refuse a version that differs from the repo's
  `lean-toolchain` (`ToolchainProblem`, naming both versions).
- `build(toolchain, repo, targets, timeout=…) -> LakeRun`: one `lake build <targets…>` of
  trusted targets (the judge, statements, `Commons`).
- `build_submission(toolchain, repo, module, timeout=…) -> LakeRun`: the one build of an
  untrusted module, `lake build --wfail <module>`.
- `judge(toolchain, repo, args, timeout=…) -> RunResult`: one run of the judge executable
  (`Verify/Judge.lean`, built by `build`) under `lake env`.
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
from jigcli.repo import Repo
from jigcli.run import ProgramMissing, RunResult, run

PROGRAMS = ("lake", "lean")
VERSION_PROBE_SEC = 60.0
# The judge executable: `[[lean_exe]] name = "jig_judge"` in the repo's `lakefile.toml`, which
# Lake builds into `<buildDir>/<binDir>/`, by default `.lake/build/bin/`.
JUDGE_EXE = "jig_judge"
# Lake's `--wfail` ("fail build if warnings are logged (same as --fail-level=warning)", the
# OUTPUT OPTIONS of `lake help`, lean4 `src/lake/Lake/CLI/Help.lean`): Lean reports a
# `sorry` as the warning "declaration uses 'sorry'", so a submission with one fails to build.
FAIL_ON_WARNINGS = "--wfail"


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
    elan: Path | None
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
        elan=find_program("elan"),
        lean_version=found,
        lean_version_line=line,
        env=env,
    )


def _version_line(lean: Path, repo: Repo, env: Mapping[str, str], timeout: float) -> str:
    try:
        result = run([lean, "--version"], cwd=repo.root, env=env, timeout=timeout)
    except ProgramMissing as exc:
        raise ToolchainProblem("missing", f"{exc.program} cannot be run") from exc
    if result.timed_out:
        raise ToolchainProblem("missing", f"`{lean} --version` did not answer in {timeout:g} s")
    return result.output.strip()


# -- running it -------------------------------------------------------------------------------


def build(toolchain: Toolchain, repo: Repo, targets: Sequence[str], *, timeout: float) -> LakeRun:
    """One `lake build` of every target, in the repo root."""
    result = _run([toolchain.lake, "build", *targets], toolchain, repo, timeout)
    return LakeRun(result, build_diagnostics(result.output))


def build_submission(toolchain: Toolchain, repo: Repo, module: str, *, timeout: float) -> LakeRun:
    """The one build of an untrusted module: `lake build --wfail <module>`, so that a warning,
    "declaration uses 'sorry'" first of all, fails it."""
    result = _run([toolchain.lake, "build", FAIL_ON_WARNINGS, module], toolchain, repo, timeout)
    return LakeRun(result, build_diagnostics(result.output))


def judge_exe(repo: Repo) -> Path:
    """Where `lake build jig_judge` puts the judge."""
    return repo.root / ".lake" / "build" / "bin" / JUDGE_EXE


def judge(toolchain: Toolchain, repo: Repo, args: Sequence[str], *, timeout: float) -> RunResult:
    """One run of the judge under `lake env` (which sets `LEAN_PATH` and `LEAN_SYSROOT`, where
    the judge finds the `.olean` files it reads)."""
    argv: list[str | Path] = [toolchain.lake, "env", judge_exe(repo), *args]
    return _run(argv, toolchain, repo, timeout)


def elaborate(toolchain: Toolchain, repo: Repo, file: Path, *, timeout: float) -> LeanRun:
    """One `lake env lean --json FILE`; the messages are parsed, stray lines kept."""
    result = _run([toolchain.lake, "env", "lean", "--json", file], toolchain, repo, timeout)
    return LeanRun(result, parse_json_messages(result.stdout))


def _run(argv: Sequence[str | Path], toolchain: Toolchain, repo: Repo, timeout: float) -> RunResult:
    return run(argv, cwd=repo.root, env=toolchain.env or None, timeout=max(timeout, 0.001))


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
        result = run([path, flag], cwd=repo.root, env=env, timeout=VERSION_PROBE_SEC)
    except ProgramMissing:
        return None
    if result.timed_out:
        return None
    return result.output.strip() or None
