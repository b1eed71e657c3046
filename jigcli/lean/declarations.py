"""The declarations of a Lean file, read without Lean: names, scopes, line ranges, marks.

Declarations are read on top of the Lean lexer (`jigcli.lean.lexer`), so a keyword inside a
comment, a string or a longer name never starts one. A declaration is a command that starts
with its modifiers (docstring, `@[…]`, `private`, `protected`, `noncomputable`, …) and a
declaration keyword (`theorem`, `lemma`, `def`, `abbrev`, `axiom`, `instance`, `structure`,
`class`, `inductive`, `opaque`, `example`), as the first word of its line; it runs to the last
token before the next command. Its full name follows the `namespace`s open around it
(`_root_.` escapes them); `section`s add nothing. The comments right above it (and on its
first line) may carry `-- tex: <label>` and `-- helper`; a `-- helper` on a `section` or
`namespace` line (or right above it) marks every declaration inside that scope at once.

Used by the paper verifiers (`jigcli.paper`) and by `jig pose`, which checks that an example
declares the `proof` its manifest will name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
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
_NAME_PART = re.compile(r"(?:[^.«]|«[^»]*»)+")


@dataclass(frozen=True)
class Decl:
    """One declaration of a `.lean` file, as written."""

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
        """What the declaration claims, as the audit judges it: a theorem's signature (its
        proof says nothing about what it claims), every other declaration's whole source (a
        definition's body is its meaning)."""
        return self.header if self.kind in PROVED_KINDS else self.source


@dataclass(frozen=True)
class LeanFile:
    path: Path
    text: str
    decls: tuple[Decl, ...]
    open_scopes: tuple[str, ...]  # `namespace` / `section` names still open at the end
    # The line of an `#exit`: Lean reads nothing after it (lean4: `#exit` is a terminal command,
    # `Lean.Parser.isTerminalCommand`, and `elabExit` in `src/Lean/Elab/BuiltinCommand.lean`
    # only warns "using 'exit' to interrupt Lean"; tests/real_lean shows 4.35 doing so), so
    # neither does this reader.
    exit_line: int | None = None

    @property
    def read_text(self) -> str:
        """The text Lean reads: all of it, or the lines before `#exit`."""
        if self.exit_line is None:
            return self.text
        return "".join(self.text.splitlines(keepends=True)[: self.exit_line - 1])

    def by_full_name(self, name: str) -> Decl | None:
        return next((d for d in self.decls if d.full_name == name), None)

    @property
    def axioms(self) -> tuple[Decl, ...]:
        return tuple(d for d in self.decls if d.kind == "axiom")


_COMMENTS = frozenset({"line_comment", "block_comment"})
_OPENERS = {"(": ")", "[": "]", "{": "}", "⦃": "⦄", "⟨": "⟩", "@[": "]"}
_CLOSERS = frozenset(_OPENERS.values())


def read_lean(path: Path) -> LeanFile:
    """The declarations of `path`, in order, with their namespaces and line ranges."""
    return parse_lean(path, path.read_text(encoding="utf-8", errors="replace"))


def parse_lean(path: Path, text: str) -> LeanFile:
    """The declarations of `text`, the contents of `path`."""
    reader = _DeclReader(text)
    reader.read_commands()
    scopes = tuple(name for _, name in reader.scopes)
    return LeanFile(path, text, tuple(reader.decls), scopes, reader.exit_line)


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
        self.exit_line: int | None = None

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

    def read_commands(self) -> None:
        starts: list[int] = []
        for i in range(len(self.code)):
            # A docstring, `@[…]` or modifier on a line of its own still heads the next line.
            if self.starts_command(i) and not (starts and self.only_prefix(starts[-1], i)):
                starts.append(i)
        for n, i in enumerate(starts):
            if self.code[i].text == "#exit":
                self.exit_line = self.code[i].line
                return
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


def name_parts(text: str) -> list[str]:
    """A printed name's components, split at the dots outside `«»` (`a.«b.c».d` → `a`,
    `«b.c»`, `d`), each as printed."""
    return [m.group(0) for m in _NAME_PART.finditer(text)]


def unprivate(text: str) -> str:
    """A private declaration's name as its file spells it. `Lean.mkPrivateName` (lean4
    `src/Lean/Modifiers.lean`) makes `_private` ++ the module ++ the number 0 ++ the name; a
    module's own parts that read `0` are printed `«0»` or inside `«…»`, so the first bare `0`
    ends the module (`_private.«.jig».«x.0.check».0.p'` is `p'`)."""
    parts = name_parts(text)
    if len(parts) < 3 or parts[0] != "_private" or "0" not in parts[2:]:
        return text
    return ".".join(parts[parts.index("0", 2) + 1 :]) or text


def plain_name(text: str) -> str:
    """A name as Lean means it: `«open»` is the name `open` (a dotted `«a.b»` stays quoted)."""
    return _GUILLEMETS.sub(r"\1", text)


def _comment_body(token: Token) -> str:
    text = token.text
    if text.startswith("--"):
        return text[2:]
    return text[2:-2] if text.startswith("/-") else text
