"""The root document of a LaTeX paper, and the files it reads through `\\input` and friends.

The root is the file with `\\documentclass` (outside comments and verbatim). A chapter file has
none; its root is the nearest `.tex` file, in its folder or a folder above it, that reads it
through `\\input`, `\\include`, `\\subfile`, `\\import` or `\\subimport`, directly or through
other included files. Included names resolve as TeX resolves them: against the root's folder,
which is where the engine runs (`\\subimport` and `\\subfile` against the including file's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from jigcli.errors import UsageError

# Folders that bound the upward search for a root: the top of a repository or project.
_BOUNDARY_MARKERS = (".git", "jig.yaml", "lakefile.toml", "lakefile.lean")
_MAX_LEVELS_UP = 4
_MAX_CANDIDATES_PER_FOLDER = 200
_MAX_SOURCE_BYTES = 4 * 1024 * 1024

_VERBATIM_ENVS = ("verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment")
_BEGIN_VERBATIM = re.compile(
    r"\\begin\{(" + "|".join(re.escape(e) for e in _VERBATIM_ENVS) + r")\}"
)
_VERB = re.compile(r"\\verb\*?(?![A-Za-z@])(.)")
_DOCUMENTCLASS = re.compile(r"\\documentclass(?![A-Za-z@])")
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


def has_documentclass(path: Path) -> bool:
    """True when `path` declares `\\documentclass` outside comments and verbatim."""
    text = _read(path)
    return text is not None and _DOCUMENTCLASS.search(strip_comments(text)) is not None


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
    path = _existing(path)
    if has_documentclass(path):
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
    if path.is_dir():
        roots = sorted(p for p in path.glob("*.tex") if has_documentclass(p))
        hint = f", e.g. {roots[0]}" if roots else ""
        raise UsageError(f"{path} is a folder; pass the paper's .tex file{hint}.")
    with_tex = path.with_name(path.name + ".tex")
    if path.suffix != ".tex" and with_tex.is_file():
        return with_tex.resolve()
    raise UsageError(f"No such file: {path}; pass the paper's .tex file.")


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


def _root_candidates(folder: Path, target: Path) -> list[Path]:
    try:
        texs = sorted(p for p in folder.glob("*.tex") if p.is_file())
    except OSError:
        return []
    return [
        p.resolve()
        for p in texs[:_MAX_CANDIDATES_PER_FOLDER]
        if p.resolve() != target and has_documentclass(p)
    ]


def resolve_inclusion(command: str, name: str, source: Path, root_dir: Path) -> Path | None:
    """The file TeX reads for `\\<command>{name}` written in `source` of the paper rooted in
    `root_dir`; `name` for `import`/`subimport` is the folder and the file joined."""
    name = name.strip()
    if command in ("import", "subimport"):
        base = source.parent if command == "subimport" else root_dir
        return _resolve(name, base, force_tex=False)
    base = source.parent if command == "subfile" else root_dir
    target = _resolve(name, base, force_tex=command == "include")
    if target is None and command == "subfile":
        target = _resolve(name, root_dir, force_tex=False)
    return target
