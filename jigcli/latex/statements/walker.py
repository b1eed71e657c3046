"""Walking a paper in reading order, keeping LaTeX's state across its files.

The root document and the files it `\\input`s / `\\include`s are read in reading order, one
shared set of counters across them: `\\newtheorem` (shared counters `[theorem]`, numbering
within `[section]`, starred ones unnumbered), thmtools' `\\declaretheorem`, `\\newcounter`,
`\\numberwithin` / `\\counterwithin`, sectioning commands (starred ones do not step, nor does
`\\chapter` in a book's `\\frontmatter` / `\\backmatter`), `\\appendix` (letters for
sections, or chapters in a book), `\\setcounter` / `\\addtocounter` / `\\stepcounter`, and
the numbered displays that step `equation` (a theorem may share its counter). Declarations
made through the paper's own macros (`\\newcommand{\\mythm}[2]{\\newtheorem{#1}{#2}}`,
`\\def`, `\\NewDocumentCommand`) are expanded where the macro is used; an environment of the
paper's own whose opening code begins a theorem-like one or a proof (`\\newenvironment`) stands
for it, its `[#k]` argument the title and its `\\label{#k}` one the label.
Local packages (`\\usepackage{macros}` with `macros.sty` beside the paper) are read for
declarations only.
`\\IfFileExists` / `\\InputIfFileExists` take the branch TeX would take. An `\\input` whose
file exists neither beside the paper nor in TeX's own tree is `missing`.

Every numbered theorem-like environment closed in the file it opened in is a statement; a
`proof` belongs to the statement its `\\proves{label}` names, else to the statement before it
(as plasTeX's depgraph decides); a `\\lean{…}` outside every statement and proof is kept as
`stray_lean`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from jigcli.errors import UsageError
from jigcli.latex.root import outside_folder, tex_finds
from jigcli.latex.statements.counters import BOOK_CLASSES, Counters, TheoremKind
from jigcli.latex.statements.groups import comma_list, read_group, read_optional, tex_words
from jigcli.latex.statements.marks import as_typeset, clean_text, labels_in, marks_in, own_part
from jigcli.latex.statements.masking import Masked, mask
from jigcli.latex.statements.model import Blueprint, Notice, Place, Proof, Statement

PROOF_ENVS = frozenset({"proof"})
# Displays that number their rows (amsmath's and LaTeX's own), and those numbered once.
ROW_DISPLAYS = frozenset({"align", "gather", "flalign", "alignat", "xalignat", "eqnarray"})
ONE_DISPLAYS = frozenset({"equation", "multline"})
_NO_NUMBER = re.compile(r"\\(?:nonumber|notag|tag)(?![A-Za-z@])")

# (command, name as written, the file holding it, the root's folder) → the file TeX reads
InputResolver = Callable[[str, str, Path, Path], Path | None]

_COMMAND = re.compile(r"\\([A-Za-z@]+)(\*?)")
_BARE_NAME = re.compile(r"\s*([^\s{}\\%]+)")
_CONTROL_NAME = re.compile(r"\s*\\([A-Za-z@]+|.)")
_DEF_PARAMETERS = re.compile(r"[^{}\\]{0,80}(?=\{)")
# In a wrapper's opening code: the environment it begins, and `[#k]` right after, the
# argument that becomes the inner environment's title.
_BEGUN = re.compile(r"\\begin\s*\{([^{}]+)\}")
_MAX_WRAPPING = 8
_TITLE_ARGUMENT = re.compile(r"\s*\[\s*#([1-9])\s*\]")
_LABEL_ARGUMENT = re.compile(r"\\label\s*\{\s*#([1-9])\s*\}")
_SECTIONING = ("part", "chapter", "section", "subsection", "subsubsection", "paragraph")
# How far the paper's own macros are expanded: deep enough for a macro that calls another,
# bounded so a macro that calls itself (twice, each time) cannot stall the reader.
_MAX_MACRO_DEPTH = 8
_MAX_EXPANSIONS = 2000
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
    kind: str | None = None  # the theorem-like environment it stands for, when a wrapper
    label: str | None = None  # the label a wrapper's opening code gives it
    before: _Found | None = None  # a proof's: the statement closed last at its depth
    cut: int | None = None  # a proof's: where the first theorem-like environment inside begins
    # Statements and proofs closed inside it (start, end): their marks are their own, as
    # plasTeX gives a `\\uses` to the environment around it.
    inner: list[tuple[int, int]] = field(default_factory=list)


@dataclass(frozen=True)
class _Wrapper:
    """An environment of the paper's own whose opening code opens a theorem-like one or a
    proof (`\\newenvironment{mythm}[1][]{\\begin{theorem}[#1]}{\\end{theorem}}`)."""

    inner: str  # the environment its opening code begins
    arguments: str  # one letter per argument: o (the optional first, with a default) or m
    title: int | None  # which argument the inner environment's `[title]` is, if any
    label: int | None  # which argument its opening code's `\\label{#k}` is, if any


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


class Walker:
    """Reads the document in reading order, keeping LaTeX's state across files."""

    def __init__(self, root: Path, resolve: InputResolver) -> None:
        self.root = root
        self.base = root.parent
        self.resolve = resolve
        self.counters = Counters.for_class("article")
        self.theorems: dict[str, TheoremKind] = {}
        self.conditionals: frozenset[str] = frozenset()
        self.macros: dict[str, _Macro] = {}
        self.wrappers: dict[str, _Wrapper] = {}
        self.book = False
        self.mainmatter = True
        self.grouped_equations = 0  # open `subequations`: its displays share one number
        self.stack: list[_Open] = []
        self.found: list[_Found] = []
        self.proofs: list[tuple[_Found | None, str | None, Proof]] = []  # (before it, proves, …)
        self.last_closed: dict[int, _Found] = {}  # by depth: the statement that closed last there
        self.notices: list[Notice] = []
        self.graph_kinds: tuple[str, ...] | None = None  # leanblueprint's `thms=`, when given
        self.graph_kinds_place: Place | None = None
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
        self.labels.update(labels_in(source.masked.structural))
        self.recover_unclosed(source)

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
        option = read_optional(text, end)
        group = read_group(text, option[1] if option else end)
        if group is None:
            return end
        self.book = group[0].strip() in BOOK_CLASSES
        self.counters = Counters.for_class(group[0].strip())
        return group[1]

    def usepackage(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        option = read_optional(text, end)
        group = read_group(text, option[1] if option else end)
        if group is None:
            return end
        for package in comma_list(group[0]):
            local = self.base / f"{package}.sty"
            if local.is_file():
                self.walk(local)
            if package in GRAPH_PACKAGES and option is not None:
                self.graph_option(src, option[0], start)
        return group[1]

    def graph_option(self, src: _FileText, options: str, start: int) -> None:
        """leanblueprint passes its options on to plastexdepgraph, whose `thms=a+b+c` names
        the environments its graph shows."""
        kinds = graph_kinds_option(options)
        if kinds is not None:
            self.graph_kinds = kinds
            self.graph_kinds_place = Place(src.path, src.line(start), "usepackage", kinds)

    def newtheorem(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        env = read_group(text, end)
        if env is None:
            return end
        name, pos = env[0].strip(), env[1]
        shared = read_optional(text, pos)
        if shared is not None:
            pos = shared[1]
        title = read_group(text, pos)
        if title is None:
            return pos
        pos = title[1]
        within = None if shared else read_optional(text, pos)
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
        options = read_optional(text, end)
        group = read_group(text, options[1] if options else end)
        if group is None:
            return end
        settings: dict[str, str] = {}
        for part in comma_list(options[0] if options else ""):
            key, _, value = part.partition("=")
            settings[key.strip()] = value.strip().strip("{}")
        for name in comma_list(group[0]):
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
        counter = read_group(text, end)
        if counter is None:
            return end
        within = read_optional(text, counter[1])
        parent = within[0].strip() if within else None
        self.counters.new(counter[0].strip(), parent, prefixed=False)
        return within[1] if within else counter[1]

    def stepcounter(self, src: _FileText, star: bool, start: int, end: int) -> int:
        counter = read_group(src.masked.structural, end)
        if counter is None:
            return end
        self.counters.step(counter[0].strip())
        return counter[1]

    def numberwithin(self, src: _FileText, star: bool, start: int, end: int) -> int:
        text = src.masked.structural
        counter = read_group(text, end)
        parent = read_group(text, counter[1]) if counter else None
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
        counter = read_group(text, end)
        value = read_group(text, counter[1]) if counter else None
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
        count = read_optional(text, pos)
        arguments = 0
        if count is not None:
            pos = count[1]
            arguments = int(count[0].strip()) if count[0].strip().isdigit() else 0
        default = read_optional(text, pos) if arguments else None
        if default is not None:
            pos = default[1]
        body = read_group(text, pos)
        if body is None:
            return pos
        spec = ("o" if default is not None else "m") + "m" * max(arguments - 1, 0)
        self.remember(name, spec[:arguments], default[0] if default else None, body[0])
        return body[1]

    def newdocumentcommand(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """xparse's `\\NewDocumentCommand{\\name}{spec}{body}` (and its siblings)."""
        text = src.masked.structural
        name, pos = _macro_name(text, end)
        spec = read_group(text, pos) if name is not None else None
        body = read_group(text, spec[1]) if spec is not None else None
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
        body = read_group(text, parameters.end())
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

    def newenvironment(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """`\\newenvironment{name}[n][default]{opening}{closing}`: a wrapper when its
        opening code begins a theorem-like environment or a proof (looked up when used, so
        one declared later counts)."""
        read, pos = _read_arguments(src.masked.structural, end, "moomm")
        if len(read) < 4 or read[0] is None or read[3] is None:
            return pos  # malformed: nothing declared
        name, count, default, opening = read[0][0].strip(), read[1], read[2], read[3]
        begun = _BEGUN.search(opening[0])
        if begun is None:
            self.wrappers.pop(name, None)  # redefined as something that opens nothing
            return pos
        # LaTeX takes 1 to 9 arguments; anything else declares none here (never a huge count).
        written = count[0].strip() if count else ""
        n = int(written) if len(written) == 1 and written in "123456789" else 0
        arguments = ("o" if default else "m") + "m" * (n - 1) if n else ""
        title = _TITLE_ARGUMENT.match(opening[0], begun.end())
        label = _LABEL_ARGUMENT.search(opening[0], begun.end())
        self.wrappers[name] = _Wrapper(
            begun.group(1).strip(),
            arguments,
            int(title.group(1)) if title else None,
            int(label.group(1)) if label else None,
        )
        return pos

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
        read, pos = _read_arguments(src.masked.structural, end, macro.arguments)
        values = [(macro.default or "") if given is None else given[0] for given in read]
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
        group = read_group(text, end)
        if command in ("import", "subimport"):
            second = read_group(text, group[1]) if group else None
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
        name = read_group(text, end)
        then = read_group(text, name[1]) if name else None
        otherwise = read_group(text, then[1]) if then else None
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
        group = read_group(text, end)
        if group is None:
            return end
        env, pos = group[0].strip(), group[1]
        if env.rstrip("*") in ROW_DISPLAYS | ONE_DISPLAYS | {"subequations"}:
            self.display(env, text, pos)
            return pos
        wrapper = self.wrappers.get(env)
        inner = self.unwrapped(env)
        kind = self.theorems.get(inner)
        if kind is None:
            if inner in PROOF_ENVS:
                pos = _read_arguments(text, pos, wrapper.arguments)[1] if wrapper else pos
                before = self.opening_at(len(self.stack))
                self.stack.append(_Open(env, start, pos, src.path, 0, kind=inner, before=before))
            return pos
        self.opening_at(len(self.stack))
        for opened in self.stack:
            if opened.file == src.path and opened.kind in PROOF_ENVS and opened.cut is None:
                opened.cut = start  # where an unclosed proof is taken to end
        label = None
        if wrapper is None:
            title = read_optional(text, pos)
            pos = title[1] if title is not None else pos
        else:
            read, pos = _read_arguments(text, pos, wrapper.arguments)
            given = {number: arg for number, arg in enumerate(read, start=1) if arg is not None}
            title = _nonblank(given, wrapper.title)
            label_arg = _nonblank(given, wrapper.label)
            label = label_arg[0].strip() if label_arg else None
            self.labels.update({label} if label else ())
        number = None
        if kind.counter is not None:
            self.counters.step(kind.counter)
            number = self.counters.the(kind.counter)
        title_text = as_typeset(_visible_arg(src, title)) if title else None
        self.seq += 1
        opened = _Open(
            env, start, pos, src.path, self.seq, title_text or None, number, inner, label
        )
        self.stack.append(opened)
        return pos

    def opening_at(self, depth: int) -> _Found | None:
        """An environment opens at `depth`: what closed deeper belongs to an earlier one.
        The statement that closed last at `depth` is what a proof opening there proves."""
        for deeper in [d for d in self.last_closed if d > depth]:
            del self.last_closed[deeper]
        return self.last_closed.get(depth)

    def unwrapped(self, env: str) -> str:
        """The environment `env` stands for, through wrappers of wrappers (a bounded number:
        one that names itself ends there)."""
        for _ in range(_MAX_WRAPPING):
            wrapper = self.wrappers.get(env)
            if wrapper is None or wrapper.inner == env:
                break
            env = wrapper.inner
        return env

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
        group = read_group(text, end)
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
                if self.stack and self.stack[-1].file == src.path:
                    self.stack[-1].inner.append((opened.start, after))
                if (opened.kind or opened.env) in PROOF_ENVS:
                    self.proof(src, opened, start)
                elif opened.number is not None:
                    found = _Found(opened.seq, self.statement(src, opened, start, after))
                    self.found.append(found)
                    self.last_closed[len(self.stack)] = found
                else:  # unnumbered: not a statement the PDF numbers, so its \lean is stray
                    self.unstated_lean(src, opened, start)
                break
        return after

    def lean(self, src: _FileText, star: bool, start: int, end: int) -> int:
        """A `\\lean{…}` outside every statement and proof: kept, since nothing checks it."""
        group = read_group(src.masked.structural, end)
        if group is None:
            return end
        if not self.stack:
            names = comma_list(tex_words(group[0]))
            self.stray_lean.append(Place(src.path, src.line(start), "lean", names))
        return group[1]

    def statement(self, src: _FileText, opened: _Open, stop: int, after: int) -> Statement:
        structural = _own_text(src, opened, stop)
        meta = marks_in(structural)
        own = marks_in(own_part(structural)).labels
        labels = tuple(dict.fromkeys((*own, opened.label) if opened.label else own))
        label = labels[0] if labels else None
        unbalanced = _unbalanced_brace(structural)
        if unbalanced is not None:
            self.notices.append(_brace_notice(src, opened, opened.body + unbalanced, stop))
        return Statement(
            kind=opened.kind or opened.env,
            number=opened.number,
            title=opened.title,
            label=label,
            file=src.path,
            line=src.line(opened.start),
            end_line=src.line(after - 1),
            text=clean_text(src.masked.visible[opened.body : stop]),
            lean=meta.lean,
            uses=meta.uses,
            blueprint=Blueprint(meta.leanok, meta.mathlibok, meta.notready, meta.discussion),
            labels=labels,
        )

    def unstated_lean(self, src: _FileText, opened: _Open, stop: int) -> None:
        names = marks_in(src.masked.structural[opened.body : stop]).lean
        if names:
            self.stray_lean.append(Place(src.path, src.line(opened.start), "lean", names))

    def proof(self, src: _FileText, opened: _Open, stop: int) -> None:
        meta = marks_in(_own_text(src, opened, stop))
        proof = Proof(src.path, src.line(opened.start), meta.leanok, meta.uses)
        self.proofs.append((opened.before, meta.proves, proof))
        self.unstated_lean(src, opened, stop)  # a proof's \lean names nothing the graph shows

    def recover_unclosed(self, src: _FileText) -> None:
        """What this file opened and never closed, at its end. A proof is taken to end where
        the first theorem-like environment inside it begins, else at the end of the file, and
        is read as such (leanblueprint recovers the same way); a theorem-like environment is
        not read as a statement. Either way a notice names the line that opened it."""
        unclosed = [opened for opened in self.stack if opened.file == src.path]
        self.stack = [opened for opened in self.stack if opened.file != src.path]
        for opened in unclosed:
            begun = f"\\begin{{{opened.env}}}"
            if opened.kind not in PROOF_ENVS:
                said = f"{begun} is never closed: LaTeX stops with an error; not a statement here"
                self.notices.append(Notice(src.path, src.line(opened.start), said))
                continue
            stop = opened.cut if opened.cut is not None else len(src.masked.structural)
            at = f"line {src.line(stop)}" if opened.cut is not None else "the end of the file"
            self.proof(src, opened, stop)
            said = f"{begun} is never closed: read as ending at {at}"
            self.notices.append(Notice(src.path, src.line(opened.start), said))

    def statements(self) -> list[Statement]:
        """The statements in reading order, each with the proof that proves it: the one its
        `\\proves{label}` names, else the statement before it (plastexdepgraph's
        `find_proved_thm`, also when `\\proves` names no label at all). A `\\proves` of a label
        that is not a statement's (a section's) proves nothing the graph shows."""
        proved: dict[int, Proof] = {}
        by_label = {label: f for f in self.found for label in f.statement.labels}
        for before, proves, proof in self.proofs:
            if proves in by_label:
                target: _Found | None = by_label[proves]
            else:
                target = None if proves in self.labels else before
            if target is not None:
                proved[target.seq] = proof
        ordered = sorted(self.found, key=lambda f: f.seq)
        return [
            replace(f.statement, blueprint=replace(f.statement.blueprint, proof=proved[f.seq]))
            if f.seq in proved
            else f.statement
            for f in ordered
        ]


_HANDLERS: dict[str, Callable[[Walker, _FileText, bool, int, int], int]] = {
    "documentclass": Walker.documentclass,
    "usepackage": Walker.usepackage,
    "RequirePackage": Walker.usepackage,
    "newtheorem": Walker.newtheorem,
    "declaretheorem": Walker.declaretheorem,
    "newcounter": Walker.newcounter,
    "stepcounter": Walker.stepcounter,
    "refstepcounter": Walker.stepcounter,
    "numberwithin": Walker.numberwithin,
    "counterwithin": Walker.numberwithin,
    "counterwithout": Walker.numberwithin,
    "setcounter": Walker.setcounter,
    "addtocounter": Walker.setcounter,
    "appendix": Walker.appendix,
    "frontmatter": Walker.matter,
    "mainmatter": Walker.matter,
    "backmatter": Walker.matter,
    "newcommand": Walker.newcommand,
    "renewcommand": Walker.newcommand,
    "providecommand": Walker.newcommand,
    "DeclareRobustCommand": Walker.newcommand,
    "NewDocumentCommand": Walker.newdocumentcommand,
    "RenewDocumentCommand": Walker.newdocumentcommand,
    "ProvideDocumentCommand": Walker.newdocumentcommand,
    "DeclareDocumentCommand": Walker.newdocumentcommand,
    "def": Walker.define,
    "gdef": Walker.define,
    "edef": Walker.define,
    "xdef": Walker.define,
    "let": Walker.let,
    "input": Walker.input,
    "include": Walker.input,
    "subfile": Walker.input,
    "import": Walker.input,
    "subimport": Walker.input,
    "IfFileExists": Walker.if_file_exists,
    "InputIfFileExists": Walker.if_file_exists,
    "newenvironment": Walker.newenvironment,
    "renewenvironment": Walker.newenvironment,
    "begin": Walker.begin,
    "end": Walker.end,
    "lean": Walker.lean,
}
# What an expanded macro body may do: declare, count, and define or call more macros.
_DECLARATION_HANDLERS = frozenset(
    {
        "newtheorem", "declaretheorem", "newcounter", "numberwithin", "counterwithin",
        "counterwithout", "setcounter", "addtocounter", "newcommand", "renewcommand",
        "providecommand", "DeclareRobustCommand", "NewDocumentCommand", "RenewDocumentCommand",
        "ProvideDocumentCommand", "DeclareDocumentCommand", "def", "gdef", "edef", "xdef", "let",
        "newenvironment", "renewenvironment",
    }
)  # fmt: skip


def _read_arguments(text: str, pos: int, kinds: str) -> tuple[list[tuple[str, int] | None], int]:
    """The arguments after `pos`, one letter of `kinds` each (`o`: an optional `[…]`, None
    when left out; `m`: a `{…}` group or a single token), each with the index after it, and
    where they end. Reading stops at a mandatory argument that is neither."""
    read: list[tuple[str, int] | None] = []
    for kind in kinds:
        given = read_optional(text, pos) if kind == "o" else read_group(text, pos)
        if given is None and kind != "o":
            token = _CONTROL_NAME.match(text, pos)
            if token is None:
                break
            given = (token.group().strip(), token.end())
        read.append(given)
        pos = given[1] if given is not None else pos
    return read, pos


def _nonblank(arguments: dict[int, tuple[str, int]], which: int | None) -> tuple[str, int] | None:
    """Argument `which` of those given, unless it was not given or is blank."""
    given = arguments.get(which) if which is not None else None
    return given if given is not None and given[0].strip() else None


def _macro_name(text: str, i: int) -> tuple[str | None, int]:
    """The macro a definition names, `{\\name}` or `\\name`, and where its name ends."""
    group = read_group(text, i)
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


def _visible_arg(src: _FileText, arg: tuple[str, int]) -> str:
    """An argument read from the structural mask, as the reader sees it, on one line."""
    content, after = arg
    return " ".join(src.masked.visible[after - 1 - len(content) : after - 1].split())


GRAPH_PACKAGES = frozenset({"blueprint", "depgraph"})
_THMS_OPTION = re.compile(r"^\s*thms\s*=\s*(.*?)\s*$", re.DOTALL)


def graph_kinds_option(options: str) -> tuple[str, ...] | None:
    """plastexdepgraph's `thms=a+b+c` among a package's options, split at `+`."""
    for option in comma_list(options):
        found = _THMS_OPTION.match(option)
        if found:
            kinds = tuple(k.strip() for k in found.group(1).strip("{}").split("+") if k.strip())
            return kinds or None
    return None


def _own_text(src: _FileText, opened: _Open, stop: int) -> str:
    """An environment's structural text up to `stop`, the statements and proofs closed inside
    it blanked (same length, line breaks kept)."""
    text = src.masked.structural
    parts, pos = [], opened.body
    for start, end in opened.inner:
        if start < pos or end > stop:
            continue
        parts += [text[pos:start], re.sub(r"[^\n]", " ", text[start:end])]
        pos = end
    return "".join([*parts, text[pos:stop]])


def _unbalanced_brace(text: str) -> int | None:
    """Where the braces of `text` stop balancing: the first `}` that closes nothing, else the
    first `{` never closed. `\\{` and `\\}` are text, not braces."""
    opened: list[int] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "{":
            opened.append(i)
        elif c == "}":
            if not opened:
                return i
            opened.pop()
        i += 1
    return opened[0] if opened else None


def _brace_notice(src: _FileText, opened: _Open, where: int, stop: int) -> Notice:
    brace = src.masked.structural[where]
    kind = opened.kind or opened.env
    if brace == "{":
        said = (
            f"a {{ in this {kind} is never closed before \\end{{{opened.env}}} "
            f"(line {src.line(stop)}): LaTeX would read on past it; jig reads the {kind} to there"
        )
    else:
        said = f"a }} in this {kind} closes nothing: LaTeX stops with an error here"
    return Notice(src.path, src.line(where), said)
