"""`jig lean-check` end to end with real Lean 4.35 answering: a `prelude` paper's `.lean`,
every verdict the sibling check gives, read from what Lean itself printed. Only Lake is
played (`RealLean.on_path`); the project pins 4.35.0, so jig's own pin check holds."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from .conftest import LEAN_VERSION, RealLean

PAPER = Path(__file__).resolve().parents[1] / "data" / "papers" / "leancheck_prelude"

LAKEFILE = """\
name = "paper"

[[require]]
name = "mathlib"
git = "https://github.com/leanprover-community/mathlib4"
rev = "v4.35.0"
"""


def _project(tmp_path: Path, pin: str = LEAN_VERSION) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "lean-toolchain").write_text(f"leanprover/lean4:v{pin}\n")
    (project / "lakefile.toml").write_text(LAKEFILE)
    for name in ("paper.tex", "paper.lean"):
        shutil.copy(PAPER / name, project / name)
    return project


def _lean_check(real_lean: RealLean, project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    bin_dir = real_lean.on_path(project.parent / "tools")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    env["ELAN_HOME"] = str(project.parent / "no-elan")
    argv = [sys.executable, "-m", "jigcli", "lean-check", str(project / "paper.tex"), *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)


def _verdicts(document: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {s["label"]: (s["verdict"], s["status"]) for s in document["statements"]}


def test_every_verdict_comes_from_real_lean(real_lean: RealLean, tmp_path: Path) -> None:
    project = _project(tmp_path)
    done = _lean_check(real_lean, project, "--json")
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert _verdicts(document) == {
        "thm:proved": ("proved", "ok"),
        "lem:open": ("sorry", "warn"),
        "thm:conditional": ("conditional", "conditional"),
        "thm:broken": ("error", "error"),
        "thm:assumed": ("assumed", "ok"),
        "thm:unformalized": ("pending", "pending"),
    }
    evidence = project / ".jig" / "lean-check" / "paper.check.out"
    assert "declaration uses `sorry`" in evidence.read_text()


def test_the_broken_theorem_is_placed_at_the_line_lean_names(
    real_lean: RealLean, tmp_path: Path
) -> None:
    project = _project(tmp_path)
    document = json.loads(_lean_check(real_lean, project, "--json").stdout)
    broken = next(s for s in document["statements"] if s["label"] == "thm:broken")
    broken_line = 1 + (PAPER / "paper.lean").read_text().splitlines().index(
        "theorem broken : True := True.intro True.intro"
    )
    assert f"paper.lean:{broken_line}" in broken["decls"][0]["detail"]


def test_a_lean_other_than_the_pin_checks_nothing(real_lean: RealLean, tmp_path: Path) -> None:
    project = _project(tmp_path, pin="4.33.0")
    done = _lean_check(real_lean, project, "--json")
    document = json.loads(done.stdout)
    assert done.returncode == 1, done.stderr  # the unformalized theorem is not a wait for Lean
    assert "this machine's Lean is 4.35.0 but lean-toolchain pins 4.33.0" in document["summary"]
    formalized = {k: v for k, v in _verdicts(document).items() if k != "thm:unformalized"}
    assert set(formalized.values()) == {("pending", "pending")}
    assert not (project / ".jig" / "lean-check" / "paper.check.out").exists()
