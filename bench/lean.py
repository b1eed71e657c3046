"""The Lean processes one submission costs, in order, and where its time goes.

    python bench/lean.py [--repeat R] [--manifest Submissions/S001/AliceDirect.json]

Verifies one submission of a copy of this repo R times (default 5) with the test suite's
stand-in toolchain (`tests/standin/`: comparator, lean4export and Lake replayed, nothing
elaborated), every sandboxed step in bubblewrap through jig's `$COMPARATOR_LANDRUN`, and prints

* the processes of one verification in the order they ran: the trusted build and toolchain
  probes jig runs itself (the stand-in's log), then comparator and each step it started
  through the launcher (the launcher's log: kind, module, route, seconds);
* the best wall time of a whole verification, the best time spent inside the sandboxed steps,
  and their ratio: what jig and comparator add around the steps (policy, run folder,
  sandbox set-up outside the step, comparator's compare and replay).

On the stand-in a step costs milliseconds where a real `lake build` over Mathlib costs seconds
to minutes, so the ratio here bounds jig's own overhead; it says nothing of Lean's. The order is
what a real run takes too: it is comparator's (`Main.lean` at `v4.33.0`). There is no target:
the counts are the result (a change that adds a process shows here first).

Where `lake` and the Mathlib cache exist, `python bench/export.py --s001` times the real thing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from jigcli.lean import pipeline
from jigcli.lean.comparator import landrun
from jigcli.lean.comparator.sandbox import describe_for
from jigcli.repo import Repo
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

HERE = Path(__file__).resolve().parent.parent
STANDIN_BIN = HERE / "tests" / "standin" / "bin"
COPIED = ("lean-toolchain", "lakefile.toml", "lake-manifest.json", "Commons", "Statements")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--manifest", default="Submissions/S001/AliceDirect.json")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jig-bench-lean-") as scratch:
        root = Path(scratch)
        repo = _copy_repo(root / "repo")
        _use_standin(root)
        found = describe_for(None)
        if found["route"] is None:
            print(f"no sandbox here confines a Lean step: {found['why']}", file=sys.stderr)
            return 2
        runs = root / "runs"
        runs.mkdir()
        setattr(pipeline, "TemporaryDirectory", _kept(runs))  # noqa: B010 (a test seam)
        walls, inside = [], []
        for attempt in range(options.repeat):
            log = root / "standin-log.jsonl"
            log.unlink(missing_ok=True)
            started = time.perf_counter()
            verdict = _verify(repo, options.manifest)
            walls.append(time.perf_counter() - started)
            run_folder = sorted(runs.iterdir(), key=lambda p: p.stat().st_mtime)[-1]
            steps = _steps(run_folder)
            inside.append(sum(_seconds(step) for step in steps))
            if attempt == 0:
                print(f"verdict: {verdict.verdict} ({verdict.reason or 'accepted'})")
                _print_processes(log, steps)
        wall, stepped = min(walls), min(inside)
        ratio = f"{wall / stepped:.2f}x" if stepped else "n/a (no step ran)"
        print(
            f"\nbest of {options.repeat}: verification {wall * 1000:.0f} ms, inside the "
            f"sandboxed steps {stepped * 1000:.0f} ms, ratio {ratio}"
        )
    return 0


def _copy_repo(root: Path) -> Repo:
    root.mkdir()
    for name in COPIED:
        source = HERE / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns(".lake"))
        else:
            shutil.copy2(source, root / name)
    shutil.copytree(HERE / "Submissions", root / "Submissions")
    return Repo(root)


def _use_standin(root: Path) -> None:
    scenario = root / "standin-scenario.json"
    scenario.write_text("{}", encoding="utf-8")
    os.environ["JIG_STANDIN_SCENARIO"] = str(scenario)
    os.environ["JIG_STANDIN_LOG"] = str(root / "standin-log.jsonl")
    os.environ["ELAN_HOME"] = str(root / "no-elan")
    os.environ["PATH"] = f"{STANDIN_BIN}{os.pathsep}/usr/local/bin:/usr/bin:/bin"


def _kept(parent: Path) -> type:
    """`TemporaryDirectory` that keeps the run folder, so its launcher log can be read."""

    class Kept:
        def __init__(self, prefix: str = "jig-lean-", **_: object) -> None:
            self.name = tempfile.mkdtemp(prefix=prefix, dir=parent)

        def __enter__(self) -> str:
            return self.name

        def __exit__(self, *_: object) -> None:
            return None

    return Kept


def _verify(repo: Repo, manifest: str) -> Verdict:
    return verify(repo.root / manifest, repo, VerifyOptions(timeout=120.0))


def _steps(run_folder: Path) -> list[dict[str, object]]:
    return landrun.read_log(run_folder / "control")


def _seconds(step: dict[str, object]) -> float:
    seconds = step.get("seconds", 0.0)
    return float(seconds) if isinstance(seconds, int | float) else 0.0


def _print_processes(log: Path, steps: list[dict[str, object]]) -> None:
    calls = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    print(f"\nprocesses jig started itself ({len(calls)}):")
    for call in calls:
        print(f"  {call['tool']} {' '.join(call['argv'])[:90]}")
    print(f"\nsandboxed steps comparator started through the launcher ({len(steps)}):")
    for step in steps:
        argv = step["argv"]
        assert isinstance(argv, list)
        module = argv[2] if step["step"] == "build" else argv[1]
        print(
            f"  {step['step']:<7} {module:<32} {step.get('route', '-'):<12} "
            f"{_seconds(step) * 1000:6.0f} ms  exit {step.get('exit')}"
        )


if __name__ == "__main__":
    sys.exit(main())
