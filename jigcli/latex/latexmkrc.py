"""A project's `latexmkrc`, read as data and never run.

latexmk runs its rc files as Perl, so jig never hands one to latexmk (`-norc`): a paper's
folder is not trusted to run code. What a blueprint's `latexmkrc` says is still worth knowing,
and it says it in a few plain assignments (leanblueprint's template is exactly these):

    $pdf_mode = 1;
    $pdflatex = 'xelatex -synctex=1 -output-directory=../print/';
    @default_files = ('print.tex');

- `@default_files` names the root documents latexmk builds when given none;
- `$pdf_mode` picks the command that makes the PDF: 1 `$pdflatex`, 4 `$lualatex`, 5
  `$xelatex`; the engine is that command's program (a `$pdflatex` that runs `xelatex` is
  xelatex), or the mode's own engine when the command is not set.

Anything else (code, conditionals, interpolation) is ignored rather than guessed at.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RC_NAMES = ("latexmkrc", ".latexmkrc")  # what latexmk reads in the folder it runs in
ENGINE_OF_MODE = {"1": "pdflatex", "4": "lualatex", "5": "xelatex"}
_ENGINES = ("pdflatex", "xelatex", "lualatex")
_MAX_RC_BYTES = 64 * 1024
_SCALAR = re.compile(r"^\s*\$(\w+)\s*=\s*(?P<value>'[^']*'|\"[^\"]*\"|[\w.-]+)\s*;", re.MULTILINE)
_DEFAULT_FILES = re.compile(r"^\s*@default_files\s*=\s*\((?P<items>[^)]*)\)\s*;", re.MULTILINE)
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")


@dataclass(frozen=True)
class LatexmkRc:
    path: Path
    default_files: tuple[str, ...]
    engine: str | None  # pdflatex | xelatex | lualatex, when the rc says which


def read(folder: Path) -> LatexmkRc | None:
    """The rc latexmk would read in `folder` (the first of `latexmkrc`, `.latexmkrc`)."""
    for name in RC_NAMES:
        path = folder / name
        try:
            if not path.is_file() or path.stat().st_size > _MAX_RC_BYTES:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        return parse(path, text)
    return None


def parse(path: Path, text: str) -> LatexmkRc:
    code = "\n".join(_without_comment(line) for line in text.splitlines())
    scalars = {m.group(1): m.group("value").strip("'\"") for m in _SCALAR.finditer(code)}
    files: tuple[str, ...] = ()
    listed = _DEFAULT_FILES.search(code)
    if listed:
        files = tuple(a or b for a, b in _QUOTED.findall(listed.group("items")))
    return LatexmkRc(path, files, _engine(scalars))


def _engine(scalars: dict[str, str]) -> str | None:
    mode_engine = ENGINE_OF_MODE.get(scalars.get("pdf_mode", ""))
    if mode_engine is None:
        return None
    command = scalars.get(mode_engine, "").split()
    program = Path(command[0]).name if command else mode_engine
    return program if program in _ENGINES else mode_engine


def _without_comment(line: str) -> str:
    """A Perl line without its `#` comment (a `#` inside quotes is text)."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:index]
    return line
