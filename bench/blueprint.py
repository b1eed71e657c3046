"""A blueprint at real size: `jig lean-check`, `jig audit` and `jig compile` on 250 statements.

    python bench/blueprint.py [--statements 250] [--reps 5] [--declarations 5000]

Generates, in a temporary folder, a Lake project with two libraries (`lakefile.toml`) whose
modules declare every name the blueprint uses, and a leanblueprint-style blueprint under
`blueprint/src/` (a `latexmkrc` naming xelatex, macro-declared theorem environments, chapters
of 25 statements, each with `\\lean`, `\\uses`, a proof with `\\leanok`). Then, medians over
`--reps` runs, each a real `jig` subprocess:

(a) `jig lean-check --json` with no Lean on PATH: reading the blueprint, pairing every name
    with its declaration across the project — statements/s;
(b) the same with the stand-in toolchain (tests/standin): one `lake build`, one `lean` run
    over the generated import-the-roots file — statements/s;
(c) `jig audit --json` (listing, nothing to judge) — statements/s;
(d) with xelatex and latexmk present: the blueprint's no-op rebuild, `latexmk` (with the
    options jig passes) against `jig compile` on two copies — target jig ≤ 1.5× latexmk;
(e) locating names in a Lake project of `--declarations` (default 5,000) theorems, in modules
    only the root's imports reach (Lake's default globs: the root alone): the import closure
    and every blueprint name's `path:line` (`jigcli.lean.index`), in-process, first run (an
    empty cache) against second run (the cache the first left, nothing changed) — target
    second ≤ 0.2× first; and the whole `jig lean-check --json` (no Lean) on a blueprint naming
    `--statements` of them, first and second run, for the picture around it.

The interpreter's own start-up (`python -c pass`) is measured in the same run, as the floor
every jig figure stands on.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_NO_OP = 1.5
TARGET_SECOND_RUN = 0.2
PER_MODULE = 50
MODULES_PER_HUB = 10
PER_CHAPTER = 25
REPO = Path(__file__).resolve().parent.parent
STANDIN = REPO / "tests" / "standin" / "bin"
LATEXMK = ["latexmk", "-norc", "-pdfxe", "-interaction=nonstopmode", "-file-line-error",
           "-synctex=1", "-no-shell-escape", "-recorder", "print.tex"]  # fmt: skip


def generate(root: Path, count: int) -> None:
    (root / "lean-toolchain").write_text("leanprover/lean4:v4.33.0\n")
    (root / "lakefile.toml").write_text(
        'name = "bench"\n[[lean_lib]]\nname = "Alpha"\nglobs = ["Alpha.+"]\n'
        '[[lean_lib]]\nname = "Beta"\nroots = ["Beta"]\nglobs = ["Beta.*"]\n'
    )
    chapters = (count + PER_CHAPTER - 1) // PER_CHAPTER
    for lib in ("Alpha", "Beta"):
        (root / lib).mkdir()
    (root / "Beta.lean").write_text("".join(f"import Beta.C{c}\n" for c in range(chapters)))
    src = root / "blueprint" / "src"
    (src / "chapter").mkdir(parents=True)
    (src / "latexmkrc").write_text(
        "$pdf_mode = 1;\n$pdflatex = 'xelatex -synctex=1';\n@default_files = ('print.tex');\n"
    )
    (src / "print.tex").write_text(
        "\\documentclass{report}\n\\usepackage{amssymb, amsthm}\n\\usepackage{fontspec}\n"
        "\\newtheorem{theorem}{Theorem}[chapter]\n"
        "\\newcommand{\\bpthm}[2]{\\newtheorem{#1}[theorem]{#2}}\n"
        "\\bpthm{lemma}{Lemma}\\bpthm{definition}{Definition}\n"
        "\\newcommand{\\lean}[1]{}\\newcommand{\\leanok}{}\\newcommand{\\uses}[1]{}\n"
        "\\title{Bench}\\author{jig}\\begin{document}\\maketitle\n"
        + "".join(f"\\input{{chapter/c{c}}}\n" for c in range(chapters))
        + "\\end{document}\n"
    )
    number = 0
    for c in range(chapters):
        lib = "Alpha" if c % 2 == 0 else "Beta"
        lean = [f"namespace {lib}.C{c}\n"]
        tex = [f"\\chapter{{Chapter {c}}}\n"]
        for _ in range(min(PER_CHAPTER, count - number)):
            name = f"{lib}.C{c}.fact{number}"
            kind = ("definition", "lemma", "theorem")[number % 3]
            uses = f"\\uses{{s{number - 1}}}" if number else ""
            tex.append(
                f"\\begin{{{kind}}}\\label{{s{number}}}\n  \\lean{{{name}}}\\leanok {uses}\n"
                f"  For all $n$, $n + {number} \\ge {number}$.\n\\end{{{kind}}}\n"
                f"\\begin{{proof}}\\leanok\n  By arithmetic.\n\\end{{proof}}\n"
            )
            lean.append(f"theorem fact{number} (n : Nat) : n + {number} ≥ {number} := by omega\n")
            number += 1
        lean.append(f"end {lib}.C{c}\n")
        (root / lib / f"C{c}.lean").write_text("".join(lean))
        (src / "chapter" / f"c{c}.tex").write_text("".join(tex))


def generate_closure(root: Path, declarations: int, named: int) -> list[str]:
    """A Lake project whose only library keeps Lake's defaults (root `Big`, glob `Big` alone):
    `Big.lean` imports hubs, each hub imports modules of `PER_MODULE` theorems. A blueprint
    under `blueprint/src/` names `named` of them, spread across the modules. Returns the
    names."""
    (root / "lean-toolchain").write_text("leanprover/lean4:v4.33.0\n")
    (root / "lakefile.toml").write_text('name = "big"\n[[lean_lib]]\nname = "Big"\n')
    modules = (declarations + PER_MODULE - 1) // PER_MODULE
    hubs = (modules + MODULES_PER_HUB - 1) // MODULES_PER_HUB
    (root / "Big").mkdir()
    (root / "Big.lean").write_text("".join(f"import Big.Hub{h}\n" for h in range(hubs)))
    for h in range(hubs):
        first = h * MODULES_PER_HUB
        last = min(first + MODULES_PER_HUB, modules)
        imports = [f"import Big.M{m}\n" for m in range(first, last)]
        (root / "Big" / f"Hub{h}.lean").write_text("".join(imports))
    names = []
    for m in range(modules):
        lines = [f"/-! Module {m}. -/\n\nnamespace Big.M{m}\n\n"]
        for j in range(min(PER_MODULE, declarations - m * PER_MODULE)):
            names.append(f"Big.M{m}.fact{j}")
            lines.append(
                f"/-- Fact {j} of module {m}. -/\n"
                f"theorem fact{j} (n : Nat) (h : 0 < n) : n + {j} > {j} := by\n"
                f"  have := h\n  omega\n\n"
            )
        lines.append(f"end Big.M{m}\n")
        (root / "Big" / f"M{m}.lean").write_text("".join(lines))
    step = max(1, len(names) // named)
    chosen = names[::step][:named]
    src = root / "blueprint" / "src"
    src.mkdir(parents=True)
    (src / "print.tex").write_text(
        "\\documentclass{report}\n\\usepackage{amsthm}\n\\newtheorem{theorem}{Theorem}\n"
        "\\newcommand{\\lean}[1]{}\\begin{document}\n"
        + "".join(
            f"\\begin{{theorem}}\\label{{t{i}}}\\lean{{{name}}}\n  A fact.\n\\end{{theorem}}\n"
            for i, name in enumerate(chosen)
        )
        + "\\end{document}\n"
    )
    return chosen


def index_runs(project: Path, names: list[str], cache: Path) -> float:
    """One index of `project` and one lookup of `names`, in-process, in seconds."""
    from jigcli.lean.index import index_project
    from jigcli.lean.lakefile import read_project

    started = time.perf_counter()
    found = index_project(read_project(project), cache_dir=cache).locate(names)
    elapsed = time.perf_counter() - started
    assert len(found) == len(names), (len(found), len(names))
    return elapsed


def closure_bench(scratch: Path, declarations: int, named: int, reps: int) -> None:
    project = scratch / "closure"
    project.mkdir()
    names = generate_closure(project, declarations, named)
    firsts, seconds = [], []
    for rep in range(reps):
        cache = scratch / f"index-cache-{rep}"
        firsts.append(index_runs(project, names, cache))
        seconds.append(index_runs(project, names, cache))
    first, second = statistics.median(firsts), statistics.median(seconds)
    ratio = second / first
    verdict = "ok" if ratio <= TARGET_SECOND_RUN else "MISSED"
    print(f"locating {len(names)} names among {declarations} declarations ({reps} reps, medians)")
    print(
        f"index + locate               first {first * 1000:6.0f} ms | second "
        f"{second * 1000:6.0f} ms  {ratio:4.2f}× | target ≤ {TARGET_SECOND_RUN}×: {verdict}"
    )
    src = project / "blueprint" / "src"
    env = {**os.environ, "NO_COLOR": "1", "PATH": "/usr/local/bin:/usr/bin:/bin"}
    whole_first, whole_second = [], []
    for rep in range(reps):
        env["JIG_CACHE_DIR"] = str(scratch / f"command-cache-{rep}")
        whole_first.append(timed([*jig(), "lean-check", "--json", "print.tex"], src, env)[0])
        whole_second.append(timed([*jig(), "lean-check", "--json", "print.tex"], src, env)[0])
    cold, warm = statistics.median(whole_first), statistics.median(whole_second)
    print(
        f"jig lean-check, no Lean      first {cold * 1000:6.0f} ms | second "
        f"{warm * 1000:6.0f} ms  {warm / cold:4.2f}× (reading the TeX and starting Python in both)"
    )


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1, 4):  # 4: not checked here (no Lean), not a failure
        raise SystemExit(f"{argv[:3]} failed ({done.returncode}): {done.stderr[-400:]}")
    return elapsed, done.stdout


def jig() -> list[str]:
    script = Path(sys.executable).parent / "jig"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "jigcli"]


def median(argv: list[str], cwd: Path, env: dict[str, str], reps: int) -> tuple[float, str]:
    runs = [timed(argv, cwd, env) for _ in range(reps)]
    return statistics.median(t for t, _ in runs), runs[-1][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--statements", type=int, default=250)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--declarations", type=int, default=5000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jig-bench-closure-") as scratch:
        closure_bench(Path(scratch), args.declarations, args.statements, args.reps)
    with tempfile.TemporaryDirectory(prefix="jig-bench-blueprint-") as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        generate(project, args.statements)
        src = project / "blueprint" / "src"
        base = {**os.environ, "JIG_CACHE_DIR": str(Path(scratch) / "cache"), "NO_COLOR": "1"}
        no_lean = {**base, "PATH": "/usr/local/bin:/usr/bin:/bin", "ELAN_HOME": scratch}
        standin = {**no_lean, "PATH": f"{STANDIN}{os.pathsep}{no_lean['PATH']}"}
        floor, _ = median([sys.executable, "-c", "pass"], src, base, args.reps)
        print(f"blueprint: {args.statements} statements, {args.reps} reps, medians")
        print(f"python start-up (the floor)  {floor * 1000:7.0f} ms")
        for title, argv, env in (
            ("lean-check, no Lean", [*jig(), "lean-check", "--json", "print.tex"], no_lean),
            ("lean-check, stand-in Lean", [*jig(), "lean-check", "--json", "print.tex"], standin),
            ("audit, listing", [*jig(), "audit", "--json", "print.tex"], no_lean),
        ):
            seconds, stdout = median(argv, src, env, args.reps)
            found = json.loads(stdout)
            rows = found.get("statements", found.get("pairs", []))
            assert len(rows) == args.statements, (title, len(rows))
            rate = args.statements / seconds
            print(f"{title:<28} {seconds * 1000:7.0f} ms  {rate:8.0f} statements/s")
        if shutil.which("latexmk") is None or shutil.which("xelatex") is None:
            print("no-op compile: skipped (needs latexmk and xelatex)")
            return
        copy = Path(scratch) / "copy"
        shutil.copytree(project, copy)
        timed(LATEXMK, copy / "blueprint" / "src", base)
        timed([*jig(), "compile", "print.tex"], src, base)
        mk, _ = median(LATEXMK, copy / "blueprint" / "src", base, args.reps)
        mine, _ = median([*jig(), "compile", "print.tex"], src, base, args.reps)
        ratio = mine / mk
        verdict = "ok" if ratio <= TARGET_NO_OP else "MISSED"
        print(
            f"no-op compile (xelatex)      latexmk {mk * 1000:5.0f} ms | jig {mine * 1000:5.0f} ms "
            f"{ratio:4.2f}× | target ≤ {TARGET_NO_OP}×: {verdict}"
        )


if __name__ == "__main__":
    main()
