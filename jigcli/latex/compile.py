"""Building a LaTeX paper, safely, and saying what happened in the `compile` verifier's words.

1. The root document is built where it lies (outputs beside it) with latexmk when present,
   else with enough engine passes (and BibTeX) to settle references.
2. Shell escape is off, explicitly: `-no-shell-escape` for the engine, and `-norc` so latexmk
   reads no rc file — a `latexmkrc` in a collaborator's folder is Perl that latexmk would run,
   and could switch shell escape back on. TeX may write files only below the build folder
   (`openout_any=p`). The log is written unwrapped so file names and lines read whole.
3. The log becomes diagnostics (`jigcli.latex.log`) and a verdict: `compiled` (no error, no
   warning), `warning`, `error`. An engine that is missing, was killed or ran out of time is
   not a verdict: it is a failure, with the contract's words for why.
4. What the build read is recorded beside it (`jigcli.latex.state`): when none of it changed,
   the next build answers from the record and starts no process at all; `--no-build` says
   `stale` when something did.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jigcli.errors import UsageError
from jigcli.latex import state as build_state
from jigcli.latex.log import Diagnostic, LogReport, parse_log
from jigcli.verifiers.registry import Why

if TYPE_CHECKING:
    # The process runner (subprocess, selectors) is imported only when a build starts: a
    # rebuild with nothing changed never needs it, and its start-up is what users wait for.
    from jigcli.run import Deadline, RunResult

ENGINES = {"pdflatex": "-pdf", "xelatex": "-pdfxe", "lualatex": "-pdflua"}
DEFAULT_ENGINE = "pdflatex"
BUILD_TIMEOUT_SEC = 300.0
MAX_ENGINE_PASSES = 5
ENGINE_OPTIONS = (
    "-interaction=nonstopmode",
    "-file-line-error",
    "-synctex=1",
    "-no-shell-escape",
    "-recorder",
)
# kpathsea settings that must not come from the caller's environment.
_UNSAFE_ENV = ("shell_escape", "shell_escape_commands", "openout_any")
_MAGIC_PROGRAM = re.compile(r"^%\s*!\s*TeX\s+(?:TS-)?program\s*=\s*(\w+)", re.IGNORECASE)
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|\(rerunfilecheck\).*Rerun")


@dataclass(frozen=True)
class Failure:
    """A build that could not answer: not a verdict."""

    why: Why
    detail: str  # one line: what happened


@dataclass
class BuildResult:
    root: Path
    engine: str  # the engine asked for: pdflatex | xelatex | lualatex
    verdict: str | None  # compiled | warning | error | stale; None when it failed
    diagnostics: list[Diagnostic] = field(default_factory=list)
    engine_words: str | None = None  # "pdfTeX · TeX Live 2022", from the log banner
    pdf: Path | None = None
    failure: Failure | None = None
    started_process: bool = False  # False when the answer came from the last build's record
    changed: list[str] = field(default_factory=list)  # for `stale`: what changed

    @property
    def log(self) -> Path:
        return self.root.with_suffix(".log")


def choose_engine(root: Path, requested: str | None) -> str:
    """`--engine` when given, else a `% !TEX program = …` line at the top of the root."""
    if requested is not None:
        if requested not in ENGINES:
            raise UsageError(f"Unknown engine {requested!r}; pass --engine {', '.join(ENGINES)}.")
        return requested
    try:
        with root.open(encoding="utf-8", errors="replace") as handle:
            head = [handle.readline() for _ in range(20)]
    except OSError:
        return DEFAULT_ENGINE
    for line in head:
        match = _MAGIC_PROGRAM.match(line.strip())
        if match and match.group(1).lower() in ENGINES:
            return match.group(1).lower()
    return DEFAULT_ENGINE


def up_to_date(root: Path, engine: str) -> build_state.State | None:
    """The last build's record when nothing it read has changed since, else None.

    A build that missed a file never counts as up to date: that file may exist now.
    """
    last = build_state.load(root)
    if last is None or last.engine != engine or last.result.missing_files or last.changes():
        return None
    return last


def build(root: Path, engine: str, *, timeout: float = BUILD_TIMEOUT_SEC) -> BuildResult:
    """Build `root` unless nothing it read changed since the last build, then say how it went."""
    last = up_to_date(root, engine)
    if last is not None:
        return from_record(root, last)
    return _build_now(root, engine, timeout)


def check(root: Path, engine: str) -> BuildResult:
    """`--no-build`: the last build's result while its sources are unchanged, else `stale`."""
    last = build_state.load(root)
    if last is None or last.engine != engine:
        return BuildResult(root, engine, "stale", changed=["(no build with this engine yet)"])
    changed = last.changes()
    if changed:
        return BuildResult(root, engine, "stale", changed=changed)
    return from_record(root, last)


def from_record(root: Path, last: build_state.State) -> BuildResult:
    """The result a build kept beside it, as if it had just run."""
    pdf = root.with_suffix(".pdf")
    return BuildResult(
        root,
        last.engine,
        last.result.verdict,
        diagnostics=last.result.diagnostics,
        engine_words=last.result.engine_words,
        pdf=pdf if last.result.pdf and pdf.is_file() else None,
    )


