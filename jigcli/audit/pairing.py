"""A paper's statements paired with the declarations of its sibling `.lean`.

Declarations are read on top of the Lean lexer (`jigcli.lean.lexer`), so a keyword inside a
comment, a string or a longer name never starts one. A declaration is a command that starts
with its modifiers (docstring, `@[…]`, `private`, `protected`, `noncomputable`, …) and a
declaration keyword (`theorem`, `lemma`, `def`, `abbrev`, `axiom`, `instance`, `structure`,
`class`, `inductive`, `opaque`, `example`), as the first word of its line; it runs to the last
token before the next command. Its full name follows the `namespace`s open around it
(`_root_.` escapes them); `section`s add nothing. The comments right above it (and on its
first line) may carry `-- tex: <label>` and `-- helper`; a `-- helper` on a `section` or
`namespace` line (or right above it) marks every declaration inside that scope at once.

A statement pairs with declarations by the first rule that finds any:

1. `blueprint`: its `\\lean{A, B}` names (several allowed), each matched to a declaration by
   full name or by the name inside the file's namespaces; a name the file does not declare
   is looked up, by its full name, in the sources of the Lake project around the paper (the
   modules its `lean_lib`s build), and is kept as written when it is not there either (a
   Mathlib lemma);
2. `tex-comment`: declarations marked `-- tex: <label>` with its label;
3. `docstring`: declarations whose docstring names its label;
4. `name`: its label turned into a name — `thm:main` ↔ `main` or `thm_main` (`-` and `:` read
   as `_`) — declared inside the file's namespaces. When both exist nothing is guessed: the
   statement stays unpaired and says why.

A top-level `theorem` / `lemma` of the sibling file that no statement pairs with is
`unstated` unless it is `private` or a helper. Declarations elsewhere in the project never
are: a project holds far more lemmas than its blueprint states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.errors import UsageError
from jigcli.latex.statements import Document, Statement, read_statements

if TYPE_CHECKING:
    from jigcli.lean.lakefile import LakeProject
    from jigcli.lean.lexer import Token

DECL_KEYWORDS = frozenset(
    {
        "theorem", "lemma", "def", "abbrev", "axiom", "instance", "structure", "class",
        "inductive", "opaque", "example",
    }
)  # fmt: skip
MODIFIERS = frozenset(
    {"private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "scoped", "local"}
)
# Commands other than declarations: they end the declaration before them. Only counted as
# the first word of a line, since `open … in` and `set_option … in` also occur inside proofs.
OTHER_COMMANDS = frozenset(
    {
        "namespace", "section", "end", "open", "variable", "universe", "set_option",
        "attribute", "import", "mutual", "export", "deriving", "initialize", "macro",
        "macro_rules", "syntax", "elab", "elab_rules", "notation", "infix", "infixl", "infixr",
        "prefix", "postfix", "omit", "include", "suppress_compilation",
    }
)  # fmt: skip
PROVED_KINDS = frozenset({"theorem", "lemma"})
_TEX_MARK = re.compile(r"^\s*tex\s*:\s*(\S+)\s*$")
_HELPER_MARK = re.compile(r"^\s*helper\b")
_GUILLEMETS = re.compile(r"«([^».]*)»")


@dataclass(frozen=True)
class Decl:
    """One declaration of the `.lean` file, as written."""

    kind: str
    name: str  # as written after the keyword ("" for `example` / anonymous instances)
    full_name: str  # inside its namespaces, `_root_.` removed
    namespaces: tuple[str, ...]
    line: int  # its first line: docstring, attribute or modifier
    keyword_line: int
    end_line: int
    docstring: str | None
    tex_labels: tuple[str, ...]
    private: bool
    helper: bool
    source: str  # its lines, exactly
    header: str  # its signature, up to the `:=` / `where` / `|` that starts its body

    @property
    def judged_text(self) -> str:
        """What the audit judges: a theorem's signature (its proof says nothing about what
        it claims), every other declaration's whole source (a definition's body is its
        meaning)."""
        return self.header if self.kind in PROVED_KINDS else self.source


@dataclass(frozen=True)
class LeanFile:
    path: Path
    text: str
    decls: tuple[Decl, ...]
    open_scopes: tuple[str, ...]  # `namespace` / `section` names still open at the end

    def by_full_name(self, name: str) -> Decl | None:
        return next((d for d in self.decls if d.full_name == name), None)

    @property
    def axioms(self) -> tuple[Decl, ...]:
        return tuple(d for d in self.decls if d.kind == "axiom")


@dataclass(frozen=True)
class Pair:
    statement: Statement
    decl_name: str  # fully qualified
    decl: Decl | None  # None: declared in no source jig can read (a Mathlib lemma, a typo)
    rule: str  # blueprint | tex-comment | docstring | name
    where: LeanFile | None = None  # the file declaring `decl`: the sibling or a project module

    def judged(self, project: LakeProject | None) -> str:
        """What a judgement of this pair's declaration covers: its judged source, wherever it
        lives; for one no readable source declares (a Mathlib lemma), its name and the exact
        package revisions the project pins, so that a dependency bump makes it stale."""
        if self.decl is not None:
            return self.decl.judged_text
        return f"{self.decl_name} · declared outside the sources · {_pins(project)}"


def _pins(project: LakeProject | None) -> str:
    """The package revisions `lake-manifest.json` pins, one `name@rev` each, sorted."""
    import json

    if project is None:
        return "no Lake project"
    try:
        manifest = json.loads((project.root / "lake-manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "no lake-manifest.json"
    packages = manifest.get("packages", []) if isinstance(manifest, dict) else []
    pins = sorted(f"{p.get('name')}@{p.get('rev')}" for p in packages if isinstance(p, dict))
    return ", ".join(pins) or "no packages"


@dataclass(frozen=True)
class Pairing:
    pairs: tuple[Pair, ...]
    unpaired: tuple[Statement, ...]
    unstated: tuple[Decl, ...]
    why_unpaired: dict[Statement, str]

    def pairs_of(self, statement: Statement) -> list[Pair]:
        return list(self._by_statement.get(id(statement), ()))

    @cached_property
    def _by_statement(self) -> dict[int, list[Pair]]:
        """The pairs of each statement, by the statement's identity: comparing statements
        field by field for every pair would make a 250-statement blueprint quadratic."""
        found: dict[int, list[Pair]] = {}
        for pair in self.pairs:
            found.setdefault(id(pair.statement), []).append(pair)
        return found


# -- reading the .lean ---------------------------------------------------------------------

_COMMENTS = frozenset({"line_comment", "block_comment"})
_OPENERS = {"(": ")", "[": "]", "{": "}", "⦃": "⦄", "⟨": "⟩", "@[": "]"}
_CLOSERS = frozenset(_OPENERS.values())


def read_lean(path: Path) -> LeanFile:
    """The declarations of `path`, in order, with their namespaces and line ranges."""
    text = path.read_text(encoding="utf-8", errors="replace")
    reader = _DeclReader(text)
    reader.run()
    return LeanFile(path, text, tuple(reader.decls), tuple(name for _, name in reader.scopes))


class _DeclReader:
    def __init__(self, text: str) -> None:
        from jigcli.lean.lexer import tokenize

        self.text = text
        self.lines = text.split("\n")
        tokens = list(tokenize(text))
        self.code = [t for t in tokens if t.kind not in _COMMENTS]
        # For each significant token: the comments between it and the one before it.
        self.comments_before: list[list[Token]] = [[] for _ in self.code]
        self.comments_on_line: dict[int, list[Token]] = {}
        index = 0
        for token in tokens:
            if token.kind in _COMMENTS:
                if index < len(self.code):
                    self.comments_before[index].append(token)
                self.comments_on_line.setdefault(token.line, []).append(token)
            else:
                index += 1
        self.scopes: list[tuple[str, str]] = []  # (namespace | section | mutual, name)
        self.helper_scopes: list[bool] = []  # per open scope: marked `-- helper`
        self.decls: list[Decl] = []

    def first_on_line(self, token: Token) -> bool:
        line_start = self.text.rfind("\n", 0, token.start) + 1
        return not self.text[line_start : token.start].strip()

    def starts_command(self, i: int) -> bool:
        token = self.code[i]
        if not self.first_on_line(token):
            return False
        if token.kind in ("doc_comment", "module_doc", "command"):
            return True
        return token.text == "@[" or token.text in DECL_KEYWORDS | MODIFIERS | OTHER_COMMANDS

    def run(self) -> None:
        starts: list[int] = []
        for i in range(len(self.code)):
            # A docstring, `@[…]` or modifier on a line of its own still heads the next line.
            if self.starts_command(i) and not (starts and self.only_prefix(starts[-1], i)):
                starts.append(i)
        for n, i in enumerate(starts):
            stop = starts[n + 1] if n + 1 < len(starts) else len(self.code)
            self.command(i, stop)

    def command(self, i: int, stop: int) -> None:
        """The command made of significant tokens `i` to `stop` (exclusive)."""
        first, word = i, self.code[i].text
        docstring = None
        if self.code[i].kind == "doc_comment":
            docstring = self.code[i].text[3:-2].strip()
            i += 1
        modifiers: list[str] = []
        while i < stop:
            token = self.code[i]
            if token.text == "@[":
                i = self.skip_group(i, stop)
            elif token.text in MODIFIERS:
                modifiers.append(token.text)
                i += 1
            else:
                break
        if i >= stop:
            return
        word = self.code[i].text
        if word in DECL_KEYWORDS:
            self.declaration(first, i, stop, docstring, modifiers)
        elif word in ("namespace", "section", "mutual"):
            name = self.code[i + 1].text if i + 1 < stop and word != "mutual" else ""
            self.scopes.append((word, name))
            self.helper_scopes.append(any(_HELPER_MARK.match(n) for n in self.notes(first, i)))
        elif word == "end" and self.scopes:
            self.scopes.pop()
            self.helper_scopes.pop()

    def notes(self, first: int, keyword: int) -> list[str]:
        """The comments above a command and on its first line: where marks are written."""
        start = self.code[first]
        marks = [*self.comments_before[first], *self.comments_on_line.get(start.line, [])]
        marks += self.comments_on_line.get(self.code[keyword].line, [])
        return [_comment_body(c) for c in marks]

    def only_prefix(self, i: int, stop: int) -> bool:
        """True when tokens `i` to `stop` are only a docstring, attributes and modifiers."""
        while i < stop:
            token = self.code[i]
            if token.text == "@[":
                i = self.skip_group(i, stop)
            elif token.kind == "doc_comment" or token.text in MODIFIERS:
                i += 1
            else:
                return False
        return True

    def skip_group(self, i: int, stop: int) -> int:
        depth = 0
        while i < stop:
            text = self.code[i].text
            if text in _OPENERS:
                depth += 1
            elif text in _CLOSERS:
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return i

    def declaration(
        self, first: int, keyword: int, stop: int, docstring: str | None, modifiers: list[str]
    ) -> None:
        kind = self.code[keyword].text
        name, after = self.name_after(keyword, stop)
        name = plain_name(name)
        namespaces = tuple(n for scope, n in self.scopes if scope == "namespace" and n)
        if name.startswith("_root_."):
            full_name = name.removeprefix("_root_.")
        else:
            full_name = ".".join([*namespaces, name]) if name else ""
        start, last = self.code[first], self.code[stop - 1]
        notes = self.notes(first, keyword)
        self.decls.append(
            Decl(
                kind=kind,
                name=name,
                full_name=full_name,
                namespaces=namespaces,
                line=start.line,
                keyword_line=self.code[keyword].line,
                end_line=last.end_line,
                docstring=docstring,
                tex_labels=tuple(m[1] for n in notes if (m := _TEX_MARK.match(n))),
                private="private" in modifiers,
                helper=any(self.helper_scopes) or any(_HELPER_MARK.match(n) for n in notes),
                source="\n".join(self.lines[start.line - 1 : last.end_line]),
                header=self.header(keyword, after, stop),
            )
        )

    def name_after(self, keyword: int, stop: int) -> tuple[str, int]:
        """The declared name after the keyword (`""` when there is none) and where it ends."""
        i = keyword + 1
        kind = self.code[keyword].text
        if kind == "example":
            return "", i
        if kind == "class" and i < stop and self.code[i].text == "inductive":
            i += 1
        if kind == "instance" and i < stop and self.code[i].text == "(":
            i = self.skip_group(i, stop)  # `(priority := …)`
        if i < stop and self.code[i].kind == "ident":
            return self.code[i].text, i + 1
        return "", i

    def header(self, keyword: int, i: int, stop: int) -> str:
        """The source from the keyword to the `:=` / `where` / line-leading `|` of its body."""
        depth = 0
        end = self.code[stop - 1].end
        while i < stop:
            token = self.code[i]
            if token.text in _OPENERS:
                depth += 1
            elif token.text in _CLOSERS:
                depth -= 1
            elif depth == 0 and (
                token.text in (":=", "where") or (token.text == "|" and self.first_on_line(token))
            ):
                end = token.start
                break
            i += 1
        return self.text[self.code[keyword].start : end].strip()


def plain_name(text: str) -> str:
    """A name as Lean means it: `«open»` is the name `open` (a dotted `«a.b»` stays quoted)."""
    return _GUILLEMETS.sub(r"\1", text)


def _comment_body(token: Token) -> str:
    text = token.text
    if text.startswith("--"):
        return text[2:]
    return text[2:-2] if text.startswith("/-") else text


# -- pairing ---------------------------------------------------------------------------------


def _label_names(label: str) -> list[str]:
    """`thm:main` → [`main`, `thm_main`]; `lem:key-step` → [`key_step`, `lem_key_step`]."""

    def as_name(text: str) -> str:
        return re.sub(r"[^\w.']", "_", text)

    names = []
    if ":" in label:
        names.append(as_name(label.split(":", 1)[1]))
    names.append(as_name(label))
    return list(dict.fromkeys(n for n in names if n))


def _declared_as(decl: Decl, name: str) -> bool:
    """`name` names `decl` as written or inside the file's namespaces."""
    return decl.full_name == name or decl.full_name.endswith("." + name) or decl.name == name


