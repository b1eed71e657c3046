"""The statements a paper's PDF shows, read from its LaTeX source, numbered as LaTeX numbers them.

1. Mask each file (`mask`): `%` comments, `\\iffalse…\\fi` (and the false branch of `\\iftrue`),
   `verbatim` / `lstlisting` / `minted` / `comment` blocks (and environments named by
   `\\excludecomment`) become blanks of the same length, so offsets and line numbers stay
   true. A `%` inside `\\verb|…|`, `\\url{…}` or `\\href{…}` is text, and `\\%` is text. A
   second, structural mask also blanks what `\\verb`, `\\url` and `\\href` quote, so a
   `\\begin{theorem}` written inside `\\verb` starts nothing.
2. Walk the root document and the files it `\\input`s / `\\include`s in reading order, one
   shared set of counters across them: `\\newtheorem` (shared counters `[theorem]`, numbering
   within `[section]`, starred ones unnumbered), thmtools' `\\declaretheorem`, `\\newcounter`,
   `\\numberwithin` / `\\counterwithin`, sectioning commands (starred ones do not step, nor does
   `\\chapter` in a book's `\\frontmatter` / `\\backmatter`), `\\appendix` (letters for
   sections, or chapters in a book), `\\setcounter` / `\\addtocounter` / `\\stepcounter`, and
   the numbered displays that step `equation` (a theorem may share its counter). Declarations
   made through the paper's own macros (`\\newcommand{\\mythm}[2]{\\newtheorem{#1}{#2}}`,
   `\\def`, `\\NewDocumentCommand`) are expanded where the macro is used. Local packages
   (`\\usepackage{macros}` with `macros.sty` beside the paper) are read for declarations only.
   `\\IfFileExists` / `\\InputIfFileExists` take the branch TeX would take. An `\\input` whose
   file exists neither beside the paper nor in TeX's own tree is `missing`.
3. Every numbered theorem-like environment is a statement: kind (the environment), number,
   optional title (`\\texorpdfstring` read as the PDF typesets it), label, file and line range,
   its text (comments and blueprint metadata removed), and the blueprint's data
   (leanblueprint's `\\lean{A, B}`, `\\uses{…}`, `\\leanok`, `\\mathlibok`, `\\notready`,
   `\\discussion{N}`), with its proof's: a `proof` belongs to the statement its `\\proves{label}`
   names, else to the statement before it (as plasTeX's depgraph decides), and brings its own
   `\\leanok` and `\\uses`. A theorem's `\\item[(a)]` parts are the theorem; an `\\item`
   outside every theorem-like environment is prose, never a statement. A `\\lean{…}` outside
   every statement and proof names nothing anyone can check: it is kept as `stray_lean`.
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
from jigcli.latex.root import outside_folder, resolve_inclusion, tex_finds

VERBATIM_ENVS = frozenset(
    {"verbatim", "verbatim*", "Verbatim", "lstlisting", "minted", "comment", "alltt*"}
)
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
# Displays that number their rows (amsmath's and LaTeX's own), and those numbered once.
ROW_DISPLAYS = frozenset({"align", "gather", "flalign", "alignat", "xalignat", "eqnarray"})
ONE_DISPLAYS = frozenset({"equation", "multline"})
_NO_NUMBER = re.compile(r"\\(?:nonumber|notag|tag)(?![A-Za-z@])")


@dataclass(frozen=True)
class Proof:
    """A statement's proof, as the blueprint sees it."""

    file: Path
    line: int
    leanok: bool
    uses: tuple[str, ...]


@dataclass(frozen=True)
class Blueprint:
    """A statement's leanblueprint status, as its author marked it."""

    leanok: bool = False  # the statement is formalized
    mathlibok: bool = False  # it is already in Mathlib
    notready: bool = False  # the blueprint needs more work before it can be formalized
    discussion: str | None = None  # the issue that discusses it
    proof: Proof | None = None


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
    blueprint: Blueprint = Blueprint()

    @property
    def all_uses(self) -> tuple[str, ...]:
        """What the statement and its proof `\\uses`, each once."""
        proof = self.blueprint.proof.uses if self.blueprint.proof else ()
        return tuple(dict.fromkeys((*self.uses, *proof)))


