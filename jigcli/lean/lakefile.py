"""A Lake project's libraries, read from its lakefile as data (never elaborated).

checkdecls (PatrickMassot/checkdecls) decides whether a blueprint's `\\lean{…}` names exist
by importing every root module of the workspace's `lean_lib`s and asking the environment;
`jig lean-check` does the same through one generated file. What it needs from the lakefile:

- each `lean_lib`: its `name`, its `roots` (default: the name), its `globs` (default: each
  root alone) and its `srcDir` (default `.`, below the package's own `srcDir`);
- in `lakefile.toml`: `[[lean_lib]]` tables, globs written `"A"` (A alone), `"A.+"` (A's
  submodules) or `"A.*"` (A and its submodules), as Lake's `Glob.ofString?` reads them;
- in `lakefile.lean`: `lean_lib <name>` followed by a `where` block or `{ … }` of fields
  (`roots := #[`A, `B]`, `globs := #[.andSubmodules `A, Glob.one `B]`, `srcDir := "src"`),
  read with the Lean lexer up to the next top-level command. A field this reader cannot read
  as a literal (computed by code) leaves the default, and the result says it guessed.

Sources: Lake's `LeanLibConfig` (`roots : Array Name := #[name]`, `globs : Array Glob :=
roots.map Glob.one`, `srcDir : FilePath := "."`) and `Glob.ofString?` in Lake's TOML decoding
(leanprover/lean4, src/lake/Lake/Config/LeanLibConfig.lean and Lake/Toml/…/Decode.lean).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.errors import UsageError

if TYPE_CHECKING:
    from jigcli.lean.lexer import Token

LAKEFILES = ("lakefile.toml", "lakefile.lean")
_GLOB_KINDS = {"one", "submodules", "andSubmodules"}
_MACRO_KINDS = {"*": "andSubmodules", "+": "submodules"}
_PART = re.compile(r"«([^»]*)»|([^.«]+)")
_TOP_LEVEL = frozenset(
    {"lean_lib", "lean_exe", "package", "require", "target", "extern_lib", "input_file",
     "input_dir", "script", "def", "open", "import", "@[", "meta", "module_facet",
     "package_facet", "library_facet", "namespace", "end", "set_option", "abbrev", "theorem"}
)  # fmt: skip


@dataclass(frozen=True)
class Glob:
    kind: str  # one | submodules | andSubmodules
    module: str

    def matches(self, module: str) -> bool:
        """Lake's `Glob.matches`: the module itself, its submodules, or both."""
        if self.kind == "one":
            return module == self.module
        inside = _is_prefix(self.module, module) and module != self.module
        return inside or (self.kind == "andSubmodules" and module == self.module)


def module_parts(module: str) -> list[str]:
    """A dotted name's components as Lean spells them: `A.«b.c».D` is `A`, `b.c`, `D`."""
    return [quoted or plain for quoted, plain in _PART.findall(module)]


def _is_prefix(prefix: str, module: str) -> bool:
    """Lean's `Name.isPrefixOf`, component by component: `A.B` is a prefix of `A.B.C`, not of
    `A.BC`."""
    return module == prefix or module.startswith(prefix + ".")


@dataclass(frozen=True)
class LeanLib:
    name: str
    roots: tuple[str, ...]
    globs: tuple[Glob, ...]
    src_dir: Path  # absolute: the package's srcDir / the library's srcDir

    def owns(self, module: str) -> bool:
        """Lake's `LeanLibConfig.isLocalModule`: a root is a prefix of it or a glob matches it,
        so an `import` of it builds from this library's source folder."""
        return any(_is_prefix(r, module) for r in self.roots) or any(
            g.matches(module) for g in self.globs
        )

    def module_file(self, module: str) -> Path:
        """Lean's `modToFilePath`: one path step per component, as Lean spells it (no «»)."""
        return self.src_dir.joinpath(*module_parts(module)).with_suffix(".lean")

    def modules(self) -> Iterator[tuple[str, Path]]:
        """Every module the library builds, by its globs, with its source file."""
        seen: set[str] = set()
        for glob in self.globs:
            if glob.kind in ("one", "andSubmodules"):
                path = self.module_file(glob.module)
                if path.is_file() and glob.module not in seen:
                    seen.add(glob.module)
                    yield glob.module, path
            if glob.kind == "one":
                continue
            folder = self.src_dir.joinpath(*module_parts(glob.module))
            for path in sorted(folder.rglob("*.lean")) if folder.is_dir() else []:
                parts = path.relative_to(self.src_dir).with_suffix("").parts
                module = ".".join(parts)
                if module not in seen:  # Lake's `forEachModuleInDir` skips no folder
                    seen.add(module)
                    yield module, path


@dataclass(frozen=True)
class LakeProject:
    root: Path
    lakefile: Path
    libs: tuple[LeanLib, ...]
    guessed: tuple[str, ...] = ()  # fields read as their default: "PFR.roots", …

    @property
    def roots(self) -> tuple[str, ...]:
        """Every library's root modules, each once: what checkdecls imports."""
        return tuple(dict.fromkeys(root for lib in self.libs for root in lib.roots))