def _mentions(text: str, label: str) -> bool:
    return re.search(rf"(?<![\w:.\-]){re.escape(label)}(?![\w:\-]|\.\w)", text) is not None


def pair_statements(statements: tuple[Statement, ...], lean: LeanFile | None) -> Pairing:
    """Each statement's declarations by the first rule that finds any, in reading order."""
    decls = lean.decls if lean is not None else ()
    named = [d for d in decls if d.name]
    pairs: list[Pair] = []
    unpaired: list[Statement] = []
    why: dict[Statement, str] = {}
    for statement in statements:
        found = _pair_one(statement, named, why)
        if found:
            pairs.extend(found)
        else:
            unpaired.append(statement)
    pairs = [replace(p, where=lean) if p.decl is not None else p for p in pairs]
    claimed = {p.decl for p in pairs if p.decl is not None}
    unstated = tuple(
        d
        for d in named
        if d.kind in PROVED_KINDS and d not in claimed and not d.private and not d.helper
    )
    return Pairing(tuple(pairs), tuple(unpaired), unstated, why)


def _pair_one(statement: Statement, decls: list[Decl], why: dict[Statement, str]) -> list[Pair]:
    if statement.lean:
        return [_blueprint(statement, name, decls) for name in statement.lean]
    label = statement.label
    if label is None:
        why[statement] = "it has no \\label and no \\lean{…} to pair it by"
        return []
    marked = [d for d in decls if label in d.tex_labels]
    if marked:
        return [Pair(statement, d.full_name, d, "tex-comment") for d in marked]
    documented = [d for d in decls if d.docstring and _mentions(d.docstring, label)]
    if documented:
        return [Pair(statement, d.full_name, d, "docstring") for d in documented]
    candidates = _label_names(label)
    matches = [d for d in decls if any(_declared_as(d, name) for name in candidates)]
    if len(matches) == 1:
        return [Pair(statement, matches[0].full_name, matches[0], "name")]
    if matches:
        names = ", ".join(d.full_name for d in matches)
        why[statement] = f"its label {label} could name {names}; mark one with -- tex: {label}"
    else:
        why[statement] = "no declaration names it (\\lean{…}, -- tex: or its label)"
    return []