@dataclass(frozen=True)
class Place:
    """Something named at a place in the sources: a missing input, a stray `\\lean{…}`."""

    file: Path
    line: int
    command: str  # the command as written: input, include, lean, …
    names: tuple[str, ...]


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
    # Reset by their parent but numbered alone: `\newcounter{c}[p]` and `\counterwithin*`
    # leave `\thec` as `\arabic{c}`.
    unprefixed: set[str] = field(default_factory=set)

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

    def new(self, name: str, within: str | None = None, *, prefixed: bool = True) -> None:
        self.values.setdefault(name, 0)
        self.within[name] = within
        if prefixed:
            self.unprefixed.discard(name)
        else:
            self.unprefixed.add(name)

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
        return f"{self.the(parent)}.{own}" if parent and name not in self.unprefixed else own


@dataclass(frozen=True)
class TheoremKind:
    counter: str | None  # None: unnumbered (starred or `numbered=no`)


# -- 3. walking the document --------------------------------------------------------------

# (command, name as written, the file holding it, the root's folder) → the file TeX reads
InputResolver = Callable[[str, str, Path, Path], Path | None]

_COMMAND = re.compile(r"\\([A-Za-z@]+)(\*?)")
_BARE_NAME = re.compile(r"\s*([^\s{}\\%]+)")
_CONTROL_NAME = re.compile(r"\s*\\([A-Za-z@]+|.)")
_DEF_PARAMETERS = re.compile(r"[^{}\\]{0,80}(?=\{)")
_SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph")
# How far the paper's own macros are expanded: deep enough for a macro that calls another,
# bounded so a macro that calls itself (twice, each time) cannot stall the reader.
_MAX_MACRO_DEPTH = 8
_MAX_EXPANSIONS = 2000
_MAX_STATEMENT_LINES = 200  # how far a statement's `\\uses` is looked for
_DECLARING = re.compile(r"\\(?:newtheorem|declaretheorem|newcounter)(?![A-Za-z@])")


@dataclass
class _Open:
    env: str
    start: int
    body: int  # where the statement's text starts
    file: Path
    seq: int
    title: str | None = None
    number: str | None = None


@dataclass(frozen=True)
class _Macro:
    """A macro of the paper's own whose body declares theorems or counters."""

    arguments: str  # one letter per argument: m (braced or one token) or o (optional)
    default: str | None  # the first optional argument's default (`\newcommand`'s `[default]`)
    body: str


@dataclass
class _FileText:
    path: Path
    raw: str
    masked: Masked
    line_starts: list[int]
    expanded: bool = False  # a macro's body after expansion: declarations only

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)


@dataclass
class _Found:
    """A statement as it closed, before its proof (which comes later) is attached."""

    seq: int
    statement: Statement


