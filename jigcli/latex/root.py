"""The root document of a LaTeX paper, and the files it reads through `\\input` and friends.

Roots are found the way latexmk finds them. A file that declares a document is its own root:
it has `\\documentclass` (outside comments and verbatim), or, like the HoTT book's
`hott-online.tex`, it has none of its own but `\\input`s the file that does. A chapter file
has none; its root is the nearest document, in its folder or a folder above it, that reads it
through `\\input`, `\\include`, `\\subfile`, `\\import` or `\\subimport`, directly or through
other included files: first the `@default_files` of that folder's `latexmkrc` (read as data,
never run), then its other `.tex` files by name. A folder names the root latexmk would build
there. Included names resolve as TeX resolves them: against the root's folder, which is where
the engine runs (`\\subimport` and `\\subfile` against the including file's); a name found
nowhere there may still be one of TeX's own files (`tex_finds` asks kpsewhich).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jigcli.errors import UsageError
from jigcli.latex import latexmkrc

# Folders that bound the upward search for a root: the top of a repository or project.
_BOUNDARY_MARKERS = (".git", "jig.yaml", "lakefile.toml", "lakefile.lean")
_MAX_LEVELS_UP = 4
_MAX_CANDIDATES_PER_FOLDER = 200
_MAX_SOURCE_BYTES = 4 * 1024 * 1024
# How deep a document-less file's `\\input`s are followed to find its `\\documentclass`.
_MAX_DOCUMENT_DEPTH = 3
_KPSEWHICH_SEC = 10.0

_VERBATIM_ENVS = ("verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment")
_BEGIN_VERBATIM = re.compile(
    r"\\begin\{(" + "|".join(re.escape(e) for e in _VERBATIM_ENVS) + r")\}"
)
_VERB = re.compile(r"\\verb\*?(?![A-Za-z@])(.)")
_DOCUMENTCLASS = re.compile(r"\\documentclass(?![A-Za-z@])")
_BEGIN_DOCUMENT = re.compile(r"\\begin\s*\{document\}")
_INCLUDE = re.compile(
    r"\\(?P<cmd>input|include|subfile)(?![A-Za-z@])\s*"
    r"(?:\{(?P<braced>[^{}]*)\}|(?P<bare>[^\s{}\\%]+))"
    r"|\\(?P<icmd>import|subimport)(?![A-Za-z@])\s*\{(?P<dir>[^{}]*)\}\s*\{(?P<file>[^{}]*)\}"
)


@dataclass(frozen=True)
class Inclusion:
    """One `\\input`-like command: where it is, what it names, and the file it reads."""

    source: Path  # the file holding the command
    line: int  # 1-based line of the command in `source`
    command: str  # input | include | subfile | import | subimport
    name: str  # the name as written
    target: Path | None  # the file TeX would read; None when there is none


def strip_comments(text: str) -> str:
    """`text` as TeX reads it: `%` comments, `\\verb` arguments and verbatim / comment
    environments blanked out, every newline kept so line numbers still hold.

    A `%` after a backslash (`\\%`) is text, not a comment.
    """
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            verb = _VERB.match(text, i)
            if verb and verb.group(1) not in "\n ":
                end = text.find(verb.group(1), verb.end())
                end = n if end < 0 else end + 1
                out.append(_blank(text[i:end]))
                i = end
                continue
            begin = _BEGIN_VERBATIM.match(text, i)
            if begin:
                closing = "\\end{" + begin.group(1) + "}"
                end = text.find(closing, begin.end())
                end = n if end < 0 else end + len(closing)
                out.append(_blank(text[i:end]))
                i = end
                continue
            out.append(text[i : i + 2])
            i += 2
        elif ch == "%":
            end = text.find("\n", i)
            end = n if end < 0 else end
            i = end
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _blank(chunk: str) -> str:
    return "\n" * chunk.count("\n")


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def declares_document(path: Path, depth: int = _MAX_DOCUMENT_DEPTH) -> bool:
    """True when `path` starts a document: its own `\\documentclass`, or one in a file it
    `\\input`s before any `\\begin{document}` (the HoTT book's `hott-online.tex`)."""
    text = _read(path)
    if text is None:
        return False
    stripped = strip_comments(text)
    if _DOCUMENTCLASS.search(stripped):
        return True
    if depth == 0:
        return False
    body = _BEGIN_DOCUMENT.search(stripped)
    preamble_end = stripped.count("\n", 0, body.start()) + 1 if body else None
    return any(
        inclusion.target is not None
        and inclusion.command == "input"
        and (preamble_end is None or inclusion.line <= preamble_end)
        and declares_document(inclusion.target, depth - 1)
        for inclusion in inclusions(path, path.parent)
    )


def inclusions(source: Path, root_dir: Path) -> list[Inclusion]:
    """The `\\input`-like commands in `source`, in reading order, each resolved to its file."""
    text = _read(source)
    if text is None:
        return []
    stripped = strip_comments(text)
    found: list[Inclusion] = []
    for match in _INCLUDE.finditer(stripped):
        line = stripped.count("\n", 0, match.start()) + 1
        if match.group("cmd"):
            command = match.group("cmd")
            name = (match.group("braced") or match.group("bare") or "").strip()
        else:
            command = match.group("icmd")
            name = (match.group("dir") + match.group("file")).strip()
        target = resolve_inclusion(command, name, source, root_dir)
        if name:
            found.append(Inclusion(source, line, command, name, target))
    return found


def _resolve(name: str, base: Path, *, force_tex: bool) -> Path | None:
    """The file TeX reads for `name`: `name.tex` first unless it already ends in `.tex`."""
    if not name:
        return None
    candidates = [name + ".tex"] if force_tex or not name.endswith(".tex") else []
    if not force_tex:
        candidates.append(name)
    for candidate in candidates:
        path = (base / candidate).resolve()
        if path.is_file():
            return path
    return None


def walk_inclusions(root: Path) -> Iterator[Inclusion]:
    """Every inclusion reachable from `root`, depth first in reading order, each file once."""
    root = root.resolve()
    seen = {root}

    def visit(source: Path) -> Iterator[Inclusion]:
        for inclusion in inclusions(source, root.parent):
            yield inclusion
            target = inclusion.target
            if target is not None and target not in seen:
                seen.add(target)
                yield from visit(target)

    yield from visit(root)


def source_files(root: Path) -> list[Path]:
    """The root and every file it reads through `\\input`-like commands, in reading order."""
    root = root.resolve()
    files = [root]
    for inclusion in walk_inclusions(root):
        if inclusion.target is not None and inclusion.target not in files:
            files.append(inclusion.target)
    return files


def find_root(path: Path) -> Path:
    """The root document for `path` (resolved); a `UsageError` when there is none.

    `paper` is read as `paper.tex` when only the latter exists, as TeX itself would.
    """
    if path.is_dir():
        return _folder_root(path.resolve())
    path = _existing(path)
    if declares_document(path):
        return path
    for folder in _folders_up(path.parent):
        for candidate in _root_candidates(folder, path):
            if path in source_files(candidate):
                return candidate
    raise UsageError(
        f"{path.name} has no \\documentclass and no .tex file in its folder or above reads it "
        "through \\input or \\include; run jig on the paper's root document instead."
    )


def _existing(path: Path) -> Path:
    if path.is_file():
        return path.resolve()
    with_tex = path.with_name(path.name + ".tex")
    if path.suffix != ".tex" and with_tex.is_file():
        return with_tex.resolve()
    raise UsageError(f"No such file: {path}; pass the paper's .tex file.")


def _folder_root(folder: Path) -> Path:
    """The document latexmk would build in `folder`: its rc's first default file, else its
    only document."""
    roots = _root_candidates(folder, None)
    rc = latexmkrc.read(folder)
    if roots and rc is not None and rc.default_files and roots[0].name in rc.default_files:
        return roots[0]
    if len(roots) == 1:
        return roots[0]
    if not roots:
        raise UsageError(f"{folder} holds no LaTeX document; pass the paper's .tex file.")
    names = ", ".join(p.name for p in roots[:4])
    raise UsageError(f"{folder} holds several documents ({names}); pass the one to check.")


def _folders_up(start: Path) -> Iterator[Path]:
    """`start`, then the folders above it, stopping at a project boundary or after a few."""
    folder = start
    for _ in range(_MAX_LEVELS_UP + 1):
        yield folder
        if any((folder / marker).exists() for marker in _BOUNDARY_MARKERS):
            return
        if folder.parent == folder or folder == Path.home():
            return
        folder = folder.parent


def _root_candidates(folder: Path, target: Path | None) -> list[Path]:
    """The documents in `folder` that could be `target`'s root: the `latexmkrc`'s default
    files first, as latexmk would build them, then the others by name."""
    try:
        texs = sorted(p for p in folder.glob("*.tex") if p.is_file())
    except OSError:
        return []
    rc = latexmkrc.read(folder)
    named = rc.default_files if rc else ()
    preferred = [folder / name for name in named if not outside_folder(name)]
    ordered = [p for p in preferred if p.is_file()] + texs[:_MAX_CANDIDATES_PER_FOLDER]
    return [
        p
        for p in dict.fromkeys(q.resolve() for q in ordered)
        if p != target and declares_document(p)
    ]


def outside_folder(name: str) -> bool:
    """A name kpathsea's paranoid mode (`openin_any=p`, as jig runs TeX) refuses: absolute,
    climbing out with `..`, or through a dot file or folder."""
    parts = Path(name).parts
    return name.startswith("/") or any(p == ".." or (p.startswith(".") and p != ".") for p in parts)


@cache
def tex_finds(name: str, command: str = "input") -> bool:
    """True when TeX's own tree holds the file `\\<command>{name}` reads (`glyphtounicode`,
    a class's `.def`): kpsewhich says so. False without kpsewhich, when nobody can say."""
    kpsewhich = shutil.which("kpsewhich")
    if kpsewhich is None:
        return False
    from jigcli.process import ProgramMissing, run_bounded

    candidates = [name + ".tex"] if command == "include" or not name.endswith(".tex") else []
    if command != "include":
        candidates.append(name)
    try:
        # Run from `/`: kpsewhich looks in its working folder first, which is not the paper's.
        # `--`: a name is a name, never an option, whatever the paper spells.
        found = run_bounded([kpsewhich, "--", *candidates], cwd=Path("/"), timeout=_KPSEWHICH_SEC)
    except ProgramMissing:
        return False
    return bool(found.stdout.strip())


def resolve_inclusion(command: str, name: str, source: Path, root_dir: Path) -> Path | None:
    """The file TeX reads for `\\<command>{name}` written in `source` of the paper rooted in
    `root_dir`; `name` for `import`/`subimport` is the folder and the file joined. None for a
    name outside the folder, which TeX may not read as jig runs it."""
    name = name.strip()
    if outside_folder(name):
        return None
    if command in ("import", "subimport"):
        base = source.parent if command == "subimport" else root_dir
        return _resolve(name, base, force_tex=False)
    base = source.parent if command == "subfile" else root_dir
    target = _resolve(name, base, force_tex=command == "include")
    if target is None and command == "subfile":
        target = _resolve(name, root_dir, force_tex=False)
    return target