def _blueprint(statement: Statement, name: str, decls: list[Decl]) -> Pair:
    name = plain_name(name)
    exact = next((d for d in decls if d.full_name == name.removeprefix("_root_.")), None)
    if exact is not None:
        return Pair(statement, exact.full_name, exact, "blueprint")
    inside = [d for d in decls if d.full_name.endswith("." + name)]
    if len(inside) == 1:
        return Pair(statement, inside[0].full_name, inside[0], "blueprint")
    return Pair(statement, name, None, "blueprint")


# -- a paper and its sibling --------------------------------------------------------------------


@dataclass(frozen=True)
class Paper:
    """A paper's root document, its sibling `.lean` (None when there is none yet), the Lake
    project around it (None outside one), and how their statements and declarations pair."""

    tex: Path
    lean: Path | None
    document: Document
    lean_file: LeanFile | None
    pairing: Pairing
    project: LakeProject | None = None


def open_paper(file: Path) -> Paper:
    """The paper `file` belongs to: a `.tex` (its root document is found) or its `.lean`."""
    from jigcli.latex.root import find_root

    if file.suffix == ".lean":
        if not file.is_file():
            raise UsageError(f"No such file: {file}; pass the paper's .tex or its .lean.")
        tex = file.with_suffix(".tex")
        if not tex.is_file():
            raise UsageError(
                f"No paper beside {file}: put {tex.name} next to it, or pass the paper's .tex."
            )
        tex = find_root(tex)
    else:
        tex = find_root(file)
    from jigcli.lean.lakefile import find_project

    sibling = tex.with_suffix(".lean")
    lean = sibling if sibling.is_file() else None
    document = read_statements(tex)
    lean_file = read_lean(lean) if lean is not None else None
    pairing = pair_statements(document.statements, lean_file)
    project = find_project(tex.parent)
    if project is not None:
        pairing = _in_project(pairing, project, lean)
    return Paper(tex, lean, document, lean_file, pairing, project)


