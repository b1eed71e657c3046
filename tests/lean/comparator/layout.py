"""A run's folders as jig's landrun sees them (`Layout`), and the launcher run on a call
(`launch`): shared by the landrun tests and the real-Lean sandboxed builds."""

from __future__ import annotations

import shlex
import subprocess
import time
from pathlib import Path

from jigcli.lean.comparator import landrun
from jigcli.lean.comparator.landrun import Control

SYSTEM_PYTHON = Path("/usr/bin/python3")
REPO = Path(__file__).resolve().parents[3]


ENV_BUILD = ("--env", "PATH", "--env", "HOME", "--env", "LEAN_ABORT_ON_PANIC")


class Layout:
    """A run's folders as jig makes them, with a toolchain whose `lake` is a test script."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.repo = root / "repo"
        self.run = root / "run"
        self.control = self.run / "control"
        self.project = self.run / "project"
        self.dot_lake = self.project / ".lake"
        self.toolchain = root / "toolchain"
        self.packages = self.repo / ".lake" / "packages"
        for folder in (
            self.home,
            self.repo / ".git",
            self.packages / "mathlib",
            self.control,
            self.dot_lake / "packages",
            self.toolchain / "bin",
        ):
            folder.mkdir(parents=True)
        (self.home / "secret").write_text("the user's own\n")
        (self.repo / ".git" / "config").write_text("[core]\n")
        (self.packages / "mathlib" / "Mathlib.olean").write_text("trusted\n")
        (self.project / "JigChallenge.lean").write_text("theorem x : True := trivial\n")
        self.lean4export = self.toolchain / "bin" / "lean4export"
        self.lean4export.write_text('#!/bin/sh\necho exported "$@"\n')
        self.lean4export.chmod(0o755)
        self.as_nobody: Path | None = None  # nobody's site folder, when run as nobody

    def control_file(self, **changes: object) -> Control:
        fields: dict[str, object] = {
            "project": str(self.project),
            "toolchain": str(self.toolchain),
            "git": "/usr/bin/git",
            "lean4export": str(self.lean4export),
            "nanoda": None,
            "packages": str(self.packages),
            "builds": ("JigChallenge",),
            "exports": ("JigChallenge",),
            "deadline": time.time() + 60,
            "memory_mb": 1024,
            "processes": 64,
        }
        fields.update(changes)
        control = Control(**fields)  # type: ignore[arg-type]
        control.write(self.control)
        return control

    def build_args(self, module: str = "JigChallenge") -> list[str]:
        return [
            *landrun.PREFIX,
            *ENV_BUILD,
            *("--ro", str(self.project), "--rwx", str(self.dot_lake)),
            *("--rox", str(self.toolchain), "--rox", "/usr/bin/git"),
            *("--", "lake", "build", module),
        ]

    def export_args(self, *flags: str) -> list[str]:
        return [
            *landrun.PREFIX,
            *(*ENV_BUILD[:4], "--env", "LEAN_PATH", *ENV_BUILD[4:]),
            *("--ro", str(self.project), "--ro", str(self.dot_lake)),
            *("--rox", str(self.toolchain)),
            *("--", str(self.lean4export), "JigChallenge", *flags, "--", "JigRun.goal"),
        ]


def lake(layout: Layout, body: str) -> None:
    lake = layout.toolchain / "bin" / "lake"
    lake.write_text(f"#!/bin/sh\n{body}\n")
    lake.chmod(0o755)


def launch(layout: Layout, args: list[str]) -> subprocess.CompletedProcess[str]:
    launcher = layout.control / "landrun"
    drop: list[str] = []
    if layout.as_nobody is not None:
        code = (
            f"import sys; sys.path[:0] = [{str(REPO)!r}, {str(layout.as_nobody)!r}]; "
            "from jigcli.lean.comparator.landrun import main; sys.exit(main())"
        )
        command = f"{SYSTEM_PYTHON} -I -c {shlex.quote(code)} --control {layout.control}"
        launcher.write_text(f'#!/bin/sh\nexec {command} "$@"\n')
        launcher.chmod(0o755)
        subprocess.run(["chown", "-R", "65534:65534", str(layout.root)], check=True)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    elif not launcher.exists():
        landrun.launcher(layout.control)
    env = {
        "PATH": f"{layout.toolchain / 'bin'}:/usr/bin:/bin",
        "HOME": str(layout.home),
        "LEAN_PATH": str(layout.dot_lake),
        "GITHUB_TOKEN": "never-passed",
    }
    return subprocess.run(
        [*drop, str(launcher), *args],
        cwd=layout.project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