class _Walker:
    """Reads the document in reading order, keeping LaTeX's state across files."""

    def __init__(self, root: Path, resolve: InputResolver) -> None:
        self.root = root
        self.base = root.parent
        self.resolve = resolve
        self.counters = Counters.for_class("article")
        self.theorems: dict[str, TheoremKind] = {}
        self.conditionals: frozenset[str] = frozenset()
        self.macros: dict[str, _Macro] = {}
        self.book = False
        self.mainmatter = True
        self.grouped_equations = 0  # open `subequations`: its displays share one number
        self.stack: list[_Open] = []
        self.found: list[_Found] = []
        self.proofs: list[tuple[_Found | None, str | None, Proof]] = []  # (before it, proves, …)
        self.labels: set[str] = set()
        self.missing: list[Place] = []
        self.stray_lean: list[Place] = []
        self.seq = 0
        self.expansions = 0
        self.depth = 0
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
        self.scan(source, 0, len(source.raw))
        self.labels.update(_labels(source.masked.structural))

    def scan(self, src: _FileText, start: int, stop: int) -> None:
        """Every command of `src` from `start` to `stop`, in order."""
        text = src.masked.structural
        pos = start
        while (m := _COMMAND.search(text, pos, stop)) is not None:
            pos = self.command(src, m.group(1), bool(m.group(2)), m.start(), m.end())

    # -- one command ---------------------------------------------------------------------
    def command(self, src: _FileText, name: str, star: bool, start: int, end: int) -> int:
        handler = _HANDLERS.get(name)
        if src.expanded and name not in _DECLARATION_HANDLERS and name not in self.macros:
            return end  # an expanded macro body is read for what it declares, nothing else
        if handler is not None:
            return handler(self, src, star, start, end)
        if name in self.macros:
            return self.expand(src, self.macros[name], end)
        if name in _SECTIONING:
            return self.sectioning(name, star, end)
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

    def newcounter(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        counter = _read_group(text, end)
        if counter is None:
            return end
        within = _read_optional(text, counter[1])
        parent = within[0].strip() if within else None
        self.counters.new(counter[0].strip(), parent, prefixed=False)
        return within[1] if within else counter[1]

    def stepcounter(self, src: _FileText, star: bool, start: int, end: int) -> int:
        counter = _read_group(src.masked.structural, end)
        if counter is None:
            return end
        self.counters.step(counter[0].strip())
        return counter[1]

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
            if star:  # `\counterwithin*`: reset by the parent, numbered alone
                self.counters.unprefixed.add(name)
            else:
                self.counters.unprefixed.discard(name)
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

    def matter(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """`\\frontmatter` / `\\backmatter` number no chapter; `\\mainmatter` numbers again."""
        self.mainmatter = src.masked.structural[start:end] == "\\mainmatter"
        return end

    def sectioning(self, name: str, star: bool, end: int) -> int:
        unnumbered_chapter = name == "chapter" and self.book and not self.mainmatter
        if not star and not unnumbered_chapter:
            self.counters.step(name)
        return end

    # -- the paper's own macros ----------------------------------------------------------
    def newcommand(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """`\\newcommand{\\name}[n][default]{body}` (and renew-, provide-, DeclareRobust-):
        remembered when the body declares something, skipped over either way."""
        text = src.masked.structural
        name, pos = _macro_name(text, end)
        if name is None:
            return end
        count = _read_optional(text, pos)
        arguments = 0
        if count is not None:
            pos = count[1]
            arguments = int(count[0].strip()) if count[0].strip().isdigit() else 0
        default = _read_optional(text, pos) if arguments else None
        if default is not None:
            pos = default[1]
        body = _read_group(text, pos)
        if body is None:
            return pos
        spec = ("o" if default is not None else "m") + "m" * max(arguments - 1, 0)
        self.remember(name, spec[:arguments], default[0] if default else None, body[0])
        return body[1]

    def newdocumentcommand(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """xparse's `\\NewDocumentCommand{\\name}{spec}{body}` (and its siblings)."""
        text = src.masked.structural
        name, pos = _macro_name(text, end)
        spec = _read_group(text, pos) if name is not None else None
        body = _read_group(text, spec[1]) if spec is not None else None
        if name is None or spec is None or body is None:
            return end
        letters = "".join(
            "o" if letter in "oOdD" else "m" for letter in re.sub(r"\{[^{}]*\}", "", spec[0])
            if letter.isalpha() and letter not in "sStT"
        )  # fmt: skip
        self.remember(name, letters, None, body[0])
        return body[1]

    def define(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """TeX's `\\def\\name#1#2{body}` (and `\\gdef`, `\\edef`, `\\xdef`)."""
        text = src.masked.structural
        name, pos = _macro_name(text, end)
        if name is None:
            return end
        parameters = _DEF_PARAMETERS.match(text, pos)
        if parameters is None:  # not a definition this reader can follow: read on after it
            return pos
        body = _read_group(text, parameters.end())
        if body is None:
            return parameters.end()
        self.remember(name, "m" * parameters.group().count("#"), None, body[0])
        return body[1]

    def let(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """`\\let\\a\\b` / `\\let\\a=\\b`: both names are read, neither is run."""
        text = src.masked.structural
        first = _CONTROL_NAME.match(text, end)
        if first is None:
            return end
        pos = first.end()
        equals = re.compile(r"\s*=?").match(text, pos)
        second = _CONTROL_NAME.match(text, equals.end() if equals else pos)
        return second.end() if second else pos

    def remember(self, name: str, arguments: str, default: str | None, body: str) -> None:
        calls_declaring = any(
            re.search(rf"\\{re.escape(m)}(?![A-Za-z@])", body) for m in self.macros
        )
        if _DECLARING.search(body) or calls_declaring:
            self.macros[name] = _Macro(arguments, default, body)
        else:
            self.macros.pop(name, None)  # redefined as something that declares nothing

    def expand(self, src: _FileText, macro: _Macro, end: int) -> int:
        """Read the macro's arguments after `end`, then what its body declares with them."""
        text = src.masked.structural
        values: list[str] = []
        pos = end
        for kind in macro.arguments:
            if kind == "o":
                optional = _read_optional(text, pos)
                values.append(optional[0] if optional else (macro.default or ""))
                pos = optional[1] if optional else pos
                continue
            group = _read_group(text, pos)
            if group is not None:
                values.append(group[0])
                pos = group[1]
                continue
            token = _CONTROL_NAME.match(text, pos)
            if token is None:
                break
            values.append(token.group().strip())
            pos = token.end()
        self.expansions += 1
        if self.depth >= _MAX_MACRO_DEPTH or self.expansions > _MAX_EXPANSIONS:
            return pos
        body = re.sub(r"#(#|[1-9])", lambda m: _argument(m.group(1), values), macro.body)
        expanded = _FileText(src.path, body, mask(body, self.conditionals), [0], expanded=True)
        self.depth += 1
        try:
            self.scan(expanded, 0, len(body))
        finally:
            self.depth -= 1
        return pos

    # -- reading other files -------------------------------------------------------------
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
        place = Place(src.path, src.line(start), command, (name.strip(),))
        if outside_folder(name.strip()):  # TeX, paranoid under jig, will not read it either
            self.missing.append(place)
            return after
        path = self.resolve(command, name, src.path, self.base)
        if path is not None:
            self.walk(path)
        elif _written_out(name) and not tex_finds(name.strip(), command):
            self.missing.append(place)
        return after

    def if_file_exists(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """`\\IfFileExists{f}{then}{else}`: the branch TeX takes; `\\InputIfFileExists` also
        reads the file when it is there (and is never missing when it is not)."""
        text = src.masked.structural
        name = _read_group(text, end)
        then = _read_group(text, name[1]) if name else None
        otherwise = _read_group(text, then[1]) if then else None
        if name is None or then is None or otherwise is None:
            return end
        found = self.resolve("input", name[0], src.path, self.base)
        branch_end = then[1] if found is not None else otherwise[1]
        branch = branch_end - 1 - len(then[0] if found is not None else otherwise[0])
        self.scan(src, branch, branch_end - 1)
        if found is not None and text[start:end] == "\\InputIfFileExists":
            self.walk(found)
        return otherwise[1]

    # -- environments --------------------------------------------------------------------
    def begin(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        group = _read_group(text, end)
        if group is None:
            return end
        env, pos = group[0].strip(), group[1]
        if env.rstrip("*") in ROW_DISPLAYS | ONE_DISPLAYS | {"subequations"}:
            self.display(env, text, pos)
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
        title_text = _as_typeset(_visible_arg(src, title)) if title else None
        self.seq += 1
        self.stack.append(_Open(env, start, pos, src.path, self.seq, title_text or None, number))
        return pos

    def display(self, env: str, text: str, body: int) -> None:
        """Step `equation` as LaTeX does for a numbered display: once, or once per row."""
        if env == "subequations":
            self.counters.step("equation")
            self.grouped_equations += 1
            return
        if env.endswith("*") or self.grouped_equations:
            return
        close = text.find(f"\\end{{{env}}}", body)
        content = text[body : close if close >= 0 else len(text)]
        rows = _rows(content) if env in ROW_DISPLAYS else [content]
        for row in rows:
            if not _NO_NUMBER.search(row):
                self.counters.step("equation")

    def end(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        group = _read_group(text, end)
        if group is None:
            return end
        env, after = group[0].strip(), group[1]
        if env == "subequations":
            self.grouped_equations = max(0, self.grouped_equations - 1)
            return after
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth].env == env:
                opened = self.stack.pop(depth)
                if opened.file != src.path:
                    break  # begun in another file: its text cannot be read whole
                if opened.env in PROOF_ENVS:
                    self.proof(src, opened, start)
                elif opened.number is not None:
                    found = _Found(opened.seq, self.statement(src, opened, start, after))
                    self.found.append(found)
                else:  # unnumbered: not a statement the PDF numbers, so its \lean is stray
                    self.unstated_lean(src, opened, start)
                break
        return after

    def lean(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """A `\\lean{…}` outside every statement and proof: kept, since nothing checks it."""
        group = _read_group(src.masked.structural, end)
        if group is None:
            return end
        if not self.stack:
            names = _names(_tex_words(group[0]))
            self.stray_lean.append(Place(src.path, src.line(start), "lean", names))
        return group[1]

    def statement(self, src: _FileText, opened: _Open, stop: int, after: int) -> Statement:
        structural = src.masked.structural[opened.body : stop]
        meta = _metadata(structural)
        label = _metadata(_own_part(structural)).label
        return Statement(
            kind=opened.env,
            number=opened.number,
            title=opened.title,
            label=label,
            file=src.path,
            line=src.line(opened.start),
            end_line=src.line(after - 1),
            text=_clean_text(src.masked.visible[opened.body : stop]),
            lean=meta.lean,
            uses=meta.uses,
            blueprint=Blueprint(meta.leanok, meta.mathlibok, meta.notready, meta.discussion),
        )

    def unstated_lean(self, src: _FileText, opened: _Open, stop: int) -> None:
        names = _metadata(src.masked.structural[opened.body : stop]).lean
        if names:
            self.stray_lean.append(Place(src.path, src.line(opened.start), "lean", names))

    def proof(self, src: _FileText, opened: _Open, stop: int) -> None:
        meta = _metadata(src.masked.structural[opened.body : stop])
        proof = Proof(src.path, src.line(opened.start), meta.leanok, meta.uses)
        before = self.found[-1] if self.found and not self.stack else None
        self.proofs.append((before, meta.proves, proof))
        self.unstated_lean(src, opened, stop)  # a proof's \lean names nothing the graph shows

    def statements(self) -> list[Statement]:
        """The statements in reading order, each with the proof that proves it."""
        proved: dict[int, Proof] = {}
        by_label = {f.statement.label: f for f in self.found if f.statement.label}
        for before, proves, proof in self.proofs:
            target = by_label.get(proves) if proves else before
            if target is not None:
                proved[target.seq] = proof
        ordered = sorted(self.found, key=lambda f: f.seq)
        return [
            replace(f.statement, blueprint=replace(f.statement.blueprint, proof=proved[f.seq]))
            if f.seq in proved
            else f.statement
            for f in ordered
        ]


_HANDLERS: dict[str, Callable[[_Walker, _FileText, bool, int, int], int]] = {
    "documentclass": _Walker.documentclass,
    "usepackage": _Walker.usepackage,
    "RequirePackage": _Walker.usepackage,
    "newtheorem": _Walker.newtheorem,
    "declaretheorem": _Walker.declaretheorem,
    "newcounter": _Walker.newcounter,
    "stepcounter": _Walker.stepcounter,
    "refstepcounter": _Walker.stepcounter,
    "numberwithin": _Walker.numberwithin,
    "counterwithin": _Walker.numberwithin,
    "counterwithout": _Walker.numberwithin,
    "setcounter": _Walker.setcounter,
    "addtocounter": _Walker.setcounter,
    "appendix": _Walker.appendix,
    "frontmatter": _Walker.matter,
    "mainmatter": _Walker.matter,
    "backmatter": _Walker.matter,
    "newcommand": _Walker.newcommand,
    "renewcommand": _Walker.newcommand,
    "providecommand": _Walker.newcommand,
    "DeclareRobustCommand": _Walker.newcommand,
    "NewDocumentCommand": _Walker.newdocumentcommand,
    "RenewDocumentCommand": _Walker.newdocumentcommand,
    "ProvideDocumentCommand": _Walker.newdocumentcommand,
    "DeclareDocumentCommand": _Walker.newdocumentcommand,
    "def": _Walker.define,
    "gdef": _Walker.define,
    "edef": _Walker.define,
    "xdef": _Walker.define,
    "let": _Walker.let,
    "input": _Walker.input,
    "include": _Walker.input,
    "subfile": _Walker.input,
    "import": _Walker.input,
    "subimport": _Walker.input,
    "IfFileExists": _Walker.if_file_exists,
    "InputIfFileExists": _Walker.if_file_exists,
    "begin": _Walker.begin,
    "end": _Walker.end,
    "lean": _Walker.lean,
}
# What an expanded macro body may do: declare, count, and define or call more macros.
_DECLARATION_HANDLERS = frozenset(
    {
        "newtheorem", "declaretheorem", "newcounter", "numberwithin", "counterwithin",
        "counterwithout", "setcounter", "addtocounter", "newcommand", "renewcommand",
        "providecommand", "DeclareRobustCommand", "NewDocumentCommand", "RenewDocumentCommand",
        "ProvideDocumentCommand", "DeclareDocumentCommand", "def", "gdef", "edef", "xdef", "let",
    }
)  # fmt: skip


def _macro_name(text: str, i: int) -> tuple[str | None, int]:
    """The macro a definition names, `{\\name}` or `\\name`, and where its name ends."""
    group = _read_group(text, i)
    if group is not None:
        inner = _CONTROL_NAME.fullmatch(group[0].strip())
        return (inner.group(1) if inner else None), group[1]
    bare = _CONTROL_NAME.match(text, i)
    return (bare.group(1), bare.end()) if bare else (None, i)


def _argument(which: str, values: list[str]) -> str:
    if which == "#":
        return "#"
    index = int(which) - 1
    return values[index] if index < len(values) else ""


def missing_words(place: Place) -> str:
    """Why a missing input is missing, and what to do, for a place line."""
    named = f"\\{place.command}{{{place.names[0]}}}"
    if outside_folder(place.names[0]):
        return f"{named}: outside the paper's folder, which TeX may not read under jig"
    return f"{named}: no such file beside the paper or in TeX's own; generate it or fix the name"


def _written_out(name: str) -> bool:
    """A file name as written, not computed by a macro (`\\input{#1}`, `\\input{\\jobname}`)."""
    return bool(name.strip()) and not any(c in name for c in "#\\")


def _rows(content: str) -> list[str]:
    """A multi-row display's rows: split at `\\\\` outside braces and inner environments."""
    rows: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(content):
        if content.startswith("\\begin", i):
            depth += 1
        elif content.startswith("\\end", i):
            depth -= 1
        elif content[i] == "{":
            depth += 1
        elif content[i] == "}":
            depth -= 1
        elif content.startswith("\\\\", i) and depth == 0:
            rows.append(content[start:i])
            start = i + 2
            i += 2
            continue
        elif content[i] == "\\":
            i += 1  # `\{`, `\}` and the like are not braces
        i += 1
    rows.append(content[start:])  # after a final `\\`, amsmath numbers an empty row too
    return rows


def _own_part(structural: str) -> str:
    """The statement's text before its first `\\item`: where its own `\\label` lives."""
    first_label = structural.find("\\label")
    first_item = structural.find("\\item")
    if first_item < 0 or (0 <= first_label < first_item):
        return structural
    return structural[:first_item] if first_label < 0 else structural


@dataclass(frozen=True)
class _Meta:
    label: str | None
    lean: tuple[str, ...]
    uses: tuple[str, ...]
    leanok: bool
    mathlibok: bool
    notready: bool
    discussion: str | None
    proves: str | None


def _metadata(structural: str) -> _Meta:
    def groups(command: str) -> list[str]:
        pattern = rf"\\{command}\s*\{{([^{{}}]*)\}}"
        return [_tex_words(m) for m in re.findall(pattern, structural)]

    def flag(command: str) -> bool:
        return re.search(rf"\\{command}(?![A-Za-z@])", structural) is not None

    labels, discussions, proves = groups("label"), groups("discussion"), groups("proves")
    return _Meta(
        label=labels[0] if labels else None,
        lean=tuple(n for group in groups("lean") for n in _names(group)),
        uses=tuple(n for group in groups("uses") for n in _names(group)),
        leanok=flag("leanok") or flag("mathlibok"),  # leanblueprint: mathlibok is leanok too
        mathlibok=flag("mathlibok"),
        notready=flag("notready"),
        discussion=discussions[0].lstrip("#").strip() or None if discussions else None,
        proves=proves[0] if proves else None,
    )


def _labels(structural: str) -> set[str]:
    return {_tex_words(m) for m in re.findall(r"\\label\s*\{([^{}]*)\}", structural)}


def _tex_words(text: str) -> str:
    """An argument as TeX reads it: a line break and the spaces around it are one space."""
    return " ".join(text.split())


def _as_typeset(title: str) -> str:
    """A title as the PDF typesets it: `\\texorpdfstring{tex}{pdf}` is its first argument."""
    out, pos = [], 0
    while (found := title.find("\\texorpdfstring", pos)) >= 0:
        tex = _read_group(title, found + len("\\texorpdfstring"))
        pdf = _read_group(title, tex[1]) if tex else None
        if tex is None or pdf is None:
            break
        out.append(title[pos:found] + tex[0])
        pos = pdf[1]
    return "".join(out) + title[pos:]


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
    labels: frozenset[str] = frozenset()  # every `\label` of the paper, statements' or not
    missing: tuple[Place, ...] = ()  # inputs whose file is nowhere
    stray_lean: tuple[Place, ...] = ()  # `\lean{…}` outside every statement

    def dangling_uses(self) -> list[tuple[Statement, str, Place]]:
        """Each `\\uses{label}` (of a statement or its proof) that no `\\label` defines, with
        the place of the `\\uses` that names it."""
        found = []
        for statement in self.statements:
            proof = statement.blueprint.proof
            for label in statement.all_uses:
                if label in self.labels:
                    continue
                starts = [(statement.file, statement.line)]
                starts += [(proof.file, proof.line)] if proof else []
                place = next(
                    (
                        Place(file, line, "uses", (label,))
                        for file, start in starts
                        if (line := _line_naming(file, start, label)) is not None
                    ),
                    Place(statement.file, statement.line, "uses", (label,)),
                )
                found.append((statement, label, place))
        return found


def _line_naming(path: Path, start: int, label: str) -> int | None:
    """The first line from `start` on (a statement's or a proof's) that names `label`."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for number in range(start, min(len(lines), start + _MAX_STATEMENT_LINES) + 1):
        if label in lines[number - 1]:
            return number
    return None


def read_statements(
    root: Path, *, aux: Path | None = None, resolve: InputResolver = resolve_inclusion
) -> Document:
    """Every statement of the paper whose root document is `root`, in reading order."""
    root = root.resolve()
    walker = _Walker(root, resolve)
    walker.walk(root)
    statements = walker.statements()
    aux_path = aux if aux is not None else root.with_suffix(".aux")
    by_aux = aux_is_current(aux_path, walker.read)
    if by_aux:
        numbers = aux_numbers(aux_path)
        statements = [
            replace(s, number=numbers[s.label]) if s.label in numbers else s for s in statements
        ]
    return Document(
        root,
        tuple(statements),
        tuple(walker.read),
        by_aux,
        frozenset(walker.labels),
        tuple(walker.missing),
        tuple(walker.stray_lean),
    )