def find_project(start: Path) -> LakeProject | None:
    """The Lake project around `start`: the first folder at or above it with a lakefile."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if any((folder / name).is_file() for name in LAKEFILES):
            return read_project(folder)
    return None


def read_project(root: Path) -> LakeProject:
    toml, lean = root / LAKEFILES[0], root / LAKEFILES[1]
    if toml.is_file() and not lean.is_file():  # Lake reads lakefile.lean when both exist
        return _from_toml(root, toml)
    return _from_lean(root, lean)


# -- lakefile.toml ------------------------------------------------------------------------


def _from_toml(root: Path, path: Path) -> LakeProject:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise UsageError(f"{path} is not readable TOML ({error}); fix it.") from error
    package_src = root / str(data.get("srcDir", "."))
    libs = []
    for table in data.get("lean_lib", []):
        if not isinstance(table, dict) or not isinstance(table.get("name"), str):
            continue
        name = table["name"]
        roots = tuple(_strings(table.get("roots"))) or (name,)
        globs = tuple(g for g in map(_glob_of_string, _strings(table.get("globs"))) if g)
        src = package_src / str(table.get("srcDir", "."))
        libs.append(LeanLib(name, roots, globs or tuple(Glob("one", r) for r in roots), src))
    return LakeProject(root, path, tuple(libs))


def _strings(value: object) -> list[str]:
    """A TOML value that may be one string or an array of them (`decodeArrayOrSingleton`)."""
    if isinstance(value, str):
        return [value]
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _glob_of_string(text: str) -> Glob | None:
    """Lake's `Glob.ofString?`: `A` one, `A.+` submodules, `A.*` A and its submodules."""
    if text.endswith(".+"):
        return Glob("submodules", text[:-2])
    if text.endswith(".*"):
        return Glob("andSubmodules", text[:-2])
    return Glob("one", text) if text else None


# -- lakefile.lean ------------------------------------------------------------------------


def _from_lean(root: Path, path: Path) -> LakeProject:
    from jigcli.lean.lexer import tokenize

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"Cannot read {path} ({error}); check it.") from error
    comments = ("line_comment", "block_comment", "doc_comment", "module_doc")
    tokens = [t for t in tokenize(text) if t.kind not in comments]
    blocks = list(_blocks(text, tokens))
    package_src = root
    for keyword, block in blocks:
        if keyword == "package":
            package_src = root / (_string_field(block, "srcDir") or ".")
    libs: list[LeanLib] = []
    guessed: list[str] = []
    for keyword, block in blocks:
        if keyword != "lean_lib" or len(block) < 2 or block[1].kind != "ident":
            continue
        name = _plain(block[1].text)
        roots, roots_read = _names_field(block, "roots")
        globs, globs_read = _globs_field(block)
        unread = [field for field, ok in (("roots", roots_read), ("globs", globs_read)) if not ok]
        guessed += [f"{name}.{field}" for field in unread]
        roots = roots or (name,)
        src = package_src / (_string_field(block, "srcDir") or ".")
        libs.append(LeanLib(name, roots, globs or tuple(Glob("one", r) for r in roots), src))
    return LakeProject(root, path, tuple(libs), tuple(guessed))


def _blocks(text: str, tokens: list[Token]) -> Iterator[tuple[str, list[Token]]]:
    """(command, its tokens) for each top-level command: a word at the start of a line."""
    starts = [
        i
        for i, t in enumerate(tokens)
        if t.text in _TOP_LEVEL and (t.start == 0 or text[t.start - 1] == "\n")
    ]
    for n, i in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(tokens)
        yield tokens[i].text, tokens[i:stop]


def _field(block: list[Token], name: str) -> list[Token] | None:
    """The tokens of `name := …` in a block, up to the next field (a name that starts a line)
    or the block's end."""
    for i in range(len(block) - 1):
        if block[i].text == name and block[i + 1].text == ":=":
            value: list[Token] = []
            for token in block[i + 2 :]:
                if value and token.kind == "ident" and value[-1].end_line < token.line:
                    break
                value.append(token)
            return value
    return None


def _names_field(block: list[Token], name: str) -> tuple[tuple[str, ...], bool]:
    value = _field(block, name)
    if value is None:
        return (), True
    names = tuple(_plain(t.text[1:]) for t in value if t.kind == "name")
    literal = all(t.kind == "name" or t.text in ("#", "[", "]", ",") for t in value)
    return (names, True) if literal and names else ((), False)


def _globs_field(block: list[Token]) -> tuple[tuple[Glob, ...], bool]:
    """`globs := #[…]`: `.one`/`.submodules`/`.andSubmodules` (or `Glob.…`) before a name, a
    bare name (`Coe Name Glob` is `Glob.one`), or Lake's `` `A.* `` / `` `A.+ `` macros (a name
    glued to `.*` / `.+`, `Lake/Config/Glob.lean`)."""
    value = _field(block, "globs")
    if value is None:
        return (), True
    globs: list[Glob] = []
    kind = "one"
    for i, token in enumerate(value):
        word = token.text.removeprefix("Glob.").removeprefix(".")
        if token.kind == "ident" and word in _GLOB_KINDS:
            kind = word
        elif token.kind == "name":
            globs.append(Glob(_glued_suffix(value, i) or kind, _plain(token.text[1:])))
            kind = "one"
    return (tuple(globs), True) if globs else ((), False)


def _glued_suffix(value: list[Token], i: int) -> str | None:
    """The glob kind of Lake's `name noWs ".*"` / `".+"` macros after the name at `i`."""
    if i + 2 >= len(value):
        return None
    name, dot, star = value[i : i + 3]
    if dot.text != "." or dot.start != name.end or star.start != dot.end:
        return None
    return _MACRO_KINDS.get(star.text)


def _string_field(block: list[Token], name: str) -> str | None:
    value = _field(block, name)
    if value and value[0].kind == "string":
        return str(value[0].text).strip('"')
    return None


def _plain(name: str) -> str:
    return name.replace("«", "").replace("»", "")
