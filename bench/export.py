"""The export reader's throughput (`jigcli.lean.export.check_export`) against a baseline
measured in the same run, over the same text.

    python bench/export.py [--expressions N] [--seed S] [--repeat R]

Generates an export in lean4export's format 3.1.0 of about N expressions (default 100,000),
shaped like a real one: a few hundred names, a few levels, expressions that are mostly
applications, constants and binders over earlier ones, and a declaration every few hundred
expressions. Then times, R times each, interleaved, keeping each one's best:

* baseline: `json.loads` of every line (parsing alone: no record checked);
* reader:   `check_export(data, module)` (UTF-8, the header, every record's kind, index and
  references, the declaration count).

Target: the reader at least 20 MB/s of export text (issue 17). Prints MB/s for both and the
ratio reader/baseline; exits 1 when the target is missed.

    python bench/export.py --s001

Where a Lean toolchain and the Mathlib cache are present, also verifies every example of
`Submissions/S001/` and prints, per example, its verdict, the export's size and the seconds
the build, the export and the judge took; elsewhere it says why it cannot.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from jigcli.lean import backend
from jigcli.lean.export import check_export
from jigcli.repo import Repo

TARGET_MB_PER_SEC = 20.0
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
            "jig": {"module": MODULE, "declarations": records},
        }
    }
    text = json.dumps(meta, separators=(",", ":")) + "\n" + "\n".join(lines) + "\n"
    return text.encode("utf-8")


def baseline(data: bytes) -> None:
    for line in data.decode("utf-8").split("\n")[:-1]:
        json.loads(line)


def reader(data: bytes) -> None:
    check_export(data, MODULE)


def best_times(data: bytes, repeat: int) -> dict[str, float]:
    work: dict[str, Callable[[bytes], None]] = {"baseline": baseline, "reader": reader}
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
        with tempfile.TemporaryDirectory() as work:
            verdict = verify(manifest, repo, VerifyOptions(timeout=1200, work_dir=Path(work)))
        export = verdict.checks.get("export")
        size = export.detail.rsplit("(", 1)[-1].split()[0] if export and export.ok else "-"
        times = " ".join(
            f"{step} {verdict.timings_sec[step]:.1f}s"
            for step in ("build", "export", "judge")
            if step in verdict.timings_sec
        )
        reason = verdict.reason or "ok"
        print(f"{manifest.stem:24} {verdict.verdict:5} {reason:18} {size:>9} B  {times}")


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
    export = check_export(data, MODULE)
    megabytes = len(data) / 1e6
    print(
        f"export: {megabytes:.1f} MB, {export.expressions} expressions, {export.names} names, "
        f"{len(export.declarations)} declarations"
    )
    best = best_times(data, args.repeat)
    rates = {name: megabytes / seconds for name, seconds in best.items()}
    for name, seconds in best.items():
        print(f"{name:9} {seconds * 1000:8.1f} ms  {rates[name]:6.1f} MB/s")
    ratio = best["reader"] / best["baseline"]
    print(f"reader / baseline: {ratio:.2f}x the time")
    met = rates["reader"] >= TARGET_MB_PER_SEC
    verdict = "met" if met else "MISSED"
    print(f"target: reader >= {TARGET_MB_PER_SEC:.0f} MB/s: {verdict} ({rates['reader']:.1f})")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
