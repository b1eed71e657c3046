"""The policy on its corpora (precision and recall), and its scan time against the scan of an
earlier revision measured in the same run, over the same texts.

    python bench/policy.py [--files N] [--seed S] [--repeat R] [--today REV]

Corpora: precision is the share of honest proofs accepted (`tests/data/lean/real/`, the
repo's `Commons/` and the example submissions not expected to be `forbidden_syntax`); recall
is the share of attacks refused by the rule each names (`tests/data/lean/attacks/`, each
`-- refused by: X` line) and of the examples expected to be `forbidden_syntax`. Targets:
precision ≥ 99%, recall 100%.

Speed: generates N realistic submissions (about 20 KB each on average: a copyright block,
imports, module docs, nested comments, docstrings, long tactic proofs with Mathlib notation, a
few strings and char literals), then times:

* words:    one `re.findall(r"\\S+", text)` per file (splitting into words, no judgement);
* today:    the scan of revision REV (default: the policy before issue 29), loaded from git;
* scan:     `jigcli.lean.policy.scan(text)` per file (lexing, imports, every construct);
* tokenize: `list(jigcli.lean.lexer.tokenize(text))` per file, for information (on every
  tenth file: it is the full token stream a declaration reader needs, not the scan's path).

The corpus is cut into chunks of 50 files; each chunk is timed under every piece of work in
turn, R times, and each piece keeps its best time per chunk. Interleaving this finely keeps
the ratios honest on a shared machine whose load changes while the benchmark runs.

Target: scan costs at most 2x today's scan. Prints MB/s, files/s and the ratios.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from jigcli.lean.lexer import tokenize
from jigcli.lean.policy import scan, scan_file

TARGET_RATIO = 2.0
TARGET_PRECISION = 0.99
CHUNK = 50
REPO = Path(__file__).resolve().parents[1]
LEAN = REPO / "tests" / "data" / "lean"
# The policy as it stood when issue 29 was taken up.
TODAY = "518fa5f"
REFUSED_BY = "-- refused by: "

IMPORTS = (
    "Mathlib.Data.Nat.Basic",
    "Mathlib.Algebra.BigOperators.Basic",
    "Mathlib.Analysis.SpecialFunctions.Pow.Real",
    "Mathlib.Data.Finset.Card",
    "Mathlib.Tactic.Ring",
    "Mathlib.Tactic.Linarith",
    "Mathlib.NumberTheory.Divisors",
    "Batteries.Data.List.Basic",
    "Commons.Basic",
    "Aesop",
)
NAMES = ("h", "hx", "hy", "h₁", "h₂", "hn", "hk", "ih", "hab", "h'", "hε", "hδ", "this")
VARS = ("n", "m", "k", "x", "y", "a", "b", "ε", "δ", "i", "j", "s", "t", "f", "g")
LEMMAS = (
    "Nat.succ_le_iff",
    "Nat.lt_irrefl",
    "Finset.sum_range_succ",
    "mul_comm",
    "add_assoc",
    "pow_two",
    "Nat.even_add_one",
    "abs_sub_lt_iff",
    "Real.sqrt_nonneg",
    "Finset.card_le_card",
    "le_of_lt",
    "Nat.dvd_sub'",
    "two_mul",
    "sub_nonneg",
    "div_le_iff₀",
)
TACTICS = (
    "simp only [{l1}, {l2}] at {h} ⊢",
    "rw [{l1}, ← {l2}]",
    "obtain ⟨{v}, {h}⟩ := {h2}",
    "exact ⟨{v}, by omega⟩",
    "have {h} : {v} ≤ {w} + 1 := by omega",
    "nlinarith [sq_nonneg ({v} - {w}), sq_nonneg ({v} + {w}), {h}]",
    "refine ⟨fun {v} => ?_, fun {w} => ?_⟩",
    "calc {v} * {w} = {w} * {v} := by ring\n    _ ≤ {w} * {v} + 1 := by linarith",
    "norm_num [{l1}] at {h}",
    "exact {l1}.trans ({l2} {h}).le",
    "rcases {h} with ⟨{v}, rfl⟩ | {h2}",
    "induction {v} with\n  | zero => simp\n  | succ {w} {h} => rw [{l1}]; omega",
    "apply {l1} <;> positivity",
    "field_simp",
    "decide",
    "linarith [{h}.1, {h2}.2]",
    "exact fun {v} h{w} => (Finset.sum_congr rfl fun i _ => by ring).trans ({h} i)",
    "show ∑ i ∈ Finset.range {v}, f i = ∑' j, g j",
    "exact {h} |>.trans <| le_of_eq {l1}",
    "simpa using {h}",
    "simp (config := {{ decide := true }}) [{l1}] at {h}",
    "exact {l1} (n := {v}) {h}",
    "have {h} : #s ≤ {v} + #t := by omega",
    "exact {h}.trans (le_of_eq ({l2} (m := {w})))",
)
COMMENTS = (
    "-- the interesting case: {v} is odd",
    "-- TODO: golf this with `omega`",
    "/- We split on the parity of {v}; /- nested note -/ both halves are routine. -/",
    "-- cf. Lemma 3.2 in the paper, with {v} ↦ {w}",
)


def _fill(rng: random.Random, template: str) -> str:
    return template.format(
        l1=rng.choice(LEMMAS),
        l2=rng.choice(LEMMAS),
        h=rng.choice(NAMES),
        h2=rng.choice(NAMES),
        v=rng.choice(VARS),
        w=rng.choice(VARS),
    )


def _theorem(rng: random.Random, index: int) -> str:
    v, w = rng.choice(VARS), rng.choice(VARS)
    lines = [
        f"/-- The {index}th auxiliary bound: for all `{v}`, `{v} * {w} ≤ {w} * {v} + 1`.",
        "This is used below with `n := 2`. -/",
        f"theorem aux_{index} ({v} {w} : ℕ) (h : {v} ≤ {w}) (h' : 0 < {w}) :",
        f"    {v} * {w} ≤ {w} * {v} + 1 := by",
    ]
    for _ in range(rng.randint(25, 70)):
        if rng.random() < 0.08:
            lines.append("  " + _fill(rng, rng.choice(COMMENTS)))
        lines.append("  " + _fill(rng, rng.choice(TACTICS)).replace("\n", "\n  "))
    if rng.random() < 0.2:
        lines.append('  trace "case split on {v}: \\"left\\" branch"')
    if rng.random() < 0.1:
        lines.append("  have hc : ('a' : Char).isLower := by decide")
    return "\n".join(lines)


def submission(rng: random.Random) -> str:
    parts = [
        "/-\nCopyright (c) 2025 A. Contributor. All rights reserved.\n"
        "Released under Apache 2.0 license as described in the file LICENSE.\n-/",
        "\n".join(f"import {m}" for m in rng.sample(IMPORTS, rng.randint(2, 6))),
        "/-!\n# Auxiliary bounds\n\nThe main theorem follows from the bounds below; see\n"
        "`aux_0` for the base case. The proofs avoid `native_decide` on purpose.\n-/",
        "open Finset BigOperators\n\nnamespace Submission",
    ]
    parts += [_theorem(rng, index) for index in range(rng.randint(4, 11))]
    parts.append("end Submission\n")
    return "\n\n".join(parts)


def _corpora() -> tuple[list[Path], list[Path]]:
    """(honest sources, attacks): the corpora, plus the repo's examples by their manifests."""
    honest = sorted((LEAN / "real").rglob("*.lean")) + sorted((REPO / "Commons").rglob("*.lean"))
    attacks = sorted((LEAN / "attacks").glob("*.lean"))
    for manifest in sorted((REPO / "Submissions").rglob("*.json")):
        reason = json.loads(manifest.read_text(encoding="utf-8")).get("expect_reason")
        (attacks if reason == "forbidden_syntax" else honest).append(manifest.with_suffix(".lean"))
    return honest, attacks


