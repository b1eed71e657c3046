"""The statements a paper's PDF shows, read from its LaTeX source, numbered as LaTeX numbers them.

1. Mask each file (`mask`): `%` comments, `\\iffalse…\\fi` (and the false branch of `\\iftrue`),
   `verbatim` / `lstlisting` / `minted` / `comment` blocks (and environments named by
   `\\excludecomment`) become blanks of the same length, so offsets and line numbers stay
   true. A `%` inside `\\verb|…|`, `\\url{…}` or `\\href{…}` is text, and `\\%` is text. A
   second, structural mask also blanks what `\\verb`, `\\url` and `\\href` quote, so a
   `\\begin{theorem}` written inside `\\verb` starts nothing.
2. Walk the root document and the files it `\\input`s / `\\include`s in reading order, one
   shared set of counters across them: `\\newtheorem` (shared counters `[theorem]`, numbering
   within `[section]`, starred ones unnumbered), thmtools' `\\declaretheorem`, `\\numberwithin`
   / `\\counterwithin`, sectioning commands (starred ones do not step), `\\appendix` (letters
   for sections, or chapters in a book), `\\setcounter` / `\\addtocounter`. Local packages
   (`\\usepackage{macros}` with `macros.sty` beside the paper) are read for declarations only.
3. Every numbered theorem-like environment is a statement: kind (the environment), number,
   optional title, label, file and line range, its text (comments and blueprint metadata
   removed), and the blueprint's `\\lean{A, B}` and `\\uses{…}`. A theorem's `\\item[(a)]` parts
   are the theorem; a free-standing `\\item[(i)]` with mathematics, outside every theorem-like
   and proof environment, is a statement of its own (kind `item`, numbered by its label).
4. When an up-to-date `.aux` exists (newer than every source read), the numbers LaTeX wrote
   there for the statements' labels win over the computed ones.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from jigcli.errors import UsageError
from jigcli.latex.root import resolve_inclusion

VERBATIM_ENVS = frozenset(
    {"verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment", "alltt*"}
)
LIST_ENVS = frozenset({"enumerate", "itemize", "description"})
PROOF_ENVS = frozenset({"proof"})
BOOK_CLASSES = frozenset({"book", "report", "memoir", "scrbook", "scrreprt", "amsbook"})
# Blueprint metadata inside a statement: not part of what the PDF says.
META_COMMANDS = re.compile(
    r"\\(?:label|lean|uses|proves|discussion)\s*\{[^{}]*\}|\\(?:leanok|notready|mathlibok)\b"
)
# TeX's conditionals: in skipped text only these (and `\newif` ones) nest, never `\iff`.
PRIMITIVE_IFS = frozenset(
    {
        "if", "ifcat", "ifnum", "ifdim", "ifodd", "ifvmode", "ifhmode", "ifmmode", "ifinner",
        "ifvoid", "ifhbox", "ifvbox", "ifx", "ifeof", "iftrue", "iffalse", "ifcase",
        "ifdefined", "ifcsname", "iffontchar", "ifincsname", "ifpdfprimitive",
    }
)  # fmt: skip
MATH_MARKERS = re.compile(
    r"\$|\\\(|\\\[|\\begin\{(?:equation|align|gather|multline|math|displaymath)\*?\}"
)


@dataclass(frozen=True)
class Statement:
    """One numbered statement as the PDF shows it."""

    kind: str
    number: str | None
    title: str | None
    label: str | None
    file: Path
    line: int
    end_line: int
    text: str
    lean: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()


@dataclass(frozen=True)
class Masked:
    """A source with what LaTeX never typesets blanked out, offsets unchanged."""

    visible: str  # comments and skipped blocks blanked: the text a reader sees
    structural: str  # also blanks what `\verb`, `\url`, `\href` quote: where commands count


# -- 1. masking ---------------------------------------------------------------------------

_CONTROL = re.compile(r"\\([A-Za-z@]+|.)", re.DOTALL)


def mask(source: str, conditionals: frozenset[str] = frozenset()) -> Masked:
    """Blank comments and skipped blocks; `conditionals` adds `\\newif` names (without `\\`)."""
    masker = _Masker(source, conditionals)
    masker.run()
    return Masked("".join(masker.visible), "".join(masker.structural))


class _Masker:
    def __init__(self, source: str, conditionals: frozenset[str]) -> None:
        self.src = source
        self.visible = list(source)
        self.structural = list(source)
        self.ifs = PRIMITIVE_IFS | conditionals
        self.skipped_envs = set(VERBATIM_ENVS)
        self.live_ifs: list[bool] = []  # per open live conditional: True for `\iftrue`

    def blank(self, start: int, end: int, *, visible: bool = True) -> None:
        for i in range(start, min(end, len(self.src))):
            if self.src[i] != "\n":
                self.structural[i] = " "
                if visible:
                    self.visible[i] = " "

    def run(self) -> None:
        i, n = 0, len(self.src)
        while i < n:
            c = self.src[i]
            if c == "%":
                i = self.comment(i)
            elif c == "\\":
                i = self.control(i)
            else:
                i += 1

    def comment(self, i: int) -> int:
        end = self.src.find("\n", i)
        end = len(self.src) if end < 0 else end
        self.blank(i, end)
        return end

    def control(self, i: int) -> int:
        m = _CONTROL.match(self.src, i)
        if m is None:  # a lone backslash at the very end
            return i + 1
        name, end = m.group(1), m.end()
        if name == "verb":
            return self.verb(end)
        if name in ("url", "href"):
            return self.quoted_group(end)
        if name == "begin":
            return self.begin(i, end)
        if name in ("excludecomment", "newif"):
            return self.declaration(name, end)
        if name == "iffalse":
            return self.skip_conditional(i, end, keep_else=True)
        if name in self.ifs:
            self.live_ifs.append(name == "iftrue")
        elif name == "else" and self.live_ifs and self.live_ifs[-1]:
            self.live_ifs.pop()  # the rest up to the matching `\fi` is the dead branch
            return self.skip_conditional(i, end, keep_else=False)
        elif name == "fi" and self.live_ifs:
            self.live_ifs.pop()
        return end

    def verb(self, i: int) -> int:
        if i < len(self.src) and self.src[i] == "*":
            i += 1
        if i >= len(self.src) or self.src[i] in " \n":
            return i
        delimiter = self.src[i]
        close = self.src.find(delimiter, i + 1)
        newline = self.src.find("\n", i + 1)
        if close < 0 or (0 <= newline < close):
            return i + 1  # not a well-formed \verb: LaTeX would stop with an error
        self.blank(i + 1, close, visible=False)
        return close + 1

    def quoted_group(self, i: int) -> int:
        j = _skip_spaces(self.src, i)
        if j >= len(self.src) or self.src[j] != "{":
            return i
        close = _matching_brace(self.src, j)
        if close is None:
            return i
        self.blank(j + 1, close, visible=False)
        return close + 1

    def begin(self, start: int, i: int) -> int:
        group = _read_group(self.src, i)
        if group is None or group[0] not in self.skipped_envs:
            return i
        name, after = group
        closing = f"\\end{{{name}}}"
        end = self.src.find(closing, after)
        end = len(self.src) if end < 0 else end + len(closing)
        self.blank(start, end)
        return end

    def declaration(self, name: str, i: int) -> int:
        if name == "excludecomment":
            group = _read_group(self.src, i)
            if group is not None:
                self.skipped_envs.add(group[0].strip())
                return group[1]
            return i
        m = _CONTROL.match(self.src, _skip_spaces(self.src, i))
        if m is not None and m.group(1).startswith("if"):
            self.ifs = self.ifs | {m.group(1)}
            return m.end()  # `\newif\ifdraft` declares: it opens no conditional
        return i

    def skip_conditional(self, start: int, i: int, *, keep_else: bool) -> int:
        """Blank from `start` to the matching `\\fi` (or `\\else`, when `keep_else`)."""
        depth, n = 0, len(self.src)
        while i < n:
            c = self.src[i]
            if c == "%":
                end = self.src.find("\n", i)
                i = n if end < 0 else end
                continue
            if c != "\\":
                i += 1
                continue
            m = _CONTROL.match(self.src, i)
            if m is None:
                break
            name, i = m.group(1), m.end()
            if name in self.ifs:
                depth += 1
            elif name == "fi":
                if depth == 0:
                    self.blank(start, i)
                    return i
                depth -= 1
            elif name == "else" and depth == 0 and keep_else:
                self.blank(start, i)
                self.live_ifs.append(False)  # the live `\else` branch still ends at `\fi`
                return i
        self.blank(start, n)
        return n


# -- small readers over a masked source ----------------------------------------------------


def _skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _matching_brace(text: str, i: int) -> int | None:
    """The index of the `}` closing the `{` at `i`; `\\{` and `\\}` do not count."""
    depth, j = 0, i
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return None


def _read_group(text: str, i: int) -> tuple[str, int] | None:
    """`{content}` at `i` (after spaces): its content and the index after it."""
    j = _skip_spaces(text, i)
    if j >= len(text) or text[j] != "{":
        return None
    close = _matching_brace(text, j)
    return None if close is None else (text[j + 1 : close], close + 1)


def _read_optional(text: str, i: int) -> tuple[str, int] | None:
    """`[content]` at `i` (after spaces), `]` inside braces not ending it."""
    j = _skip_spaces(text, i)
    if j >= len(text) or text[j] != "[":
        return None
    depth = 0
    for k in range(j + 1, len(text)):
        c = text[k]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "]" and depth == 0:
            return text[j + 1 : k], k + 1
    return None


def _visible_arg(src: _FileText, arg: tuple[str, int]) -> str:
    """An argument read from the structural mask, as the reader sees it, on one line."""
    content, after = arg
    return " ".join(src.masked.visible[after - 1 - len(content) : after - 1].split())


def _names(arg: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in arg.split(",") if part.strip())


# -- 2. counters as LaTeX keeps them -----------------------------------------------------


def _alph(value: int, upper: bool) -> str:
    if not 1 <= value <= 26:
        return str(value)
    letter = chr(ord("a") + value - 1)
    return letter.upper() if upper else letter


def _roman(value: int) -> str:
    numerals = (
        (1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
        (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"),
    )  # fmt: skip
    out = ""
    for amount, word in numerals:
        while value >= amount:
            out, value = out + word, value - amount
    return out


_STYLES: dict[str, Callable[[int], str]] = {
    "arabic": str,
    "Alph": lambda v: _alph(v, True),
    "alph": lambda v: _alph(v, False),
    "Roman": lambda v: _roman(v).upper(),
    "roman": _roman,
}


@dataclass
class Counters:
    """LaTeX's counters: values, who resets whom (and prefixes its number), and styles."""

    values: dict[str, int] = field(default_factory=dict)
    within: dict[str, str | None] = field(default_factory=dict)
    style: dict[str, str] = field(default_factory=dict)

    @classmethod
    def for_class(cls, document_class: str) -> Counters:
        counters = cls()
        chain = ["section", "subsection", "subsubsection", "paragraph", "subparagraph"]
        if document_class in BOOK_CLASSES:
            chain.insert(0, "chapter")
        counters.new("part")
        counters.new("equation", "chapter" if "chapter" in chain else None)
        parent: str | None = None
        for name in chain:
            counters.new(name, parent)
            parent = name
        return counters

    def new(self, name: str, within: str | None = None) -> None:
        self.values.setdefault(name, 0)
        self.within[name] = within

    def step(self, name: str) -> None:
        if name not in self.values:
            return
        self.values[name] += 1
        self.reset_children(name)

    def reset_children(self, name: str) -> None:
        for child, parent in self.within.items():
            if parent == name:
                self.values[child] = 0
                self.reset_children(child)

    def set(self, name: str, value: int) -> None:
        if name in self.values:
            self.values[name] = value

    def the(self, name: str) -> str:
        own = _STYLES[self.style.get(name, "arabic")](self.values.get(name, 0))
        parent = self.within.get(name)
        return f"{self.the(parent)}.{own}" if parent else own


