"""One submission's run: comparator on the run folder, and jig's own sandboxed steps around it.

Every untrusted step, comparator's and jig's alike, goes through the run's launcher
(`landrun`), so each has the shape comparator gives it at the tag and the same sandbox:

- `build(module)`: `lake build <module>`, as `safeLakeBuild` asks it;
- `export(module, names)`: lean4export, as `safeExport` asks it (jig's own provenance export
  adds `--ignore-missing`);
- `comparator()`: comparator itself, trusted (built by the trusted build, its hash checked),
  run outside the sandbox as the tag's CI runs it, with the environment `lake env` would give
  it, under the run's wall clock, a memory cgroup where one can be made, and a process cap.

comparator's own stdout and stderr (its children's pass through it) are kept as output for
the user; nothing in them decides anything. What decides is its exit status, and the
launcher's log of how each step ended (written by jig's launcher, outside every sandbox).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from jigcli.lean import backend
from jigcli.lean.comparator import landrun
from jigcli.lean.comparator.project import RunFolder
from jigcli.process import Limits, RunResult, run_bounded
from jigcli.sandbox import cgroups

# comparator holds both exports and the kernel's environment at once: for a proof over
# Mathlib, a few GB.
COMPARATOR_MEMORY_MB = 16384
BUILD_MEMORY_MB = 8192  # each sandboxed step, as a submission's build had
PROCESSES = 256
EXPORT_BYTES = 1024 * 1024 * 1024  # what jig keeps of one of its own exports


@dataclass(frozen=True)
class Programs:
    """The trusted programs a run uses, each checked against the hash the trusted build saw."""

    comparator: Path
    lean4export: Path
    nanoda: Path | None
    git: Path


def find_git() -> Path | None:
    found = shutil.which("git")
    return Path(found) if found else None


def find_nanoda() -> Path | None:
    """`nanoda_bin`, comparator's default name for the second kernel, where it is installed."""
    found = shutil.which(os.environ.get("COMPARATOR_NANODA", "nanoda_bin"))
    return Path(found) if found else None


