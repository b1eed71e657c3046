"""The export reader's throughput (`jigcli.lean.export.read_export`) against a baseline
measured in the same run, over the same text.

    python bench/export.py [--expressions N] [--seed S] [--repeat R]

Generates an export in lean4export's format 3.1.0 of about N expressions (default 100,000),
shaped like a real one: a few hundred names, a few levels, expressions that are mostly
applications, constants and binders over earlier ones, and a declaration every few hundred
expressions. Then times, R times each, interleaved, keeping each one's best:

* baseline: `json.loads` of every line (parsing alone: no record checked);
* reader:   `read_export(data)` (UTF-8, the header, every record's kind, index and
  references, name and level depths);
* walks:    the reader, then the axioms and the term hash of the last theorem (each node
  once, no recursion), as the pipeline's evidence step does.

Target: the reader at most 1.5x the baseline's time (an absolute MB/s says more about the
machine than the reader). Prints MB/s for each and the ratios; exits 1 when it is missed.

    python bench/export.py --s001

Where a Lean toolchain and the Mathlib cache are present, also verifies every example of
`Submissions/S001/` and prints, per example, its verdict, the solution's closure size and the
seconds the trusted build, the challenge and comparator took; elsewhere it says why it cannot.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

from jigcli.lean import backend
from jigcli.lean.export import read_export
from jigcli.repo import Repo

# The reader may cost at most this many times parsing the same lines with `json.loads`.
TARGET_RATIO = 1.5
MODULE = "Bench.Generated"


def generate(expressions: int, seed: int) -> bytes:
    """An export of `MODULE` with about `expressions` expressions."""
    rng = random.Random(seed)
    lines: list[str] = []
    names, levels, exprs, records = 1, 1, 0, 0

    def emit(record: dict[str, object]) -> None:
        lines.append(json.dumps(record, separators=(",", ":"), sort_keys=True))

    for part in ("Bench", "Generated", "Nat", "add", "mul", "succ", "Eq", "u", "v", "x", "h"):
        emit({"in": names, "str": {"pre": rng.randrange(names), "str": part}})
        names += 1
    for index in range(300):
        emit({"in": names, "str": {"pre": 2, "str": f"lemma_{index}"}})
        names += 1
    emit({"il": levels, "param": 8})
    levels += 1
    emit({"il": levels, "succ": 1})
    levels += 1
    emit({"ie": exprs, "sort": 0})
    exprs += 1
    declared = 12
    while exprs < expressions:
        kind = rng.random()
        if kind < 0.15:
            record: dict[str, object] = {
                "const": {"name": rng.randrange(1, names), "us": [rng.randrange(levels)]}
            }
        elif kind < 0.7:
            record = {"app": {"fn": rng.randrange(exprs), "arg": rng.randrange(exprs)}}
        elif kind < 0.85:
            binder = rng.choice(("lam", "forallE"))
            record = {
                binder: {
                    "name": 10,
                    "type": rng.randrange(exprs),
                    "body": rng.randrange(exprs),
                    "binderInfo": rng.choice(("default", "implicit", "instImplicit")),
                }
            }
        elif kind < 0.95:
            record = {"bvar": rng.randrange(8)}
        else:
            record = {"natVal": str(rng.randrange(10**6))}
        emit({"ie": exprs, **record})
        exprs += 1
        if exprs % 400 == 0 and declared < names:
            body = {"name": declared, "levelParams": [8], "type": exprs - 2, "value": exprs - 1}
            emit({"thm": {**body, "all": [declared]}})
            declared += 1
            records += 1
    meta = {
        "meta": {
            "exporter": {"name": "bench", "version": "1"},
            "lean": {"githash": "", "version": "4.33.0"},
            "format": {"version": "3.1.0"},
        }
    }
    text = json.dumps(meta, separators=(",", ":")) + "\n" + "\n".join(lines) + "\n"
    return text.encode("utf-8")


def baseline(data: bytes) -> None:
    for line in data.decode("utf-8").split("\n")[:-1]:
        json.loads(line)


def reader(data: bytes) -> None:
    read_export(data)


def walks(data: bytes) -> None:
    export = read_export(data)
    last = list(export.constants)[-1]
    export.axioms_of(last)
    export.hash_of(last, set())


def best_times(data: bytes, repeat: int) -> dict[str, float]:
    work: dict[str, Callable[[bytes], None]] = {
        "baseline": baseline,
        "reader": reader,
        "walks": walks,
    }
    best = dict.fromkeys(work, float("inf"))
    for _ in range(repeat):
        for name, run in work.items():
            started = time.perf_counter()
            run(data)
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def s001(root: Path) -> None:
    """Each S001 example through the real pipeline: verdict, export size, step times."""
    from jigcli.verify.context import VerifyOptions
    from jigcli.verify.submission import verify

    repo = Repo(root)
    if backend.find_program("lake") is None or not backend.mathlib_cache(repo).is_dir():
        print("S001: no Lean toolchain and Mathlib cache here: sizes and times not measured")
        return
    for manifest in sorted((root / "Submissions" / "S001").glob("*.json")):
        verdict = verify(manifest, repo, VerifyOptions(timeout=1800))
        export = verdict.checks.get("export")
        size = export.detail.split()[0] if export and export.ok else "-"
        times = " ".join(
            f"{step} {verdict.timings_sec[step]:.1f}s"
            for step in ("trusted_build", "challenge", "comparator")
            if step in verdict.timings_sec
        )
        reason = verdict.reason or "ok"
        print(f"{manifest.stem:24} {verdict.verdict:5} {reason:18} {size:>7} constants  {times}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expressions", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--s001", action="store_true", help="also time the S001 examples")
    args = parser.parse_args()
    if args.s001:
        s001(Path(__file__).resolve().parent.parent)
    data = generate(args.expressions, args.seed)
    export = read_export(data)
    megabytes = len(data) / 1e6
    print(
        f"export: {megabytes:.1f} MB, {len(export.exprs)} expressions, {len(export.names)} "
        f"names, {len(export.constants)} declarations"
    )
    best = best_times(data, args.repeat)
    rates = {name: megabytes / seconds for name, seconds in best.items()}
    for name, seconds in best.items():
        print(f"{name:9} {seconds * 1000:8.1f} ms  {rates[name]:6.1f} MB/s")
    for name in ("reader", "walks"):
        print(f"{name} / baseline: {best[name] / best['baseline']:.2f}x the time")
    ratio = best["reader"] / best["baseline"]
    met = ratio <= TARGET_RATIO
    print(f"target: reader <= {TARGET_RATIO}x baseline: {'met' if met else 'MISSED'} ({ratio:.2f})")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
