"""What verifying a certificate costs against running its checker bare, measured in one run.

    python bench/certificates.py [--reps 15] [--count 300]

The checker is the repo's own C001 (three cubes summing to 42, Python big integers) on the
Booker–Sutherland witness. Baselines, each a real process of the same interpreter:

* bare:    `python checker.py witness` — how a poser would run the checker by hand;
* bare -S: the same with `-S -B`, the flags the sandbox runs checkers with, for information.

(a) one `python -m jigcli verify MANIFEST --json` process per certificate, interleaved with
    the bare runs over `--reps` repetitions (medians) — target ≤ 3× bare: interpreter
    start-up, the CLI's imports and the sandbox probe are paid on every verification;
(b) the per-certificate cost inside one process verifying `--count` submissions in a loop
    with `jigcli.verify.submission.verify` (the way `jig selftest` runs them: the route probed once,
    schemas loaded once), against the bare runs' mean — target ≤ 1.3× bare.

Both ratios are printed with the isolation route the verdicts recorded.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBLEM = REPO / "Certificates" / "C001"
WITNESS = PROBLEM / "submissions" / "booker-sutherland.witness"
MANIFEST = PROBLEM / "submissions" / "booker-sutherland.json"
TARGET_CLI = 3.0
TARGET_IN_PROCESS = 1.3


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def _bare(flags: tuple[str, ...] = ()) -> list[str]:
    return [sys.executable, *flags, str(PROBLEM / "checker.py"), str(WITNESS)]


def cli_round(reps: int) -> tuple[list[float], list[float], list[float], str]:
    """(a): interleaved bare, bare -S and `jig verify` processes, `reps` of each."""
    verify = [sys.executable, "-m", "jigcli", "verify", str(MANIFEST), "--json"]
    bare, bare_s, cli = [], [], []
    for _ in range(reps):
        bare.append(_timed(_bare()))
        bare_s.append(_timed(_bare(("-S", "-B"))))
        cli.append(_timed(verify))
    route = json.loads(subprocess.run(verify, cwd=REPO, capture_output=True).stdout)["isolation"]
    return bare, bare_s, cli, str(route)


def _make_repo(root: Path, count: int) -> list[Path]:
    """A repo holding C001 and `count` submissions of its green witness."""
    (root / "jig.yaml").write_text("")
    problem = root / "Certificates" / "C001"
    shutil.copytree(PROBLEM, problem)
    manifests = []
    for index in range(count):
        manifest = problem / "submissions" / f"bench-{index:04d}.json"
        shutil.copy(MANIFEST, manifest)
        manifests.append(manifest)
    return manifests


def in_process_round(count: int) -> tuple[float, float, str]:
    """(b): seconds per certificate verified in one process, and the bare mean per run."""
    from jigcli.repo import Repo
    from jigcli.verify.context import VerifyOptions
    from jigcli.verify.submission import verify

    with tempfile.TemporaryDirectory(prefix="jig-bench-") as folder:
        manifests = _make_repo(Path(folder), count)
        repo = Repo(Path(folder))
        warm = verify(manifests[0], repo, VerifyOptions())  # imports, probe, schemas
        if not warm.green:
            raise SystemExit(f"the warm-up verdict is red: {warm.reason}: {warm.detail}")
        started = time.perf_counter()
        routes = set()
        for manifest in manifests:
            verdict = verify(manifest, repo, VerifyOptions())
            if not verdict.green:
                raise SystemExit(f"{manifest.name}: red {verdict.reason}: {verdict.detail}")
            routes.add(str(verdict.extra.get("isolation")))
        per_certificate = (time.perf_counter() - started) / count
    bare = statistics.mean(_timed(_bare()) for _ in range(max(20, count // 10)))
    return per_certificate, bare, ", ".join(sorted(routes))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--count", type=int, default=300)
    args = parser.parse_args()

    bare, bare_s, cli, route = cli_round(args.reps)
    b, bs, c = statistics.median(bare), statistics.median(bare_s), statistics.median(cli)
    print(f"(a) one process per certificate, median of {args.reps}, route {route}")
    print(f"    bare python checker.py witness    {b * 1000:7.1f} ms")
    print(f"    bare python -S -B checker.py      {bs * 1000:7.1f} ms")
    print(f"    python -m jigcli verify --json    {c * 1000:7.1f} ms")
    ratio_a = c / b
    print(f"    ratio {ratio_a:.2f}x bare (target <= {TARGET_CLI}x); {c / bs:.2f}x bare -S")

    per, bare_mean, routes = in_process_round(args.count)
    ratio_b = per / bare_mean
    print(f"(b) {args.count} certificates verified in one process, route {routes}")
    print(f"    per certificate                   {per * 1000:7.1f} ms")
    print(f"    bare python checker.py witness    {bare_mean * 1000:7.1f} ms (mean)")
    print(f"    ratio {ratio_b:.2f}x bare (target <= {TARGET_IN_PROCESS}x)")
    met = ratio_a <= TARGET_CLI and ratio_b <= TARGET_IN_PROCESS
    print("targets met" if met else "a target was missed")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