def _build_now(root: Path, engine: str, timeout: float) -> BuildResult:
    from jigcli.run import Deadline, ProgramMissing

    started_ns = time.time_ns()
    deadline = Deadline(timeout)
    if shutil.which(engine) is None:
        return _failed(root, engine, "not_set_up", f"{engine} is not on PATH")
    try:
        if shutil.which("latexmk") is not None:
            outcome = _latexmk(root, engine, deadline)
        else:
            outcome = _engine_passes(root, engine, deadline)
    except ProgramMissing as missing:
        return _failed(root, engine, "not_set_up", f"{missing.program} is not on PATH")
    failure = _infrastructure_failure(outcome, timeout)
    log = root.with_suffix(".log")
    if failure is None and not log.is_file():
        failure = Failure("unreachable", f"{engine} wrote no log: {_last_line(outcome)}")
    if failure is not None:
        build_state.forget(root)
        return BuildResult(root, engine, None, failure=failure, started_process=True)
    log_text = log.read_text(encoding="utf-8", errors="replace")
    report = parse_log(log_text, root.parent)
    result = _verdict(root, engine, report, log_text)
    build_state.record(
        root,
        engine,
        build_state.Recorded(
            verdict=result.verdict or "error",
            diagnostics=result.diagnostics,
            engine_words=result.engine_words,
            pdf=result.pdf is not None,
            missing_files=report.missing_files,
        ),
        started_ns=started_ns,
    )
    return result


def _verdict(root: Path, engine: str, report: LogReport, log_text: str) -> BuildResult:
    diagnostics = list(report.diagnostics)
    pdf = root.with_suffix(".pdf")
    wrote_pdf = pdf.is_file() and "no output PDF file produced" not in log_text
    if not wrote_pdf and "No pages of output" in log_text and not report.errors:
        diagnostics.append(
            Diagnostic(root.name, None, "warning", "No pages of output: the PDF is empty.")
        )
    if any(d.severity == "error" for d in diagnostics):
        verdict = "error"
    elif any(d.severity == "warning" for d in diagnostics):
        verdict = "warning"
    else:
        verdict = "compiled"
    return BuildResult(
        root,
        engine,
        verdict,
        diagnostics=diagnostics,
        engine_words=report.engine,
        pdf=pdf if wrote_pdf else None,
        started_process=True,
    )


def _failed(root: Path, engine: str, why: Why, detail: str) -> BuildResult:
    return BuildResult(root, engine, None, failure=Failure(why, detail))


def _infrastructure_failure(outcome: RunResult, timeout: float) -> Failure | None:
    if outcome.timed_out:
        return Failure("too_big", f"the build ran past its {timeout:g} s limit and was stopped")
    if outcome.signal is not None:
        return Failure("unreachable", f"the build was killed (signal {outcome.signal})")
    if outcome.truncated:
        return Failure("too_big", "the build printed more output than jig keeps and was stopped")
    return None


def _last_line(outcome: RunResult) -> str:
    lines = [line for line in outcome.output.splitlines() if line.strip()]
    return lines[-1].strip() if lines else f"exit code {outcome.returncode}"


def tex_environment() -> dict[str, str]:
    """The caller's environment, minus what could re-enable shell escape, plus an unwrapped log."""
    env = {k: v for k, v in os.environ.items() if k not in _UNSAFE_ENV}
    env.update(
        max_print_line="10000",
        error_line="254",
        half_error_line="238",
        openout_any="p",
    )
    return env


def _latexmk(root: Path, engine: str, deadline: Deadline) -> RunResult:
    from jigcli.run import run

    argv = ["latexmk", "-norc", ENGINES[engine], *ENGINE_OPTIONS, root.name]
    return run(argv, cwd=root.parent, env=tex_environment(), timeout=deadline.remaining())


def _engine_passes(root: Path, engine: str, deadline: Deadline) -> RunResult:
    """No latexmk: run the engine until references settle, BibTeX once when the paper cites."""
    from jigcli.run import run

    argv = [engine, *ENGINE_OPTIONS, root.name]
    env = tex_environment()
    outcome = run(argv, cwd=root.parent, env=env, timeout=deadline.remaining())
    ran_bibtex = False
    for _ in range(MAX_ENGINE_PASSES - 1):
        if _infrastructure_failure(outcome, deadline.seconds) or _fatal(root):
            break
        if not ran_bibtex and _cites(root) and shutil.which("bibtex") is not None:
            ran_bibtex = True
            bib = run(["bibtex", root.stem], cwd=root.parent, env=env, timeout=deadline.remaining())
            if _infrastructure_failure(bib, deadline.seconds):
                return bib
        elif not _asks_rerun(root):
            break
        outcome = run(argv, cwd=root.parent, env=env, timeout=deadline.remaining())
    return outcome


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _fatal(root: Path) -> bool:
    return "no output PDF file produced" in _read(root.with_suffix(".log"))


def _cites(root: Path) -> bool:
    return "\\bibdata{" in _read(root.with_suffix(".aux"))


def _asks_rerun(root: Path) -> bool:
    return _RERUN.search(_read(root.with_suffix(".log"))) is not None


# -- what this machine has, for `jig doctor` ---------------------------------------------------

_VERSION_ARGS = {"latexmk": "-v", "pdflatex": "--version", "xelatex": "--version",
                 "lualatex": "--version", "bibtex": "--version"}  # fmt: skip


def describe() -> dict[str, Any]:
    """The TeX programs found on PATH and their versions (each asked, briefly)."""
    programs: dict[str, Any] = {}
    for name, flag in _VERSION_ARGS.items():
        path = shutil.which(name)
        programs[name] = {"path": path, "version": _version(path, flag) if path else None}
    return {
        "builder": "latexmk" if programs["latexmk"]["path"] else "engine passes",
        "programs": programs,
        "ready": programs["pdflatex"]["path"] is not None,
    }


def _version(path: str, flag: str) -> str | None:
    from jigcli.run import ProgramMissing, run

    try:
        outcome = run([path, flag], timeout=10, env=tex_environment())
    except ProgramMissing:
        return None
    for line in outcome.output.splitlines():
        if line.strip() and not line.startswith("Latexmk: "):
            return line.strip()
    return None