@dataclass(frozen=True)
class TheoremKind:
    counter: str | None  # None: unnumbered (starred or `numbered=no`)


# -- 3. walking the document --------------------------------------------------------------

# (command, name as written, the file holding it, the root's folder) → the file TeX reads
InputResolver = Callable[[str, str, Path, Path], Path | None]

_COMMAND = re.compile(r"\\([A-Za-z@]+)(\*?)")
_BARE_NAME = re.compile(r"\s*([^\s{}\\%]+)")
_SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph")


@dataclass
class _Open:
    env: str
    start: int
    body: int  # where the statement's text starts
    file: Path
    seq: int
    title: str | None = None
    number: str | None = None


@dataclass
class _Item:
    number: str
    start: int
    body: int
    file: Path
    seq: int


@dataclass
class _FileText:
    path: Path
    raw: str
    masked: Masked
    line_starts: list[int]

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)


class _Walker:
    """Reads the document in reading order, keeping LaTeX's state across files."""

    def __init__(self, root: Path, resolve: InputResolver) -> None:
        self.root = root
        self.base = root.parent
        self.resolve = resolve
        self.counters = Counters.for_class("article")
        self.theorems: dict[str, TheoremKind] = {}
        self.conditionals: frozenset[str] = frozenset()
        self.book = False
        self.stack: list[_Open] = []
        self.lists: list[_Item | None] = []  # one slot per open list: its open free item
        self.found: list[tuple[int, Statement]] = []  # (reading order, statement)
        self.seq = 0
        self.read: list[Path] = []

    # -- files ---------------------------------------------------------------------------
    def load(self, path: Path) -> _FileText:
        try:
            raw = path.read_text(encoding="utf-8", errors="replace")
        except OSError as error:
            raise UsageError(f"Cannot read {path} ({error.strerror}); check the path.") from error
        self.read.append(path)
        self.conditionals |= frozenset(re.findall(r"\\newif\s*\\(if[A-Za-z@]+)", raw))
        masked = mask(raw, self.conditionals)
        starts = [0] + [m.end() for m in re.finditer("\n", raw)]
        return _FileText(path, raw, masked, starts)

    def walk(self, path: Path) -> None:
        if path in self.read:  # a file that inputs itself, directly or not
            return
        source = self.load(path)
        text = source.masked.structural
        pos = 0
        while (m := _COMMAND.search(text, pos)) is not None:
            pos = self.command(source, m.group(1), bool(m.group(2)), m.start(), m.end())

    # -- one command ---------------------------------------------------------------------
    def command(self, src: _FileText, name: str, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        handler = _HANDLERS.get(name)
        if handler is not None:
            return handler(self, src, star, start, end)
        if name in _SECTIONING:
            return self.sectioning(name, star, text, end)
        return end

    def documentclass(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        option = _read_optional(text, end)
        group = _read_group(text, option[1] if option else end)
        if group is None:
            return end
        self.book = group[0].strip() in BOOK_CLASSES
        self.counters = Counters.for_class(group[0].strip())
        return group[1]

    def usepackage(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        option = _read_optional(text, end)
        group = _read_group(text, option[1] if option else end)
        if group is None:
            return end
        for package in _names(group[0]):
            local = self.base / f"{package}.sty"
            if local.is_file():
                self.walk(local)
        return group[1]

    def newtheorem(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        env = _read_group(text, end)
        if env is None:
            return end
        name, pos = env[0].strip(), env[1]
        shared = _read_optional(text, pos)
        if shared is not None:
            pos = shared[1]
        title = _read_group(text, pos)
        if title is None:
            return pos
        pos = title[1]
        within = None if shared else _read_optional(text, pos)
        if within is not None:
            pos = within[1]
        if star:
            self.theorems[name] = TheoremKind(None)
        elif shared is not None:
            self.theorems[name] = TheoremKind(shared[0].strip())
        else:
            self.counters.new(name, within[0].strip() if within else None)
            self.theorems[name] = TheoremKind(name)
        return pos

    def declaretheorem(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        options = _read_optional(text, end)
        group = _read_group(text, options[1] if options else end)
        if group is None:
            return end
        settings: dict[str, str] = {}
        for part in _names(options[0] if options else ""):
            key, _, value = part.partition("=")
            settings[key.strip()] = value.strip().strip("{}")
        for name in _names(group[0]):
            if star or settings.get("numbered", "yes") == "no":
                self.theorems[name] = TheoremKind(None)
            elif shared := settings.get("sibling") or settings.get("sharenumber"):
                self.theorems[name] = TheoremKind(shared)
            else:
                parent = settings.get("numberwithin") or settings.get("parent")
                self.counters.new(name, parent or settings.get("within"))
                self.theorems[name] = TheoremKind(name)
        return group[1]

    def numberwithin(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        counter = _read_group(text, end)
        parent = _read_group(text, counter[1]) if counter else None
        if counter is None or parent is None:
            return end
        if counter[0].strip() in self.counters.values:
            name = counter[0].strip()
            without = text[start:end].startswith("\\counterwithout")
            self.counters.within[name] = None if without else parent[0].strip()
        return parent[1]

    def setcounter(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        counter = _read_group(text, end)
        value = _read_group(text, counter[1]) if counter else None
        if counter is None or value is None:
            return end
        name = counter[0].strip()
        try:
            amount = int(value[0].strip())
        except ValueError:
            return value[1]  # a computed value: LaTeX arithmetic is beyond this reader
        if text[start:end].startswith("\\addtocounter"):
            amount += self.counters.values.get(name, 0)
        self.counters.set(name, amount)
        return value[1]

    def appendix(self, src: _FileText, star: bool, start: int, end: int) -> int:
        top = "chapter" if self.book else "section"
        self.counters.set(top, 0)
        self.counters.reset_children(top)
        self.counters.style[top] = "Alph"
        return end

    def sectioning(self, name: str, star: bool, text: str, end: int) -> int:
        if not star:
            self.counters.step(name)
        return end

    def input(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        command = text[start + 1 : end].rstrip("*")
        group = _read_group(text, end)
        if command in ("import", "subimport"):
            second = _read_group(text, group[1]) if group else None
            if group is None or second is None:
                return end
            name, after = group[0].strip() + second[0].strip(), second[1]
        elif group is not None:
            name, after = group[0], group[1]
        elif command == "input":  # plain TeX's `\input name`
            m = _BARE_NAME.match(text, end)
            if m is None:
                return end
            name, after = m.group(1), m.end()
        else:
            return end
        path = self.resolve(command, name, src.path, self.base)
        if path is not None:
            self.walk(path)
        return after

    # -- environments --------------------------------------------------------------------
    def begin(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        group = _read_group(text, end)
        if group is None:
            return end
        env, pos = group[0].strip(), group[1]
        if env in LIST_ENVS:
            self.lists.append(None)
            return pos
        kind = self.theorems.get(env)
        if kind is None:
            if env in PROOF_ENVS:
                self.stack.append(_Open(env, start, pos, src.path, seq=0))
            return pos
        title = _read_optional(text, pos)
        if title is not None:
            pos = title[1]
        number = None
        if kind.counter is not None:
            self.counters.step(kind.counter)
            number = self.counters.the(kind.counter)
        title_text = _visible_arg(src, title) if title else None
        self.seq += 1
        self.stack.append(_Open(env, start, pos, src.path, self.seq, title_text or None, number))
        return pos

    def end(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        group = _read_group(text, end)
        if group is None:
            return end
        env, after = group[0].strip(), group[1]
        if env in LIST_ENVS and self.lists:
            self.close_item(src, len(self.lists) - 1, start)
            self.lists.pop()
            return after
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].env == env:
                opened = self.stack.pop(depth)
                if opened.number is not None and opened.file == src.path:
                    self.found.append((opened.seq, self.statement(src, opened, start, after)))
                break
        return after

    def item(self, src: _FileText, star: bool, start: int, end: int) -> int:
        if not self.lists:
            return end
        slot = len(self.lists) - 1
        self.close_item(src, slot, start)
        option = _read_optional(src.masked.structural, end)
        if option is None or self.stack:  # inside a theorem or proof: part of it
            return end
        self.seq += 1
        self.lists[slot] = _Item(_visible_arg(src, option), start, option[1], src.path, self.seq)
        return option[1]

    def close_item(self, src: _FileText, slot: int, stop: int) -> None:
        item = self.lists[slot]
        self.lists[slot] = None
        if item is None or item.file != src.path:
            return
        body = src.masked.visible[item.body : stop]
        if not MATH_MARKERS.search(src.masked.structural[item.body : stop]):
            return
        label, lean, uses = _metadata(src.masked.structural[item.body : stop])
        self.found.append(
            (
                item.seq,
                Statement(
                    kind="item",
                    number=item.number,
                    title=None,
                    label=label,
                    file=src.path,
                    line=src.line(item.start),
                    end_line=src.line(max(item.start, stop - 1)),
                    text=_clean_text(body),
                    lean=lean,
                    uses=uses,
                ),
            )
        )

    def statement(self, src: _FileText, opened: _Open, stop: int, after: int) -> Statement:
        structural = src.masked.structural[opened.body : stop]
        label, lean, uses = _metadata(_own_part(structural))
        return Statement(
            kind=opened.env,
            number=opened.number,
            title=opened.title,
            label=label,
            file=src.path,
            line=src.line(opened.start),
            end_line=src.line(after - 1),
            text=_clean_text(src.masked.visible[opened.body : stop]),
            lean=lean,
            uses=uses,
        )


_HANDLERS: dict[str, Callable[[_Walker, _FileText, bool, int, int], int]] = {
    "documentclass": _Walker.documentclass,
    "usepackage": _Walker.usepackage,
    "RequirePackage": _Walker.usepackage,
    "newtheorem": _Walker.newtheorem,
    "declaretheorem": _Walker.declaretheorem,
    "numberwithin": _Walker.numberwithin,
    "counterwithin": _Walker.numberwithin,
    "counterwithout": _Walker.numberwithin,
    "setcounter": _Walker.setcounter,
    "addtocounter": _Walker.setcounter,
    "appendix": _Walker.appendix,
    "input": _Walker.input,
    "include": _Walker.input,
    "subfile": _Walker.input,
    "import": _Walker.input,
    "subimport": _Walker.input,
    "begin": _Walker.begin,
    "end": _Walker.end,
    "item": _Walker.item,
}


def _own_part(structural: str) -> str:
    """The statement's text before its first `\\item`: where its own `\\label` lives."""
    first_label = structural.find("\\label")
    first_item = structural.find("\\item")
    if first_item < 0 or (0 <= first_label < first_item):
        return structural
    return structural[:first_item] if first_label < 0 else structural


def _metadata(structural: str) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    label = re.search(r"\\label\s*\{([^{}]*)\}", structural)
    lean = tuple(n for m in re.finditer(r"\\lean\s*\{([^{}]*)\}", structural) for n in _names(m[1]))
    uses = tuple(n for m in re.finditer(r"\\uses\s*\{([^{}]*)\}", structural) for n in _names(m[1]))
    return (label[1].strip() if label else None), lean, uses


def _clean_text(visible: str) -> str:
    """The statement's words: metadata removed, lines right-trimmed, dedented, ends trimmed."""
    lines = [line.rstrip() for line in META_COMMANDS.sub("", visible).split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    indents = [len(line) - len(line.lstrip()) for line in lines if line]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)


# -- 4. the .aux ------------------------------------------------------------------------

_NEWLABEL = re.compile(r"\\newlabel\{([^{}]+)\}\{\{((?:[^{}]|\{[^{}]*\})*)\}")


def aux_numbers(aux: Path) -> dict[str, str]:
    """`label → number` from `\\newlabel` in `aux` and the `.aux` files it `\\@input`s."""
    numbers: dict[str, str] = {}
    for path in _aux_files(aux):
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in _NEWLABEL.finditer(text):
            if not m.group(1).endswith("@cref"):
                numbers[m.group(1)] = m.group(2).strip()
    return numbers


def _aux_files(aux: Path) -> Iterator[Path]:
    seen: set[Path] = set()
    todo = [aux]
    while todo:
        path = todo.pop(0)
        if path in seen or not path.is_file():
            continue
        seen.add(path)
        yield path
        text = path.read_text(encoding="utf-8", errors="replace")
        todo.extend(aux.parent / name for name in re.findall(r"\\@input\{([^{}]+)\}", text))


def aux_is_current(aux: Path, sources: list[Path]) -> bool:
    """True when `aux` exists and is newer than every source the statements were read from."""
    if not aux.is_file():
        return False
    written = aux.stat().st_mtime_ns
    return all(written > source.stat().st_mtime_ns for source in sources if source.is_file())


# -- the entry point --------------------------------------------------------------------


@dataclass(frozen=True)
class Document:
    """A paper's statements in reading order, and what they were read from."""

    root: Path
    statements: tuple[Statement, ...]
    sources: tuple[Path, ...]
    numbered_by_aux: bool


def read_statements(
    root: Path, *, aux: Path | None = None, resolve: InputResolver = resolve_inclusion
) -> Document:
    """Every statement of the paper whose root document is `root`, in reading order."""
    root = root.resolve()
    walker = _Walker(root, resolve)
    walker.walk(root)
    statements = [statement for _, statement in sorted(walker.found, key=lambda f: f[0])]
    aux_path = aux if aux is not None else root.with_suffix(".aux")
    by_aux = aux_is_current(aux_path, walker.read)
    if by_aux:
        numbers = aux_numbers(aux_path)
        statements = [
            replace(s, number=numbers[s.label]) if s.kind != "item" and s.label in numbers else s
            for s in statements
        ]
    return Document(root, tuple(statements), tuple(walker.read), by_aux)
