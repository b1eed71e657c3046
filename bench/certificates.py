"""What verifying a certificate costs against running its checker bare, measured in one run.

    python bench/certificates.py [--reps 15] [--count 100] [--upstream DIR]

The checker is the repo's own C001 (three cubes summing to 42, Python big integers) on the
Booker–Sutherland witness. Baselines, each a real process of the same interpreter:

* bare:    `python checker.py witness` — how a poser would run the checker by hand;
* bare -S: the same with `-S -B`, the flags the sandbox runs checkers with, for information;
* start:   `python -c pass`, the interpreter's own start-up, which every process pays;
* upstream (with `--upstream DIR`, a checkout of WoshuaJolk/conject-lean or any repo whose
  `scripts/` holds its `verify_cert.py` and `conject_common.py`): that script on the same
  problem and witness, copied beside them in a scratch folder. It isolates far less (a
  network namespace, rlimits); nothing of it is vendored here.

Run it with a fresh venv's interpreter holding a regular install (`python -m venv V &&
V/bin/pip install . pyseccomp`): an interpreter whose site-packages hold many `.pth` files
pays tens of milliseconds in `site` on every start, which the bare and upstream baselines
pay and the sandboxed checker (`-S`) does not, flattering every ratio.

jig's package is byte-compiled first, as `pip install` leaves it: a checkout run under
PYTHONDONTWRITEBYTECODE would otherwise compile its sources on every run.

(a) one `jig verify MANIFEST --json` process per certificate (the installed `jig` script
    beside the interpreter, as a user runs it; `python -m jigcli` where there is none),
    interleaved with the other processes over `--reps` repetitions (medians) — target
    ≤ 1.15× upstream's `verify_cert.py` (with `--upstream`; measure on a regular,
    non-editable install): both pay the interpreter's start-up, which no per-process design
    avoids;
(b) `--count` certificates (default 100) in one `jig verify` process (`--jobs 1`): per
    certificate against the bare runs' median — target ≤ 1.3× bare; and in total against
    one upstream process per certificate — target ≥ 2.5× faster (with `--upstream`). For
    information, the floor beside it: jig's own bubblewrap command for one certificate run
    `--count` times without jig (no stage, cgroup, probe or verdict per run), against bare:
    what the sandbox itself costs, which no wrapper around it gets under;
(c) the same batch with `--jobs 2` against `--jobs 1` — target ≥ 1.7× faster, where two
    CPUs are free (skipped on one). For information, the ceiling beside it: that same
    bubblewrap command in two parallel streams against in sequence; what a machine's kernel
    allows two sandboxes at once, which no wrapper around them can beat.

Both ratios are printed with the isolation route the verdicts recorded.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parent.parent
PROBLEM = REPO / "Certificates" / "C001"
WITNESS = PROBLEM / "submissions" / "booker-sutherland.witness"
MANIFEST = PROBLEM / "submissions" / "booker-sutherland.json"
TARGET_VS_UPSTREAM = 1.15
TARGET_BATCH_VS_BARE = 1.3
TARGET_BATCH_VS_UPSTREAM = 2.5
TARGET_JOBS_2 = 1.7


def _timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=REPO, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{argv[:4]} failed ({done.returncode}): {done.stderr.decode()[-500:]}")
    return elapsed


def _jig() -> list[str]:
    """How a user starts jig: the `jig` script beside the interpreter (what `pip install`
    writes), else `python -m jigcli` (which pays runpy's import on top)."""
    script = Path(sys.executable).with_name("jig")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "jigcli"]


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
    verify = [*_jig(), "verify", str(MANIFEST), "--json"]
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


def batch_round(count: int, jobs: int) -> tuple[float, str]:
    """(b), (c): seconds of one `jig verify --jobs N --json` over `count` submissions of
    C001's green witness, and the routes its verdicts recorded."""
    with tempfile.TemporaryDirectory(prefix="jig-bench-") as folder:
        manifests = _make_repo(Path(folder), count)
        argv = [*_jig(), "verify", *map(str, manifests), "--json"]
        argv += ["--jobs", str(jobs)]
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=folder, capture_output=True, check=False)
        elapsed = time.perf_counter() - started
        if done.returncode != 0:
            raise SystemExit(f"the batch is not green ({done.returncode}): {done.stderr[-500:]!r}")
        verdicts = json.loads(done.stdout)["verdicts"]
    return elapsed, ", ".join(sorted({str(v.get("isolation")) for v in verdicts}))


class Bare(NamedTuple):
    """jig's own bubblewrap command for C001's checker, run without jig."""

    per_run: float  # seconds a run, in sequence
    two_streams: float  # how many times faster two parallel streams finish the same runs