def _refused_as_named(path: Path) -> bool:
    found = {violation.construct for violation in scan_file(path)}
    lines = path.read_text(encoding="utf-8").splitlines()
    named = {line.removeprefix(REFUSED_BY) for line in lines if line.startswith(REFUSED_BY)}
    return bool(found) and named <= found


def _report_corpora() -> bool:
    honest, attacks = _corpora()
    refused_honest = [path for path in honest if scan_file(path)]
    missed = [path for path in attacks if not _refused_as_named(path)]
    precision = 1 - len(refused_honest) / len(honest)
    recall = 1 - len(missed) / len(attacks)
    accepted = len(honest) - len(refused_honest)
    refused = len(attacks) - len(missed)
    print(f"precision {precision:7.2%}  {accepted}/{len(honest)} honest sources accepted")
    print(f"          (target {TARGET_PRECISION:.0%})")
    print(f"recall    {recall:7.2%}  {refused}/{len(attacks)} attacks refused by the rule named")
    print("          (target 100%)")
    for path in refused_honest + missed:
        print(f"  wrong: {path.relative_to(REPO)}", file=sys.stderr)
    return precision >= TARGET_PRECISION and not missed


def _policy_at(revision: str) -> ModuleType | None:
    """The policy of `revision`, loaded from git as a package of its own: the `jigcli` tree of
    that revision, renamed `jigcli_then` (its data files beside its modules, as there)."""
    folder = Path(tempfile.mkdtemp(prefix="jig-policy-"))
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", revision, "jigcli"], capture_output=True, check=False
    )
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    package = folder / "jigcli_then"
    (folder / "jigcli").rename(package)
    for module in package.rglob("*.py"):
        source = module.read_text(encoding="utf-8")
        source = re.sub(r"\b(from|import) jigcli\b", r"\1 jigcli_then", source)
        module.write_text(source, encoding="utf-8")
    sys.path.insert(0, str(folder))
    return importlib.import_module("jigcli_then.lean.policy")


