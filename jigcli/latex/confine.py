"""Where LuaLaTeX may run: inside bubblewrap, seeing the paper read-only and writing one folder.

pdfTeX and XeTeX open files only through kpathsea, which jig sets to paranoid
(`openin_any=p`, `openout_any=p`: no absolute path, no `..`, no dot file). LuaTeX also runs
the paper's Lua (`\\directlua`), whose `io` and `os` libraries open any file the user can, and
which no kpathsea setting reaches (`--safer` would, but it stops luaotfload loading fonts). So
jig runs LuaLaTeX only inside a bubblewrap sandbox where

- the system's programs and TeX's own files are read-only (`/usr`, `/etc/texmf`, fonts and
  their caches, the TeX Live tree the engine comes from) and nothing else of the host exists:
  no `$HOME`, no `/etc/passwd`, a private `/tmp`, no network;
- the paper's folder is read-only;
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

import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path

# Read-only views of the host that TeX needs: Debian's TeX configuration and formats,
# fontconfig and the fonts (`/usr/share/fonts` is under `/usr`), and the dynamic linker's cache.
_SYSTEM_TRY = ("/etc/texmf", "/etc/fonts", "/var/lib/texmf", "/var/cache/fontconfig",
               "/etc/ld.so.cache", "/opt/texlive", "/usr/local/texlive")  # fmt: skip
_PROBE_SEC = 20.0
# Copied back beside the paper after a confined build: what a reader and an editor use.
COPIED_BACK = (".pdf", ".log", ".synctex.gz", ".aux")


def unavailable() -> str | None:
    """None when a sandbox runs here; otherwise why not, in a few words."""
    return _probe()


@cache
def _probe() -> str | None:
    from jigcli.run import ProgramMissing, run

    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed"
    scratch = Path(os.environ.get("TMPDIR", "/tmp"))
    try:
        probe = run(command(["true"], source=scratch, out=scratch, env={}), timeout=_PROBE_SEC)
    except ProgramMissing:
        return "bubblewrap (bwrap) cannot be run"
    if probe.returncode != 0:
        said = probe.output.strip().splitlines()
        return f"bubblewrap does not run here ({said[-1] if said else probe.returncode})"
    return None


def command(
    argv: Sequence[str],
    *,
    source: Path,
    out: Path,
    env: Mapping[str, str],
    chdir: Path | None = None,
) -> list[str]:
    """`argv` run in `chdir` (default `source`, read-only) with only `out` writable, and
    nothing else of the host."""
    settings: list[str] = []
    for name, value in env.items():
        settings += ["--setenv", name, value]
    return [
        "bwrap",
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--die-with-parent",
        "--new-session",
        *_system_view(),
        *_engine_tree(argv),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--ro-bind",
        str(source),
        str(source),
        "--bind",
        str(out),
        str(out),
        "--chdir",
        str(chdir or source),
        "--clearenv",
        *settings,
        "--",
        *argv,
    ]


def _system_view() -> list[str]:
    """`/usr` and its usrmerge links, read-only, then TeX's own configuration and fonts."""
    args: list[str] = []
    for top in ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", top)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for folder in _SYSTEM_TRY:
        args += ["--ro-bind-try", folder, folder]
    return args


def _engine_tree(argv: Sequence[str]) -> list[str]:
    """The TeX installation the program comes from, when it lives outside `/usr`."""
    program = shutil.which(argv[0]) if argv else None
    if program is None:
        return []
    tree = Path(program).resolve().parent.parent.parent  # <tree>/bin/<platform>/<program>
    if tree == Path("/") or tree.is_relative_to("/usr"):
        return []
    return ["--ro-bind", str(tree), str(tree)]


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