def _in_project(pairing: Pairing, project: LakeProject, sibling: Path | None) -> Pairing:
    """The blueprint names the sibling does not declare, found in the project's sources."""
    wanted = {p.decl_name for p in pairing.pairs if p.decl is None}
    found = locate_in_project(project, wanted, skip=sibling)
    pairs = tuple(
        replace(p, decl=found[p.decl_name][1], where=found[p.decl_name][0])
        if p.decl is None and p.decl_name in found
        else p
        for p in pairing.pairs
    )
    return replace(pairing, pairs=pairs)


def locate_in_project(
    project: LakeProject, names: set[str], *, skip: Path | None = None
) -> dict[str, tuple[LeanFile, Decl]]:
    """Where each of `names` (full names) is declared among the modules the project's
    libraries build; a name no module declares is left out. Only files that mention a
    name's last part are lexed."""
    wanted = {name.removeprefix("_root_."): name for name in names}
    lasts = {name.rsplit(".", 1)[-1] for name in wanted}
    found: dict[str, tuple[LeanFile, Decl]] = {}
    seen: set[Path] = set() if skip is None else {skip.resolve()}
    for lib in project.libs:
        for _module, path in lib.modules():
            resolved = path.resolve()
            if resolved in seen or len(found) == len(wanted):
                continue
            seen.add(resolved)
            try:
                text = path.read_text(encoding="utf-8", errors="replace")
            except OSError:
                continue
            if not any(last in text for last in lasts):
                continue
            lean = read_lean(path)
            for decl in lean.decls:
                if decl.full_name in wanted and wanted[decl.full_name] not in found:
                    found[wanted[decl.full_name]] = (lean, decl)
    return found
