"""Building a LaTeX paper, safely, and saying what happened in the `compile` verifier's words.

1. The engine: `--engine` when given (and remembered for the paper; `--engine auto` forgets
   it), else the one remembered while the paper's own declaration is unchanged since it was
   given, else a `% !TEX program = …` line, else the folder's `latexmkrc` (read as data, never run:
   `jigcli.latex.latexmkrc`), else what the preamble needs (fontspec, polyglossia,
   unicode-math: xelatex; `\\directlua`, luacode: lualatex), else pdflatex.
2. The root document is built where it lies (outputs beside it) with latexmk when present,
   else with enough engine passes (and BibTeX) to settle references.
3. Shell escape is off, explicitly: `-no-shell-escape` for the engine, and `-norc` so latexmk
   reads no rc file — a `latexmkrc` in a collaborator's folder is Perl that latexmk would run,
   and could switch shell escape back on. TeX may read and write files only in the paper's
   folder and below, and read TeX's own (`openin_any=p`, `openout_any=p`: no absolute path, no
   `..`, no dot file); a refused read or write is an error that says so. LuaLaTeX, whose Lua
   reaches files no kpathsea setting governs, runs only confined (`jigcli.latex.confine`):
   in bubblewrap, the paper read-only, its outputs written to jig's own build folder and copied
   back; where bubblewrap cannot run, the build is refused. The log is written unwrapped so file
   names and lines read whole.
4. The log becomes diagnostics (`jigcli.latex.log`) and a verdict: `compiled` (no error, no
   warning), `warning`, `error`. An engine that is missing, was killed or ran out of time is
   not a verdict: it is a failure, with the contract's words for why.
5. What the build read is recorded (`jigcli.latex.state`): when none of it changed,
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
from jigcli.latex.diagnostic import Diagnostic, file_name

if TYPE_CHECKING:
    # The process runner (subprocess, selectors) is imported only when a build starts: a
    # rebuild with nothing changed never needs it, and its start-up is what users wait for.
    from jigcli.latex.log import LogReport
    from jigcli.process import Deadline, RunResult
    from jigcli.verifiers.contract import Why  # the contract's reasons a build can fail for

ENGINES = {"pdflatex": "-pdf", "xelatex": "-pdfxe", "lualatex": "-pdflua"}
DEFAULT_ENGINE = "pdflatex"
CONFINED = frozenset({"lualatex"})  # engines that run the paper's code beyond kpathsea's reach
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
_UNSAFE_ENV = ("shell_escape", "shell_escape_commands", "openout_any", "openin_any")
_KPATHSEA = {"openout_any": "p", "openin_any": "p", "shell_escape": "f"}
_UNWRAPPED_LOG = {"max_print_line": "10000", "error_line": "254", "half_error_line": "238"}
_MAGIC_PROGRAM = re.compile(r"^%\s*!\s*TeX\s+(?:TS-)?program\s*=\s*(\w+)", re.IGNORECASE)
# Packages that need an engine beyond pdfTeX: the first that matches in the preamble decides.
_NEEDS_ENGINE = (
    (
        re.compile(
            r"\\directlua|\\usepackage(?:\[[^\]]*\])?\{[^}]*\b(?:luacode|luatexja|lua-ul)\b"
        ),
        "lualatex",
    ),
    (
        re.compile(
            r"\\usepackage(?:\[[^\]]*\])?\{[^}]*\b(?:fontspec|polyglossia|unicode-math|xeCJK|xltxtra)\b"
        ),
        "xelatex",
    ),
)
_PREAMBLE_DEPTH = 2
_NOT_OPENED = re.compile(r"(?P<what>File|I can't write on file) `(?P<name>[^']+)'")
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|\(rerunfilecheck\).*Rerun")


@dataclass(frozen=True)
class Failure:
    """A build that could not answer: not a verdict."""

    why: Why
    detail: str  # one line: what happened


@dataclass(frozen=True)
class EngineChoice:
    engine: str  # pdflatex | xelatex | lualatex
    source: str  # why this one: "--engine", "remembered", "% !TEX program", "latexmkrc", …


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
    engine_from: str = ""  # why this engine (`EngineChoice.source`), set by the command
    changed: list[str] = field(default_factory=list)  # for `stale`: what changed

    @property
    def log(self) -> Path:
        return self.root.with_suffix(".log")


AUTO = "auto"  # `--engine auto`: forget a remembered engine and choose as if none was asked


def choose_engine(root: Path, requested: str | None) -> EngineChoice:
    """The engine to build `root` with, and where that choice comes from (step 1 above).

    A remembered `--engine` holds only while what the paper declares (`% !TEX program`, its
    latexmkrc's engine) is what it declared when that engine was asked for: an author who
    edits the declaration afterwards means the new one."""
    if requested is not None:
        if requested == AUTO:
            build_state.forget_engine(root)
            return _from_project(root)
        if requested not in ENGINES:
            raise UsageError(
                f"Unknown engine {requested!r}; pass --engine {', '.join(ENGINES)} or {AUTO}."
            )
        build_state.remember_engine(root, requested, _declared(root))
        return EngineChoice(requested, "--engine")
    remembered = build_state.remembered_engine(root)
    if remembered is not None and remembered[0] in ENGINES:
        engine, declared_then = remembered
        if _declared(root) == declared_then:
            return EngineChoice(engine, "remembered from an earlier --engine")
        build_state.forget_engine(root)  # the paper's own declaration changed since: it wins
    return _from_project(root)


def _from_project(root: Path) -> EngineChoice:
    from_project = _magic_program(root) or _latexmkrc_engine(root) or _preamble_engine(root)
    return from_project or EngineChoice(DEFAULT_ENGINE, "the default")


def _declared(root: Path) -> str:
    """What the paper itself says its engine is (`% !TEX program`, then latexmkrc), as one
    string to compare: empty when it says nothing."""
    said = [choice for choice in (_magic_program(root), _latexmkrc_engine(root)) if choice]
    return " ".join(f"{choice.source}={choice.engine}" for choice in said)


def _magic_program(root: Path) -> EngineChoice | None:
    try:
        with root.open(encoding="utf-8", errors="replace") as handle:
            head = [handle.readline() for _ in range(20)]
    except OSError:
        return None
    for line in head:
        match = _MAGIC_PROGRAM.match(line.strip())
        if match and match.group(1).lower() in ENGINES:
            return EngineChoice(match.group(1).lower(), "% !TEX program")
    return None


def _latexmkrc_engine(root: Path) -> EngineChoice | None:
    from jigcli.latex import latexmkrc

    rc = latexmkrc.read(root.parent)
    if rc is None or rc.engine is None:
        return None
    return EngineChoice(rc.engine, rc.path.name)


def _preamble_engine(root: Path) -> EngineChoice | None:
    """The engine the preamble's packages need, read from the root and the files it inputs."""
    from jigcli.latex.root import inclusions, strip_comments

    todo, seen = [(root, 0)], set()
    while todo:
        path, depth = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        try:
            text = strip_comments(path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            continue
        preamble = text.split("\\begin{document}", 1)[0]
        for pattern, engine in _NEEDS_ENGINE:
            found = pattern.search(preamble)
            if found:
                needs = found.group().split("{")[-1].lstrip("\\")
                return EngineChoice(engine, f"the paper uses {needs}")
        if depth < _PREAMBLE_DEPTH:
            todo += [(i.target, depth + 1) for i in inclusions(path, root.parent) if i.target]
    return None


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
    from jigcli.latex.log import parse_log
    from jigcli.process import Deadline, ProgramMissing
    from jigcli.sandbox.job import SetupFailed

    started_ns = time.time_ns()
    deadline = Deadline(timeout)
    if shutil.which(engine) is None:
        return _failed(root, engine, "not_set_up", f"{engine} is not on PATH")
    from jigcli.latex import confine

    out = None
    if engine in CONFINED:
        why = confine.unavailable()
        if why is not None:
            return _failed(root, engine, "refused", _unconfined(engine, why))
        out = _fresh_build_folder(root)
    else:
        links = confine.links_out(root.parent)
        if links:
            return _failed(root, engine, "refused", _linked_out(root, *links[0]))
    tex = _Tex(root, out, deadline)
    try:
        if shutil.which("latexmk") is not None:
            outcome = _latexmk(tex, engine, force=_engine_changed(root, engine))
        else:
            outcome = _engine_passes(tex, engine)
    except ProgramMissing as missing:
        return _failed(root, engine, "not_set_up", f"{missing.program} is not on PATH")
    except SetupFailed as failed:  # only a confined build sets up a sandbox
        return _failed(root, engine, "refused", _sandbox_refused(engine, str(failed)))
    if out is not None:
        confine.copy_back(out, root)
    failure = _infrastructure_failure(outcome, timeout)
    log = root.with_suffix(".log")
    if failure is None and not log.is_file():
        failure = Failure("unreachable", f"{engine} wrote no log: {_last_line(outcome)}")
    if failure is not None:
        build_state.forget(root)
        return BuildResult(root, engine, None, failure=failure, started_process=True)
    log_text = log.read_text(encoding="utf-8", errors="replace")
    report = parse_log(log_text, root.parent)
    report.diagnostics = _refusals(root, outcome.output, report.diagnostics)
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
        out=out,
    )
    return result


def _linked_out(root: Path, link: Path, target: str) -> str:
    shown = file_name(link, root.parent)
    return (
        f"{shown} is a link to {target}, outside the paper's folder, and TeX would read or "
        "write through it: remove the link, or copy the file into the folder"
    )


def _unconfined(engine: str, why: str) -> str:
    return (
        f"{engine} runs the paper's Lua, which can read and write any file, so jig runs it only "
        f"inside bubblewrap, and {why}: install bubblewrap, or build with --engine xelatex"
    )


def _sandbox_refused(engine: str, why: str) -> str:
    return (
        f"{engine} runs the paper's Lua, which can read and write any file, so jig runs it only "
        f"inside bubblewrap, which refused this build ({why}): move the paper into a folder of "
        "its own, or build with --engine xelatex"
    )


def _fresh_build_folder(root: Path) -> Path:
    """The confined build's output folder, with the subfolders `\\include`d files write their
    `.aux` into (TeX creates no folder)."""
    from jigcli.latex.root import source_files

    out = build_state.build_folder(root)
    out.mkdir(parents=True, exist_ok=True)
    for source in source_files(root):
        if source.is_relative_to(root.parent):
            (out / source.parent.relative_to(root.parent)).mkdir(parents=True, exist_ok=True)
    return out


def _refusals(root: Path, output: str, said: list[Diagnostic]) -> list[Diagnostic]:
    """What kpathsea kept TeX from reading or writing, said as the error it is, on the line of
    the source that names the file, and the log's own "not found" for it left out (the refusal
    is why). The engine says so on its terminal only (its log just says the file was not
    found), and latexmk may not rerun it: a name outside the folder that the log could not open
    counts too. One error per file as the source names it: graphicx asks for `fig` as
    `fig.pdf`, `fig.png`, … (14 names), and those are one refusal."""
    from jigcli.latex.log import refused_files
    from jigcli.latex.root import outside_folder, source_files

    refused = dict.fromkeys(refused_files(output))
    explained: set[int] = set()
    for index, diagnostic in enumerate(said):
        found = _NOT_OPENED.search(diagnostic.message)
        if found and outside_folder(found.group("name")):
            verb = "reading" if found.group("what") == "File" else "writing"
            refused.setdefault((verb, found.group("name").removesuffix(".tex")), None)
            explained.add(index)
    diagnostics = []
    for (verb, name), tried in _by_name_as_written(list(refused)).items():
        file, line = _naming(source_files(root), root.parent, name)
        what = "read" if verb == "reading" else "write"
        allowed = "files in its own folder and TeX's own" if what == "read" else "in its own folder"
        also = f" (nor as {_listed(tried)}: TeX tried each)" if tried else ""
        message = (
            f"TeX may not {what} {name}{also}: jig lets a paper {what} only {allowed} "
            "(no absolute path, no ..)"
        )
        diagnostics.append(Diagnostic(file, line, "error", message))
    return diagnostics + [d for i, d in enumerate(said) if i not in explained]


def _listed(extensions: list[str]) -> str:
    shown = ", ".join(extensions[:3])
    return f"{shown} and {len(extensions) - 3} more" if len(extensions) > 3 else shown


def _by_name_as_written(refused: list[tuple[str, str]]) -> dict[tuple[str, str], list[str]]:
    """The refused names grouped by the name without its extension when another refused name
    shares it (`../fig` and `../fig.pdf`, `../fig.png`): that name → the extensions tried."""
    stems: dict[tuple[str, str], list[str]] = {}
    for verb, name in refused:
        stem, dot, extension = name.rpartition(".")
        key = (verb, stem) if dot and "/" not in extension and stem else (verb, name)
        stems.setdefault(key, []).append(name)
    grouped: dict[tuple[str, str], list[str]] = {}
    for (verb, stem), names in stems.items():
        if len(names) == 1:
            grouped[(verb, names[0])] = []
        else:
            grouped[(verb, stem)] = ["." + n.rpartition(".")[2] for n in names if n != stem]
    return grouped


def _naming(sources: list[Path], folder: Path, name: str) -> tuple[str, int | None]:
    """The first source line that names `name` (as written, or without its `.tex`)."""
    stem = name.removesuffix(".tex")
    for source in sources:
        try:
            lines = source.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        for number, text in enumerate(lines, start=1):
            if stem in text:
                return file_name(source, folder), number
    return file_name(sources[0], folder), None


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
    """The caller's environment, minus what could re-enable shell escape or widen file access,
    plus an unwrapped log."""
    env = {k: v for k, v in os.environ.items() if k not in _UNSAFE_ENV}
    env.update(_UNWRAPPED_LOG, **_KPATHSEA)
    return env


def confined_environment(source: Path, out: Path) -> dict[str, str]:
    """A confined build's whole environment, made from scratch: the caller's is not passed in.
    BibTeX runs in the build folder and finds the paper's `.bib` files in its folder."""
    folders = ["/usr/local/bin", "/usr/bin", "/bin"]
    return {
        "PATH": os.pathsep.join(folders),
        "HOME": str(out),
        "TEXMFVAR": str(out / "texmf-var"),
        "BIBINPUTS": f"{source}{os.pathsep}",
        "LANG": "C.UTF-8",
        **_UNWRAPPED_LOG,
        **_KPATHSEA,
    }


@dataclass(frozen=True)
class _Tex:
    """One build's place: the root, a confined build's output folder (None: beside the
    root, unconfined), and its deadline."""

    root: Path
    out: Path | None
    deadline: Deadline

    @property
    def outputs(self) -> Path:
        return self.out or self.root.parent

    def invoke(self, argv: list[str], *, cwd: Path | None = None) -> RunResult:
        """`argv` run for this build: beside the root, or confined (`jigcli.latex.confine`)."""
        from jigcli.process import run_bounded

        if self.out is None:
            return run_bounded(
                argv, cwd=cwd or self.root.parent, env=tex_environment(),
                timeout=self.deadline.remaining(),
            )  # fmt: skip
        from jigcli.latex import confine

        job = confine.tex_job(
            argv, source=self.root.parent, out=self.out,
            env=confined_environment(self.root.parent, self.out),
            wall_sec=self.deadline.remaining(), chdir=cwd,
        )  # fmt: skip
        return confine.run_confined(job)


def _engine_changed(root: Path, engine: str) -> bool:
    """Whether the PDF beside the paper may be another engine's: the last build jig recorded
    used another, or jig has no record (the author's own latexmk may have used any)."""
    last = build_state.load(root)
    return last is None or last.engine != engine


def _latexmk(tex: _Tex, engine: str, *, force: bool) -> RunResult:
    """latexmk, told with `-g` to build even when its own record says the PDF is current:
    that record is of whatever engine ran last in the folder (a confined build copies its
    PDF back beside an older pdflatex record), not of the engine asked for now."""
    outdir = [f"-outdir={tex.out}"] if tex.out is not None else []
    again = ["-g"] if force else []
    return tex.invoke(
        ["latexmk", "-norc", ENGINES[engine], *again, *outdir, *ENGINE_OPTIONS, tex.root.name]
    )


def _engine_passes(tex: _Tex, engine: str) -> RunResult:
    """No latexmk: run the engine until references settle, BibTeX once when the paper cites."""
    outdir = [f"-output-directory={tex.out}"] if tex.out is not None else []
    argv = [engine, *ENGINE_OPTIONS, *outdir, tex.root.name]
    outcome = tex.invoke(argv)
    ran_bibtex = False
    for _ in range(MAX_ENGINE_PASSES - 1):
        if _infrastructure_failure(outcome, tex.deadline.seconds) or _fatal(tex):
            break
        if not ran_bibtex and _cites(tex) and shutil.which("bibtex") is not None:
            ran_bibtex = True
            bib = tex.invoke(["bibtex", tex.root.stem], cwd=tex.outputs)
            if _infrastructure_failure(bib, tex.deadline.seconds):
                return bib
        elif not _asks_rerun(tex):
            break
        outcome = tex.invoke(argv)
    return outcome


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _written(tex: _Tex, suffix: str) -> str:
    return _read(tex.outputs / (tex.root.stem + suffix))


def _fatal(tex: _Tex) -> bool:
    return "no output PDF file produced" in _written(tex, ".log")


def _cites(tex: _Tex) -> bool:
    return "\\bibdata{" in _written(tex, ".aux")


def _asks_rerun(tex: _Tex) -> bool:
    return _RERUN.search(_written(tex, ".log")) is not None


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
    from jigcli.process import ProgramMissing, run_bounded

    try:
        outcome = run_bounded([path, flag], timeout=10, env=tex_environment())
    except ProgramMissing:
        return None
    for line in outcome.output.splitlines():
        if line.strip() and not line.startswith("Latexmk: "):
            return line.strip()
    return None
