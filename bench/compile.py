"""`jig compile` against plain `latexmk` on the same paper, measured in one run.

    python bench/compile.py [--reps 7] [--sections 12]

Writes a paper (sections, theorems, equations, cross-references, a bibliography) into two
temporary folders, builds each once, then, over `--reps` interleaved repetitions (medians):

(a) a changed-source build: one sentence of the body changes, then `latexmk` (with exactly
    the options jig passes) builds one copy and `jig compile` the other — target ≤ 1.15×:
    jig's own cost (start-up, reading the log, hashing what the build read) must stay small
    next to TeX's;
(b) a no-op rebuild: nothing changed, `latexmk` decides so from its database and
    `jig compile` from its record of hashes, without starting TeX or latexmk — target ≤ 1.5×
    latexmk's own no-op.

`jig` is the console script beside this interpreter (not a shell shim in front of it). For
information, a third copy is built by `jigcli.commands.compile.run` called from a bare
`python -c` (the same work without the CLI layer), which shows how much of jig's time is
argument parsing. Then prints where the no-op's start-up goes (`python -X importtime`).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_CHANGED = 1.15
TARGET_NO_OP = 1.5
LATEXMK = [
    "latexmk",
    "-norc",
    "-pdf",
    "-interaction=nonstopmode",
    "-file-line-error",
    "-synctex=1",
    "-no-shell-escape",
    "-recorder",
    "paper.tex",
]


def paper(sections: int) -> str:
    body = [
        "\\documentclass{article}",
        "\\usepackage{amsmath,amssymb,amsthm}",
        "\\newtheorem{theorem}{Theorem}[section]",
        "\\newtheorem{lemma}[theorem]{Lemma}",
        "\\begin{document}",
        "\\title{A Benchmark Paper}\\author{jig}\\maketitle",
        "\\tableofcontents",
    ]
    for n in range(1, sections + 1):
        body += [
            f"\\section{{Section {n}}}\\label{{sec:{n}}}",
            f"Section {n} follows Section~\\ref{{sec:{max(1, n - 1)}}}, citing~\\cite{{ref{n}}}.",
            "Some prose to set: " + "the quick brown fox jumps over the lazy dog. " * 12,
            f"\\begin{{theorem}}\\label{{thm:{n}}}",
            f"For real $x$, $(1 - x) \\sum_{{k=0}}^{{{n}}} x^k = 1 - x^{{{n + 1}}}$.",
            "\\end{theorem}",
            "\\begin{proof}Telescoping: \\begin{align}",
            "(1-x)\\sum_{k=0}^{n} x^k &= \\sum_{k=0}^{n} x^k - \\sum_{k=1}^{n+1} x^k \\\\",
            "&= 1 - x^{n+1}. \\end{align} \\end{proof}",
            f"By Theorem~\\ref{{thm:{n}}} on page~\\pageref{{thm:{n}}} we are done.",
        ]
    body.append("\\begin{thebibliography}{99}")
    body += [
        f"\\bibitem{{ref{n}}} A. Author, \\emph{{Work {n}}}, {1990 + n}."
        for n in range(1, sections + 1)
    ]
    body += ["\\end{thebibliography}", "% EDIT", "\\end{document}", ""]
    return "\n".join(body)


def jig_command() -> list[str]:
    script = Path(sys.executable).parent / "jig"
    if script.is_file():
        return [str(script), "compile", "paper.tex"]
    return [sys.executable, "-m", "jigcli", "compile", "paper.tex"]


CORE = (
    "import sys; from pathlib import Path; from jigcli.commands.compile import run; "
    "sys.exit(run(Path('paper.tex'), as_json=False, watch=False, no_build=False, engine=None))"
)


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{argv[0]} failed ({done.returncode}): {done.stderr.decode()[-400:]}")
    return elapsed


def edit(folder: Path, n: int) -> None:
    source = folder / "paper.tex"
    text = source.read_text()
    source.write_text(text.replace("% EDIT", f"% EDIT\nOne more sentence, number {n}.", 1))


def heaviest_imports(folder: Path, count: int = 6) -> list[tuple[int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "jigcli", "compile", "paper.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        check=False,
    )
    rows: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            name = parts[2].rstrip()
            if not name.startswith("  "):  # top-level imports only (cumulative)
                rows.append((int(parts[1]), name.strip()))
    return sorted(rows, reverse=True)[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--sections", type=int, default=12)
    args = parser.parse_args()
    if shutil.which("latexmk") is None or shutil.which("pdflatex") is None:
        raise SystemExit("needs latexmk and pdflatex on PATH")
    runners = {
        "latexmk": LATEXMK,
        "jig": jig_command(),
        "jig core": [sys.executable, "-c", CORE],
    }
    changed: dict[str, list[float]] = {name: [] for name in runners}
    no_op: dict[str, list[float]] = {name: [] for name in runners}
    with tempfile.TemporaryDirectory(prefix="jig-bench-") as scratch:
        folders = {name: Path(scratch) / name.replace(" ", "-") for name in runners}
        for name, folder in folders.items():
            folder.mkdir()
            (folder / "paper.tex").write_text(paper(args.sections))
            timed(runners[name], folder)  # first builds settle .aux, .toc and the records
        for rep in range(args.reps):
            for name, argv in runners.items():
                edit(folders[name], rep)
                changed[name].append(timed(argv, folders[name]))
                no_op[name].append(timed(argv, folders[name]))

    def report(title: str, samples: dict[str, list[float]], target: float) -> None:
        base = statistics.median(samples["latexmk"])
        line = f"{title:<21} latexmk {base * 1000:6.0f} ms"
        for name in ("jig", "jig core"):
            mine = statistics.median(samples[name])
            line += f" | {name} {mine * 1000:6.0f} ms {mine / base:4.2f}×"
        ratio = statistics.median(samples["jig"]) / base
        print(line + f" | target jig ≤ {target}×: {'ok' if ratio <= target else 'MISSED'}")

    print(f"paper: {args.sections} sections, {args.reps} interleaved reps, medians")
    print(f"jig: {runners['jig'][0]}")
    report("changed-source build", changed, TARGET_CHANGED)
    report("no-op rebuild", no_op, TARGET_NO_OP)
    with tempfile.TemporaryDirectory(prefix="jig-bench-") as scratch:
        folder = Path(scratch)
        (folder / "paper.tex").write_text(paper(args.sections))
        timed(runners["jig"], folder)
        print("no-op start-up, heaviest top-level imports (cumulative µs):")
        for micros, name in heaviest_imports(folder):
            print(f"  {micros:8d}  {name}")


if __name__ == "__main__":
    main()
