"""What verifying a certificate costs against running its checker bare, measured in one run.

    python bench/certificates.py [--reps 15] [--count 300] [--upstream DIR]

The checker is the repo's own C001 (three cubes summing to 42, Python big integers) on the
Booker–Sutherland witness. Baselines, each a real process of the same interpreter:

* bare:    `python checker.py witness` — how a poser would run the checker by hand;
* bare -S: the same with `-S -B`, the flags the sandbox runs checkers with, for information;
* start:   `python -c pass`, the interpreter's own start-up, which every process pays;
* upstream (with `--upstream DIR`, a checkout of WoshuaJolk/conject-lean or any repo whose
  `scripts/` holds its `verify_cert.py` and `conject_common.py`): that script on the same
  problem and witness, copied beside them in a scratch folder. It isolates far less (a
  network namespace, rlimits); nothing of it is vendored here.

jig's package is byte-compiled first, as `pip install` leaves it: a checkout run under
PYTHONDONTWRITEBYTECODE would otherwise compile its sources on every run.

(a) one `python -m jigcli verify MANIFEST --json` process per certificate, interleaved with
    the other processes over `--reps` repetitions (medians) — target ≤ 3× bare: interpreter
    start-up, the CLI's imports and the sandbox probe are paid on every verification;
(b) the per-certificate cost inside one process verifying `--count` submissions in a loop
    with `jigcli.verify.submission.verify` (the way `jig selftest` runs them: the route probed once,
    schemas loaded once), against the bare runs' mean — target ≤ 1.3× bare.

Both ratios are printed with the isolation route the verdicts recorded.
"""

from __future__ import annotations

import argparse
import compileall
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


def _upstream(checkout: Path, scratch: Path) -> list[str]:
    """The argv of upstream's verify_cert.py on C001's witness, set up in `scratch`: its two
    scripts (from `checkout`) and C001, as its REPO_ROOT (the scripts' parent) expects."""
    scripts = scratch / "scripts"
    scripts.mkdir()
    for name in ("verify_cert.py", "conject_common.py"):
        found = checkout / "scripts" / name
        if not found.is_file():
            raise SystemExit(f"--upstream {checkout}: no scripts/{name} there")
        shutil.copy(found, scripts / name)
    shutil.copytree(PROBLEM, scratch / "Certificates" / "C001")
    submission = MANIFEST.relative_to(REPO).as_posix()
    return [sys.executable, str(scripts / "verify_cert.py"), "--submission", submission]


def cli_round(reps: int, upstream: Path | None) -> tuple[dict[str, list[float]], str]:
    """(a): interleaved processes, `reps` of each: seconds by name, and jig's route."""
    verify = [sys.executable, "-m", "jigcli", "verify", str(MANIFEST), "--json"]
    with tempfile.TemporaryDirectory(prefix="jig-bench-upstream-") as scratch:
        runs = {
            "bare": _bare(),
            "bare -S": _bare(("-S", "-B")),
            "start": [sys.executable, "-c", "pass"],
            "jig": verify,
        }
        if upstream is not None:
            runs["upstream"] = _upstream(upstream, Path(scratch))
        seconds: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(reps):
            for name, argv in runs.items():
                seconds[name].append(_timed(argv))
    route = json.loads(subprocess.run(verify, cwd=REPO, capture_output=True).stdout)["isolation"]
    return seconds, str(route)


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


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=_positive, default=15)
    parser.add_argument("--count", type=_positive, default=300)
    parser.add_argument("--upstream", type=Path, help="a checkout holding scripts/verify_cert.py")
    args = parser.parse_args()

    compileall.compile_dir(REPO / "jigcli", quiet=1)
    seconds, route = cli_round(args.reps, args.upstream)
    median = {name: statistics.median(values) for name, values in seconds.items()}
    b, c = median["bare"], median["jig"]
    print(f"(a) one process per certificate, median of {args.reps}, route {route}")
    print(f"    python -c pass (start-up)         {median['start'] * 1000:7.1f} ms")
    print(f"    bare python checker.py witness    {b * 1000:7.1f} ms")
    print(f"    bare python -S -B checker.py      {median['bare -S'] * 1000:7.1f} ms")
    print(f"    python -m jigcli verify --json    {c * 1000:7.1f} ms")
    ratio_a = c / b
    print(f"    ratio {ratio_a:.2f}x bare (target <= {TARGET_CLI}x)")
    if "upstream" in median:
        u = median["upstream"]
        print(f"    upstream verify_cert.py           {u * 1000:7.1f} ms ({u / b:.2f}x bare)")
        print(f"    jig / upstream {c / u:.2f}x")

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
