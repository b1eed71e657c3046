"""A blueprint at real size: `jig lean-check`, `jig audit` and `jig compile` on 250 statements.

    python bench/blueprint.py [--statements 250] [--reps 5]

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
    options jig passes) against `jig compile` on two copies — target jig ≤ 1.5× latexmk.

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


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
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
    args = parser.parse_args()
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