def bwrap_alone(count: int) -> Bare | None:
    """(b) and (c), for information: jig's own bubblewrap command for C001's checker, run
    `count` times in sequence and in two parallel streams (see the module docstring); None
    where bubblewrap cannot run."""
    from jigcli.certificates import isolation
    from jigcli.certificates.spec import CertLimits
    from jigcli.sandbox import execute
    from jigcli.sandbox.environment import environment
    from jigcli.sandbox.routes import route_named

    route = route_named("bubblewrap")
    if route.unavailable() is not None:
        return None
    spec = json.loads((PROBLEM / "spec.json").read_text(encoding="utf-8"))
    limits = CertLimits.from_json(spec["limits"])
    checker = (PROBLEM / "checker.py").read_bytes()
    python = isolation.default_python()
    witness = WITNESS.read_bytes()
    job = isolation.checker_job(python, checker, witness, limits, limits.wall_sec, route.armed)
    with execute.staged(job) as stage:
        route.prepare(stage)
        argv = route.command(list(job.argv), job, stage, None)
        env = environment(route.scratch(stage), job.env)

        def runs(times: int) -> None:
            for _ in range(times):
                subprocess.run(argv, cwd=stage, env=env, capture_output=True, check=False)

        started = time.perf_counter()
        runs(count)
        in_sequence = time.perf_counter() - started
        streams = [threading.Thread(target=runs, args=(count // 2,)) for _ in range(2)]
        started = time.perf_counter()
        for stream in streams:
            stream.start()
        for stream in streams:
            stream.join()
        in_parallel = time.perf_counter() - started
    return Bare(in_sequence / count, in_sequence / in_parallel)


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=_positive, default=15)
    parser.add_argument("--count", type=_positive, default=100)
    parser.add_argument("--upstream", type=Path, help="a checkout holding scripts/verify_cert.py")
    args = parser.parse_args()

    compileall.compile_dir(REPO / "jigcli", quiet=1)
    seconds, route = cli_round(args.reps, args.upstream)
    median = {name: statistics.median(values) for name, values in seconds.items()}
    b, c = median["bare"], median["jig"]
    missed: list[str] = []
    print(f"(a) one process per certificate, median of {args.reps}, route {route}")
    print(f"    python -c pass (start-up)         {median['start'] * 1000:7.1f} ms")
    print(f"    bare python checker.py witness    {b * 1000:7.1f} ms")
    print(f"    bare python -S -B checker.py      {median['bare -S'] * 1000:7.1f} ms")
    label = "jig verify --json" if len(_jig()) == 1 else "python -m jigcli verify --json"
    print(f"    {label:<34}{c * 1000:7.1f} ms ({c / b:.2f}x bare)")
    u = median.get("upstream")
    if u is not None:
        print(f"    upstream verify_cert.py           {u * 1000:7.1f} ms ({u / b:.2f}x bare)")
        print(f"    jig / upstream {c / u:.2f}x (target <= {TARGET_VS_UPSTREAM}x)")
        if c / u > TARGET_VS_UPSTREAM:
            missed.append("(a)")
    else:
        print("    (pass --upstream DIR to measure against upstream's verify_cert.py)")

    one_job, routes = batch_round(args.count, 1)
    per = one_job / args.count
    print(f"(b) {args.count} certificates in one jig verify --jobs 1, route {routes}")
    print(f"    total {one_job:.2f} s, per certificate {per * 1000:.1f} ms")
    print(f"    {per / b:.2f}x bare per certificate (target <= {TARGET_BATCH_VS_BARE}x)")
    if per / b > TARGET_BATCH_VS_BARE:
        missed.append("(b) vs bare")
    if u is not None:
        faster = u * args.count / one_job
        print(
            f"    {faster:.2f}x faster than {args.count} upstream processes "
            f"(target >= {TARGET_BATCH_VS_UPSTREAM}x)"
        )
        if faster < TARGET_BATCH_VS_UPSTREAM:
            missed.append("(b) vs upstream")
    alone = bwrap_alone(args.count)
    if alone is not None:
        print(
            f"    jig's bubblewrap command alone: {alone.per_run * 1000:.1f} ms a run, "
            f"{alone.per_run / b:.2f}x bare (the floor under any wrapper); jig adds "
            f"{(per - alone.per_run) * 1000:.1f} ms a certificate"
        )

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if cpus >= 2:
        two_jobs, _ = batch_round(args.count, 2)
        speedup = one_job / two_jobs
        print(
            f"(c) --jobs 2: total {two_jobs:.2f} s, {speedup:.2f}x faster than --jobs 1 "
            f"(target >= {TARGET_JOBS_2}x, {cpus} CPUs here)"
        )
        if speedup < TARGET_JOBS_2:
            missed.append("(c)")
        if alone is not None:
            print(
                f"    jig's bubblewrap command alone, 2 streams: {alone.two_streams:.2f}x faster "
                f"than in sequence; jig reaches {speedup / alone.two_streams:.2f} of it"
            )
    else:
        print("(c) skipped: one CPU here")
    print("targets met" if not missed else f"targets missed: {', '.join(missed)}")
    return 0 if not missed else 1


if __name__ == "__main__":
    sys.exit(main())