class Run:
    """The steps of one run folder, each bounded by the verification's deadline."""

    def __init__(
        self,
        folder: RunFolder,
        paths: backend.LeanPaths,
        repo_root: Path,
        programs: Programs,
        builds: tuple[str, ...],
        deadline_sec: float,
    ) -> None:
        self.folder, self.paths, self.programs = folder, paths, programs
        self.repo_root = repo_root
        self.deadline = time.monotonic() + deadline_sec
        packages = repo_root / ".lake" / "packages"
        # lean4export as a sandboxed step sees it: the repo's packages appear at the run's.
        self.lean4export = programs.lean4export
        if programs.lean4export.is_relative_to(packages):
            relative = programs.lean4export.relative_to(packages)
            self.lean4export = folder.dot_lake / "packages" / relative
        control = landrun.Control(
            project=str(folder.project),
            toolchain=str(paths.sysroot),
            git=str(programs.git),
            lean4export=str(self.lean4export),
            nanoda=None if programs.nanoda is None else str(programs.nanoda),
            packages=str(packages) if packages.is_dir() else None,
            builds=builds,
            exports=builds,
            deadline=time.time() + deadline_sec,
            memory_mb=BUILD_MEMORY_MB,
            processes=PROCESSES,
        )
        control.write(folder.control)
        self.launcher = landrun.launcher(folder.control)

    def remaining(self) -> float:
        return max(self.deadline - time.monotonic(), 0.0)

    def environment(self) -> dict[str, str]:
        """What comparator and the launcher see: Lean's own folder first on PATH (comparator
        asks `lean --print-prefix` and `which git`), `LEAN_PATH` as the sandbox shows the
        run's and the packages' libraries, the shared libraries `lake env` would add, and
        the programs comparator is to use."""
        sysroot = self.paths.sysroot
        env = {
            "PATH": os.pathsep.join(
                [str(sysroot / "bin"), str(self.programs.git.parent), "/usr/bin", "/bin"]
            ),
            "HOME": os.environ.get("HOME", "/nonexistent"),
            "LANG": "C.UTF-8",
            "TMPDIR": str(self.folder.tmp),
            "LEAN_SYSROOT": str(sysroot),
            "LEAN_PATH": self.search_path(),
            "LD_LIBRARY_PATH": os.pathsep.join(
                [str(sysroot / "lib" / "lean"), str(sysroot / "lib")]
            ),
            "COMPARATOR_LANDRUN": str(self.launcher),
            "COMPARATOR_LEAN4EXPORT": str(self.lean4export),
        }
        if self.programs.nanoda is not None:
            env["COMPARATOR_NANODA"] = str(self.programs.nanoda)
        for name in ("JIG_STANDIN_SCENARIO", "JIG_STANDIN_LOG"):  # the test suite's stand-in
            if name in os.environ:
                env[name] = os.environ[name]
        return env

    def search_path(self) -> str:
        """The repo's search path as the run's sandbox shows it: the repo's own build is the
        run's `.lake/build`, its packages the run's `.lake/packages`."""
        repo_lake, run_lake = self.repo_root / ".lake", self.folder.dot_lake
        shown = [run_lake / "build" / "lib" / "lean"]
        for folder in self.paths.search_path:
            if folder.is_relative_to(repo_lake / "build"):
                continue
            if folder.is_relative_to(repo_lake):
                folder = run_lake / folder.relative_to(repo_lake)
            if folder not in shown:
                shown.append(folder)
        return os.pathsep.join(str(folder) for folder in shown)

    # -- the steps ----------------------------------------------------------------------------

    def build(self, module: str) -> RunResult:
        """`lake build <module>` through the launcher, with `safeLakeBuild`'s arguments."""
        project = self.folder.project
        args = [
            *landrun.PREFIX,
            *("--env", "PATH", "--env", "HOME", "--env", "LEAN_ABORT_ON_PANIC"),
            *("--ro", str(project), "--rwx", str(project / ".lake")),
            *("--rox", str(self.paths.sysroot), "--rox", str(self.programs.git)),
            *("--", "lake", "build", module),
        ]
        return self._launch(args)

    def export(self, module: str, names: list[str], *, ignore_missing: bool = False) -> RunResult:
        """lean4export through the launcher, with `safeExport`'s arguments."""
        project = self.folder.project
        flags = ["--ignore-missing"] if ignore_missing else []
        args = [
            *landrun.PREFIX,
            *("--env", "PATH", "--env", "HOME", "--env", "LEAN_PATH"),
            *("--env", "LEAN_ABORT_ON_PANIC"),
            *("--ro", str(project), "--ro", str(project / ".lake")),
            *("--rox", str(self.paths.sysroot)),
            *("--", str(self.lean4export), module, *flags, "--", *names),
        ]
        return self._launch(args, output_cap=EXPORT_BYTES)

    def comparator(self) -> RunResult:
        """comparator on the run's configuration, in the project folder."""
        argv = [str(self.programs.comparator), str(self.folder.config)]
        with cgroups.enforced(None, PROCESSES, COMPARATOR_MEMORY_MB) as cgroup:
            return run_bounded(
                argv,
                cwd=self.folder.project,
                env=self.environment(),
                timeout=max(self.remaining(), 0.001),
                limits=Limits(
                    file_size_mb=1024,
                    processes=None,
                    cgroups=() if cgroup is None else cgroup.folders,
                    parent_death=True,
                ),
            )

    def log(self) -> list[dict[str, object]]:
        return landrun.read_log(self.folder.control)

    def _launch(self, args: list[str], output_cap: int = 64 * 1024 * 1024) -> RunResult:
        return run_bounded(
            [str(self.launcher), *args],
            cwd=self.folder.project,
            env=self.environment(),
            timeout=max(self.remaining(), 0.001),
            output_cap=output_cap,
            limits=Limits(parent_death=True),
        )
