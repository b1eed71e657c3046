"""Where LuaLaTeX may run: in jig's sandbox (`jigcli.sandbox`, its bubblewrap route), seeing the
paper read-only and writing one folder.

pdfTeX and XeTeX open files only through kpathsea, which jig sets to paranoid
(`openin_any=p`, `openout_any=p`: no absolute path, no `..`, no dot file). LuaTeX also runs
the paper's Lua (`\\directlua`), whose `io` and `os` libraries open any file the user can, and
which no kpathsea setting reaches (`--safer` would, but it stops luaotfload loading fonts). So
jig runs LuaLaTeX only as a sandbox job (`tex_job`) on the bubblewrap route, where

- the system's programs and TeX's own files are read-only (`/usr`, `/etc/texmf`, fonts and
  their caches, the TeX Live tree the engine comes from) and nothing else of the host exists:
  no `$HOME`, no `/etc/passwd`, no host `/tmp`, no network; the program runs as nobody with
  no capabilities, its processes capped and its kernel calls filtered as every sandbox job's;
- the paper's folder is read-only (a view that would show a home folder is refused);
- the only writable folder is the build's own (`out`, in jig's cache), where TeX writes every
  output (`-output-directory`) and luaotfload its font cache; jig copies the PDF, the log, the
  SyncTeX file and the `.aux` back beside the paper afterwards, as regular files only.

A paper's Lua can then write nowhere it could plant anything (a `latexmkrc`, a git hook): what
it writes lands in the build folder, which jig reads as data. Where bubblewrap cannot run, the
build is refused, saying why, rather than run unconfined.

kpathsea checks the names TeX opens, not where they lead: a symbolic link in the paper's folder
(`leak.tex -> /etc/passwd`, `paper.log -> ~/.bashrc`) would let any engine read or write
through it. `links_out` finds such links (outside dot folders, which kpathsea never opens), and
jig refuses to build a paper that has one.
"""

from __future__ import annotations

import math
import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jigcli.process import RunResult
    from jigcli.sandbox.job import Job, Limits, View

ROUTE = "bubblewrap"  # the one route that shows the program nothing of the host but its view
# Read-only views of the host that TeX needs beyond the sandbox's system folders: Debian's TeX
# configuration and formats, fontconfig and its cache (`/usr/share/fonts` is under `/usr`).
_TEX_SYSTEM = ("/etc/texmf", "/etc/fonts", "/var/lib/texmf", "/var/cache/fontconfig",
               "/opt/texlive")  # fmt: skip
# What a build may use besides its wall clock (the compile's deadline): generous ceilings that
# no paper reaches, there to stop a runaway Lua loop rather than to size a build.
_ADDRESS_SPACE_MB = 8192
_FILE_MB = 1024  # the largest file TeX may write (a PDF), and the private /dev/shm's size
_PROCESSES = 64  # latexmk, Perl, the engine, BibTeX, the shells between them
_OUTPUT_BYTES = 64 * 1024 * 1024
# Copied back beside the paper after a confined build: what a reader and an editor use.
COPIED_BACK = (".pdf", ".log", ".synctex.gz", ".aux")


def unavailable() -> str | None:
    """None when the sandbox's bubblewrap route runs here; otherwise why not, in a few words
    (probed once per process)."""
    from jigcli.sandbox.probe import probe
    from jigcli.sandbox.routes import route_named

    return probe(route_named(ROUTE), _trial())


def run_confined(job: Job) -> RunResult:
    """`job` (a `tex_job`) run on the bubblewrap route, its processes capped as the route's
    probe verified; raises `jigcli.sandbox.job.SetupFailed` when the sandbox cannot be set up
    for it."""
    from jigcli.sandbox.execute import execute
    from jigcli.sandbox.probe import process_cap
    from jigcli.sandbox.routes import route_named

    route = route_named(ROUTE)
    return execute(route, job, process_cap(route, _trial()).mechanism).result


def tex_job(
    argv: Sequence[str],
    *,
    source: Path,
    out: Path,
    env: Mapping[str, str],
    wall_sec: float,
    chdir: Path | None = None,
) -> Job:
    """`argv` run in `chdir` (default `source`, read-only) with only `out` writable, TeX's own
    files read-only, and nothing else of the host."""
    from jigcli.sandbox.job import Job

    view = _view(argv, (source,), (out,), chdir or source)
    return Job(tuple(argv), view, _limits(wall_sec), env)


def _trial() -> Job:
    """The job a probe runs: TeX's view, nothing of a paper's."""
    from jigcli.sandbox.job import Job

    return Job(("true",), _view([], (), (), None), _limits(60.0))


def _view(
    argv: Sequence[str],
    read_only: tuple[Path, ...],
    writable: tuple[Path, ...],
    workdir: Path | None,
) -> View:
    from jigcli.sandbox.job import View

    system = tuple(Path(folder) for folder in _TEX_SYSTEM if Path(folder).exists())
    return View(
        read_only=(*system, *_engine_tree(argv), *read_only), writable=writable, workdir=workdir
    )


def _limits(wall_sec: float) -> Limits:
    from jigcli.sandbox.job import Limits

    return Limits(
        wall_sec=wall_sec,
        cpu_sec=math.ceil(wall_sec),
        address_space_mb=_ADDRESS_SPACE_MB,
        output_bytes=_OUTPUT_BYTES,
        scratch_mb=_FILE_MB,
        processes=_PROCESSES,
    )


def _engine_tree(argv: Sequence[str]) -> tuple[Path, ...]:
    """The TeX installation the program comes from, when it lives outside `/usr`."""
    program = shutil.which(argv[0]) if argv else None
    if program is None:
        return ()
    tree = Path(program).resolve().parent.parent.parent  # <tree>/bin/<platform>/<program>
    if tree == Path("/") or tree.is_relative_to("/usr"):
        return ()
    return (tree,)


def links_out(folder: Path) -> list[tuple[Path, str]]:
    """Every symbolic link under `folder` (dot entries aside) that leads outside it, with where
    it leads."""
    found = []
    for parent, folders, files in os.walk(folder):
        folders[:] = [name for name in folders if not name.startswith(".")]
        for name in [*folders, *files]:
            path = Path(parent, name)
            if name.startswith(".") or not path.is_symlink():
                continue
            target = Path(os.path.realpath(path))
            if not target.is_relative_to(folder):
                found.append((path, os.readlink(path)))
    return found


def copy_back(out: Path, root: Path) -> None:
    """The confined build's outputs beside the paper: regular files only (a link the build
    planted is never followed), each written under a fresh name and renamed into place, so a
    link already standing beside the paper is replaced rather than written through."""
    for suffix in COPIED_BACK:
        name = root.stem + suffix
        _copy_regular(out / name, root.parent / name)


def _copy_regular(source: Path, target: Path) -> None:
    try:  # not through a link; and a FIFO planted there must not block the open
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        temporary = target.with_name(f".{target.name}.jig-copy")
        temporary.unlink(missing_ok=True)
        with open(temporary, "xb") as copy:
            shutil.copyfileobj(handle, copy)
        os.replace(temporary, target)