def _timed(texts: list[str], work: Callable[[str], object]) -> float:
    started = time.perf_counter()
    for text in texts:
        work(text)
    return time.perf_counter() - started


def _best(
    rounds: int, chunks: list[list[str]], works: dict[str, Callable[[str], object]]
) -> dict[str, float]:
    """Per piece of work, the sum over chunks of its best time on that chunk."""
    total = dict.fromkeys(works, 0.0)
    for chunk in chunks:
        best = dict.fromkeys(works, float("inf"))
        for _ in range(rounds):
            for label, work in works.items():
                best[label] = min(best[label], _timed(chunk, work))
        for label in works:
            total[label] += best[label]
    return total


def _report(label: str, seconds: float, texts: list[str], baseline: float) -> None:
    megabytes = sum(len(text.encode()) for text in texts) / 1e6
    rate = f"{megabytes / seconds:8.1f} MB/s {len(texts) / seconds:9.0f} files/s"
    print(f"{label:9} {seconds:7.3f} s {rate}  ratio {seconds / baseline:5.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--today", default=TODAY, help="the revision whose scan is the baseline")
    args = parser.parse_args()

    corpora_ok = _report_corpora()
    then = _policy_at(args.today)
    if then is None:
        print(f"cannot read the policy at {args.today} from git", file=sys.stderr)
        return 2

    rng = random.Random(args.seed)
    texts = [submission(rng) for _ in range(args.files)]
    megabytes = sum(len(t.encode()) for t in texts) / 1e6
    flagged = sum(1 for t in texts if scan(t))
    if flagged:
        print(f"warning: {flagged} generated submissions have violations", file=sys.stderr)

    words = re.compile(r"\S+").findall
    chunks = [texts[i : i + CHUNK] for i in range(0, len(texts), CHUNK)]
    times = _best(args.repeat, chunks, {"baseline": words, "today": then.scan, "scan": scan})
    sample = texts[::10]
    sampled = _best(
        args.repeat,
        [sample[i : i + CHUNK] for i in range(0, len(sample), CHUNK)],
        {"baseline": words, "tokenize": lambda text: list(tokenize(text))},
    )

    average = megabytes * 1e3 / len(texts)
    print(f"corpus    {len(texts)} files, {megabytes:.1f} MB, {average:.1f} KB avg")
    _report("words", times["baseline"], texts, times["baseline"])
    _report("today", times["today"], texts, times["baseline"])
    _report("scan", times["scan"], texts, times["baseline"])
    _report("tokenize", sampled["tokenize"], sample, sampled["baseline"])
    ratio = times["scan"] / times["today"]
    verdict = "meets" if ratio <= TARGET_RATIO else "misses"
    print(f"scan/today = {ratio:.2f}x, {verdict} the target of {TARGET_RATIO:.0f}x")
    return 0 if corpora_ok and ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main())
