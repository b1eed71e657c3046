"""One scan of one text: the token walk, and the readers each rule needs."""

from __future__ import annotations

import re
from pathlib import Path

from jigcli.errors import UsageError
from jigcli.lean.lexer import (
    HASH_COMMANDS,
    ID_FIRST,
    ID_REST,
    KEYWORDS,
    NOT_TEXT,
    NOT_TEXT_BMP,
    TOKENS,
    Lexer,
    changes_reading,
)
from jigcli.lean.policy import tables
from jigcli.lean.policy.positions import (
    _GROUP_LOOKAHEAD,
    _NAMED_AHEAD_RE,
    _PLAIN_LITERAL,
    _PLAIN_NAMED,
    _TACTIC_ONLY,
    _TACTIC_VALUED,
    TACTICS,
    Meanings,
    Stream,
    configuration,
    tactic_position,
)
from jigcli.lean.policy.rules import (
    _DEBUG,
    ATTRIBUTES,
    COMMANDS,
    COMPONENTS,
    CONSTANTS,
    FORMS,
    PREFIXES,
    WORDS,
    Violation,
)
from jigcli.lean.policy.skip import _SAFE_BEFORE, skips
from jigcli.lean.policy.tables import (
    _ATTRIBUTE_KINDS,
    _NOTATION_LOOKAHEAD,
    ALLOWED_ATTRIBUTES,
    ALLOWED_COMMANDS,
    ALLOWED_IMPORT_ROOTS,
    ALLOWED_OPTIONS,
    ALLOWED_PERCENT_TOKENS,
    DECLARATION_KEYWORDS,
    FORBIDDEN_ROOTS,
    GLUED_KEYWORD,
    LEAN_MATH_NAMESPACES,
    MODULE_ATTRIBUTES,
    NOTATION_KEYWORDS,
    PERCENT_TOKENS,
    REJECTED_IMPORT_ROOTS,
    _in_tactic_namespace,
    misleading_token,
)


class SourceUnreadable(UsageError):
    """A Lean source that cannot be read at all (missing, a directory, no permission)."""


# Direction-changing and zero-width characters, refused anywhere, comments and strings included.
_UNSEEN = re.compile("[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
_NOT_TEXT = re.compile(f"[{NOT_TEXT}]")
_NOT_TEXT_BMP = re.compile(f"[{NOT_TEXT_BMP}]")
_SAFE_CHAR = re.compile(f"[{_SAFE_BEFORE}]")
_COMMENTS = frozenset({"line_comment", "block_comment", "doc_comment", "module_doc"})
_TRIVIA = _COMMENTS | {"ws"}
_GLUABLE = _COMMENTS | {"char", "string"}
_WORDLIKE = frozenset({"ident", "keyword"})
_PART = re.compile(r"«([^»]*)»|([^.«]+)")
_PLAIN_WORD = re.compile(rf"[{ID_FIRST}][{ID_REST}]*")
_CLOSERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩"}
_OPENERS = frozenset({*_CLOSERS, "@["})
_LOOKAHEAD = 16
_REST_CHAR = re.compile(f"[{ID_REST}]")


def _ends_with(text: str, pos: int, suffix: str) -> bool:
    """Whether `text[:pos]` ends with `suffix` (without copying `text[:pos]`)."""
    return pos >= len(suffix) and text.startswith(suffix, pos - len(suffix))


def _blank_before(text: str, pos: int) -> int:
    """Where the blanks that end right before `pos` begin."""
    while pos > 0 and text[pos - 1] in " \t\r\n":
        pos -= 1
    return pos


def name_parts(ident: str) -> list[str]:
    """An identifier's components with `«»` escapes undone: `Lean.«ofReduceBool»` gives
    `["Lean", "ofReduceBool"]`."""
    return [m.group(1) if m.group(1) is not None else m.group(2) for m in _PART.finditer(ident)]


def _unrooted(parts: list[str]) -> list[str]:
    """The name `_root_.X` stands for: `X`."""
    return parts[1:] if parts[:1] == ["_root_"] else parts


def option_allowed(name: str) -> bool:
    return any(
        name.startswith(option) if option.endswith(".") else name == option
        for option in ALLOWED_OPTIONS
    )


class _Scan:
    """One scan of one text: the findings, and the small readers the rules share. Every
    reader moves forward through the text, and none recurses, so a scan takes linear time."""

    def __init__(self, text: str, home: str | None = None) -> None:
        self.text = text
        self.home = home
        self.plain = _NOT_TEXT_BMP.search(text) is None
        self.declared: frozenset[str] = frozenset()
        self.percent_declared = False
        self.aesop_tag = False
        self.meanings = Meanings(text)
        self.lexer = Lexer(text)
        self.stream = Stream(text, self.lexer)
        self.use_table(frozenset())
        self.found: dict[tuple[int, str], Violation] = {}
        self._counted = (0, 1)  # (offset, line there): findings come mostly in order

    def use_table(self, declared: frozenset[str]) -> None:
        """Read on with the pinned table plus the tokens the file has declared so far."""
        self.declared = declared
        self.lexer = Lexer(self.text, declared)
        self.stream.switch(self.lexer)
        plain, strict = skips(declared)
        self.skip = (plain if self.plain else strict).match

    def add(self, pos: int, construct: str, message: str) -> None:
        offset, line = self._counted if pos >= self._counted[0] else (0, 1)
        line += self.text.count("\n", offset, pos)
        self._counted = (pos, line)
        self.found.setdefault((line, construct), Violation(line, construct, message))

    def form(self, pos: int, form: str, construct: str | None = None) -> None:
        self.add(pos, construct or form, FORMS[form].message)

    def next_token(self, pos: int) -> tuple[str, int, int]:
        """The next token that is not whitespace or a comment: (kind, start, end)."""
        n = len(self.text)
        while pos < n:
            kind, end = self.lexer.at(pos)
            if kind not in _TRIVIA:
                return kind, pos, end
            pos = end
        return "eof", n, n

    def next_text(self, pos: int) -> tuple[str, int, int]:
        _, start, end = self.next_token(pos)
        return self.text[start:end], start, end

    # -- the whole text ----------------------------------------------------------------------

    def unseen(self) -> None:
        """Direction-changing and zero-width characters, wherever they are."""
        if self.plain:  # they are all in `NOT_TEXT_BMP`
            return
        for m in _UNSEEN.finditer(self.text):
            self.form(m.start(), "not Lean text", f"U+{ord(m.group()):04X}")

    # -- the header: `module`? `prelude`? (`public`? `meta`? `import` `all`? Name)* ------------

    def header(self) -> int:
        """Judge the header; return where the first command starts."""
        pos = 0
        first = True
        while True:
            _, start, end = self.next_token(pos)
            word = self.text[start:end]
            if first and word == "module":
                if not tables.MODULE_SYSTEM_ACCEPTED:
                    self.form(start, "module")
            elif word == "prelude":
                self.form(start, "prelude")
            elif word in ("public", "meta", "import") and self.import_ahead(start):
                end = self.import_(start)
            else:
                return start
            first = False
            pos = end

    def import_ahead(self, pos: int) -> bool:
        word, _, end = self.next_text(pos)
        while word in ("public", "meta"):
            word, _, end = self.next_text(end)
        return word == "import"

    def import_(self, pos: int) -> int:
        word, start, end = self.next_text(pos)
        while word != "import":
            if word == "public" and not tables.MODULE_SYSTEM_ACCEPTED:
                self.form(start, "module", "public import")
            elif word == "meta":
                self.add(start, "meta", WORDS["meta"].message)
            word, start, end = self.next_text(end)
        kind, name_start, name_end = self.next_token(end)
        if self.text[name_start:name_end] == "all":
            kind, name_start, name_end = self.next_token(name_end)
        if kind not in _WORDLIKE:
            self.add(start, "import", "an import names a module, like `import Mathlib.Tactic`")
            return end
        module = self.text[name_start:name_end]
        root = name_parts(module)[0]
        if root in REJECTED_IMPORT_ROOTS:
            self.add(start, f"import {module}", REJECTED_IMPORT_ROOTS[root])
        elif root not in ALLOWED_IMPORT_ROOTS:
            allowed = ", ".join(ALLOWED_IMPORT_ROOTS)
            self.add(start, f"import {module}", f"imports come only from {allowed}")
        return name_end

    # -- the body ----------------------------------------------------------------------------

    def body(self, pos: int, stop: int | None = None) -> None:
        """Judge the code from `pos` to `stop` (the end of the text by default)."""
        text = self.text
        # Only the file's own reading marks where tokens start: inside an interpolated
        # string's braces the tokens are the string's, and lexing from there would not be.
        mark = self.stream.mark if stop is None else _no_mark
        stop = len(text) if stop is None else stop
        while True:
            boring = self.skip(text, pos, stop)
            assert boring is not None  # a `*+` pattern always matches
            pos = boring.end()
            mark(pos)
            if pos >= stop:
                return
            kind, end = self.lexer.at(pos)
            pos = self.token(kind, pos, end)

    def token(self, kind: str, start: int, end: int, *, in_attributes: bool = False) -> int:
        """Judge one token; return where scanning goes on."""
        text = self.text
        if kind in _WORDLIKE:
            return self.word(start, end, in_attributes=in_attributes)
        if kind == "command":
            self.command(start, end)
        elif kind == "name":
            self.name_literal(start, end)
        elif kind == "symbol" and text.startswith("@[", start) and not in_attributes:
            return self.tagged(start, self.attributes(end))
        elif kind == "symbol" and text.startswith("`(", start):
            self.form(start, "`(…)")
        elif kind == "symbol" and text[start] == "#":
            self.hash_symbol(start)
        elif kind == "symbol" and text[start] == "(" and _NAMED_AHEAD_RE.match(text, end):
            self.named_group(start, end, in_attributes=in_attributes)
        elif kind == "error":
            return self.error(start, end)
        elif kind in _GLUABLE and start > 0 and not _SAFE_CHAR.match(text, start - 1):
            self.form(start, "glued comment" if kind in _COMMENTS else "glued literal")
        if kind == "string" and text[start] == '"' and "{" in text[start:end]:
            self.braces(start, end)
        return end

    def error(self, start: int, end: int) -> int:
        text = self.text
        if _NOT_TEXT.match(text, start):
            self.form(start, "not Lean text", f"U+{ord(text[start]):04X}")
        else:
            self.form(start, "malformed literal")
        if text.startswith("/-", start):
            return end  # Lean, too, reads an unterminated comment to the end
        return start + 1  # what the broken literal would have hidden is code

    def command(self, start: int, end: int) -> None:
        command = self.text[start:end]
        if command in ALLOWED_COMMANDS:
            return
        rule = COMMANDS.get(command)
        why = TOKENS["hash_commands"][command]["why"]
        self.add(start, command, rule.message if rule else f"{why}: {FORMS['#…'].message}")

    def hash_symbol(self, start: int) -> None:
        """`#` then a name, which is no command token: Lean reads `#` and the name (Mathlib's
        `#s` for `Finset.card s`), unless an import added the command; at the start of a line
        only a command stands, so there it is refused as an unknown command."""
        if start > 0 and self.text[start - 1] != "\n":
            return
        m = _PLAIN_WORD.match(self.text, start + 1)
        if m is not None:
            self.form(start, "unknown #command", f"#{m.group()}")

    def word(self, start: int, end: int, *, in_attributes: bool = False) -> int:
        text = self.text
        word = text[start:end]
        rule = WORDS.get(word) or WORDS.get(word.rstrip("!?"))
        if rule is not None and not self.harmless_here(word, start, end):
            self.add(start, rule.construct, rule.message)
        for prefix, rule in PREFIXES.items():
            if word.startswith(prefix) and word not in _PREFIXED_HARMLESS:
                self.add(start, rule.construct, rule.message)
        if GLUED_KEYWORD.match(text, start):
            self.form(start, "glued name", word)
        parts = name_parts(word)
        self.constants(start, parts)
        if "«" in word:
            self.escapes(start, word)
        self.reference(start, parts)
        if text.startswith("%", end):
            self.percent(word, start, end)
        if word in DECLARATION_KEYWORDS:
            if not in_attributes:  # `@[instance]`, `@[class]` name attributes
                self.declaration(word, start, end)
        elif word == "import":
            self.form(start, "import")
        elif word == "native":
            self.native(start, end)
        elif word == "set_option":
            self.set_option(start, end)
        elif word in NOTATION_KEYWORDS:
            return self.notation(start, end)
        elif word == "public" and not tables.MODULE_SYSTEM_ACCEPTED:
            self.form(start, "module", "public")
        elif word == "open":
            if self.next_text(end)[0] == "private":
                self.form(start, "open private")
        elif word == "attribute" and not in_attributes:
            bracket, _, bracket_end = self.next_text(end)
            if bracket == "[":
                return self.tagged(start, self.attributes(bracket_end), command=True)
        return end

    def notation(self, start: int, end: int) -> int:
        """A notation command: the tokens its string atoms declare, up to `=>`; return where
        its right-hand side starts. The atoms are syntax, not strings a program builds, so no
        interpolation is read in them. Each token is judged (`misleading_token`), and the rest
        are added to the table the scan reads with from here on, as Lean adds them."""
        pos = end
        declared = set(self.declared)
        for _ in range(_NOTATION_LOOKAHEAD):
            kind, token_start, pos = self.next_token(pos)
            if self.text.startswith("=>", token_start) or kind == "eof":
                self.declare(declared)
                return pos
            if kind != "string" or self.text[token_start] != '"':
                continue
            atom = self.text[token_start + 1 : pos - 1].strip(" ")
            if misleading_token(atom):  # refused, and read on as Lean reads it
                self.form(token_start, "notation token", f'"{atom}"')
            if atom not in HASH_COMMANDS and atom not in PERCENT_TOKENS:
                declared.add(atom)
        self.form(start, "unreadable notation")
        return end

    def declare(self, declared: set[str]) -> None:
        """Tokens a notation declared: `%` among them makes `word% x` read as `word % x`
        (the file's own notation, `df D% h`); those that change reading go to the lexer."""
        if any(atom.startswith("%") for atom in declared):
            self.percent_declared = True
        relevant = frozenset(atom for atom in declared if changes_reading(atom))
        if relevant - self.declared:
            self.use_table(self.declared | relevant)

    def harmless_here(self, word: str, start: int, end: int) -> bool:
        """Words a rule names that are something else where they stand: `unsafe` as an Aesop
        phase, and tactic names outside tactic position (`(hint : Integrable f)`,
        `rw [integral_integral hint]`): a tactic runs only where a tactic starts."""
        if word == "unsafe":
            return self.aesop_phase(start, end)
        if word in ("tactic", "tactic'"):  # conv's `tactic => tac`, a block of tactics
            return self.next_text(end)[0] == "="
        if word in _TACTIC_ONLY:
            # The tactic takes no argument: a word or `:` after it makes it a name (a binder
            # `(hint : P)` on a line of its own, an argument).
            ahead = _AFTER_TACTIC.match(self.text, end)
            return ahead is None or not tactic_position(self.stream, start)
        return False

    def aesop_phase(self, start: int, end: int) -> bool:
        """Whether `unsafe` at `start` is the phase of an Aesop rule (`aesop (add unsafe h)`,
        `(add safe h, unsafe 50% apply g)`, `@[aesop unsafe apply]`), which only orders the
        search: it follows `add`, `aesop` or `,` (where the modifier `unsafe` cannot stand)
        and comes before no declaration keyword (the modifier always does)."""
        tokens = self.stream.before(start)
        before = self.stream.word(tokens[-1]) if tokens else ""
        ahead, _, _ = self.next_text(end)
        modifier_ahead = ahead in _DECLARATION_STARTS
        return before in ("add", "aesop", ",") and not modifier_ahead

    def percent(self, word: str, start: int, end: int) -> None:
        """`word%`: a token of its own where the table has it (`eval% e`), else `word % …`
        as Lean reads it (`k%3`, `C.card%3`). A `word%` the table lacks followed by a space
        is refused, since it is written as an elaborator is (fail closed)."""
        token = f"{word}%"
        if token in ALLOWED_PERCENT_TOKENS:
            return
        spaced = not self.percent_declared and not _GLUED_OPERAND.match(self.text, end + 1)
        if token in PERCENT_TOKENS or spaced:
            self.form(start, "word%", token)

    def constants(self, start: int, parts: list[str]) -> None:
        for part in parts:
            rule = CONSTANTS.get(part)
            if rule is not None:
                self.add(start, rule.construct, rule.message)
            for pattern, rule in COMPONENTS:
                if pattern.fullmatch(part):
                    self.add(start, part, rule.message)

    def escapes(self, start: int, word: str) -> None:
        """`«x»` around a plain word: refused unless the word is a keyword, which a name
        needs the guillemets for (`theorem «end»`) and which no rule looks for."""
        for m in _PART.finditer(word):
            escaped = m.group(1)
            needed = escaped in _ESCAPABLE_KEYWORDS
            if escaped is not None and not needed and _PLAIN_WORD.fullmatch(escaped):
                self.form(start, "escaped identifier", f"«{escaped}»")

    def _at_home(self, parts: list[str]) -> bool:
        return self.home is not None and ".".join([*parts, ""]).startswith(self.home + ".")

    def reference(self, start: int, parts: list[str]) -> None:
        """A name used anywhere: none may reach a forbidden root but `Lean`'s math corners,
        and those not through `_root_.` (which only a declaration needs: `where _root_.…`)."""
        rooted = parts[:1] == ["_root_"]
        parts = _unrooted(parts)
        root = parts[0] if parts else ""
        if _in_tactic_namespace(parts):
            self.form(start, "reaches a protected namespace", ".".join(parts[:2]))
        if root not in FORBIDDEN_ROOTS or self._at_home(parts):
            return
        if root == "Lean":
            if rooted or len(parts) == 1 or parts[1] not in LEAN_MATH_NAMESPACES:
                self.form(start, "Lean.…", "_root_." * rooted + ".".join(parts[:2]))
        elif root == "Qq":
            self.form(start, "Qq")
        else:
            self.form(start, "reaches a protected namespace", root)

    def declaration(self, keyword: str, at: int, end: int) -> None:
        """The name a declaration keyword at `at` declares (or a `namespace` opens)."""
        word, _, end = self.next_text(end)
        if keyword == "class" and word in ("inductive", "abbrev"):
            word, _, end = self.next_text(end)
        names = [word]
        # `instance (priority := …) name`, `alias ⟨mp, mpr⟩ := iff`
        if (keyword, word) in (("instance", "("), ("alias", "⟨")):
            group = self.group(end, _CLOSERS[word])
            if group is None:
                self.form(at, "unreadable declaration", keyword)
                return
            names, end = group
            if keyword == "instance":
                names = [self.next_text(end)[0]]
        for name in names:
            parts = _unrooted(name_parts(name))
            if parts:
                self.meanings.declare(parts[-1])
            protected = parts[:1] and parts[0] in FORBIDDEN_ROOTS and not self._at_home(parts)
            if protected or _in_tactic_namespace(parts):
                self.form(at, "reaches a protected namespace", f"{keyword} {name}")

    def group(
        self, pos: int, closer: str, *, limit: int = 0, nested: bool = False
    ) -> tuple[list[str], int] | None:
        """The tokens of a short bracket group whose opener ends right before `pos`, and its
        end; None when it does not close within `limit` (`_LOOKAHEAD` by default) tokens (a
        bound that keeps the lookahead, which the body scan repeats over the same tokens,
        linear). `nested`: brackets inside the group are counted, so an inner `closer` does
        not end it."""
        tokens: list[str] = []
        depth = 0
        for _ in range(limit or _LOOKAHEAD):
            kind, start, end = self.next_token(pos)
            word = self.text[start:end]
            if kind == "eof":
                return None
            if word == closer and depth == 0:
                return tokens, end
            if nested:
                depth += (word in _OPENERS) - (word in _CLOSERS.values())
            tokens.append(word)
            pos = end
        return None

    def name_literal(self, start: int, end: int) -> None:
        word = self.text[start:end].lstrip("`")
        parts = _unrooted(name_parts(word))
        self.constants(start, parts)
        if "«" in word:
            self.escapes(start, word)
        if parts and parts[0] in FORBIDDEN_ROOTS and not self._at_home(parts):
            self.form(start, "name literal", f"`{word}")

    def braces(self, start: int, end: int) -> None:
        """The code between the braces of a string, which Lean runs if the string interpolates.
        Both readings agree only when that code holds no `"` or `\\` and its `}` comes before
        the closing quote; then the code is scanned, and otherwise the string is refused."""
        text = self.text
        close = end - 1
        pos = start + 1
        while pos < close:
            c = text[pos]
            if c == "\\":
                pos += 2
                continue
            if c != "{":
                pos += 1
                continue
            rbrace = self.closing_brace(pos + 1, close)
            if rbrace is None or _QUOTE_OR_ESCAPE.search(text, pos + 1, rbrace):
                self.form(start, "string with braces")
                return
            self.body(pos + 1, rbrace)  # no string inside, so this goes no deeper
            pos = rbrace + 1

    def closing_brace(self, pos: int, limit: int) -> int | None:
        """Where the `}` that closes a `{` ending right before `pos` is, if before `limit`."""
        depth = 0
        while pos < limit:
            kind, end = self.lexer.at(pos)
            if end > limit:
                return None
            symbol = self.text[pos] if kind == "symbol" else ""
            if symbol == "}" and depth == 0:
                return pos
            depth += (symbol == "{") - (symbol == "}")
            pos = end
        return None

    def native(self, start: int, end: int) -> None:
        if _ends_with(self.text, _blank_before(self.text, start), "+"):
            self.form(start, "decide +native")
        assign, _, after = self.next_text(end)
        if assign == ":=" and self.next_text(after)[0] != "false":
            self.form(start, "native := …")

    def named_group(self, start: int, end: int, *, in_attributes: bool = False) -> None:
        """`(name := value)` at `start`: where it configures a tactic, an elaborator or an
        attribute, the value must be a literal; where the tokens before it prove it a named
        argument (`positions.configuration`), its value is code like any other."""
        plain = _PLAIN_NAMED.match(self.text, end)  # the common spelling, read at once
        if plain is not None:
            option, value_start = plain.group(1), plain.end()
        else:
            kind, name_start, name_end = self.next_token(end)
            option = self.text[name_start:name_end]
            assign, _, value_start = self.next_text(name_end)
            if kind not in _WORDLIKE or assign != ":=":
                return
        if option in _TACTIC_VALUED:
            self.tactic_value(value_start)
            return
        # A literal is fine wherever it stands, so the cheap look comes first.
        if self.meanings.plain and _PLAIN_LITERAL.match(self.text, value_start):
            return
        if not in_attributes and not configuration(self.stream, start):
            return
        value = self.group(value_start, ")", limit=_GROUP_LOOKAHEAD, nested=True)
        if value is not None and self.meanings.value(option, value[0]):
            return
        # Literal in a file that declares nothing, not in this one: say what changes it.
        redefined = value is not None and _NOTHING_DECLARED.value(option, value[0])
        self.form(start, "redefined literal" if redefined else "(option := …)", f"({option} := …)")

    def tactic_value(self, pos: int) -> None:
        """The value of `(disch := …)`: a tactic, so a tactic-only word opening it is one."""
        word, start, end = self.next_text(pos)
        if word in _TACTIC_ONLY and _AFTER_TACTIC.match(self.text, end):
            rule = WORDS[word]
            self.add(start, rule.construct, rule.message)

    def set_option(self, start: int, end: int) -> None:
        kind, name_start, name_end = self.next_token(end)
        option = self.text[name_start:name_end]
        name = ".".join(name_parts(option)) if kind in _WORDLIKE else ""
        # No allowed option takes a string; one that does may name a file Lean writes
        # (`trace.profiler.output`).
        if option_allowed(name) and self.next_token(name_end)[0] != "string":
            return
        if name.split(".")[0] == "debug":
            self.add(start, f"set_option {option}", _DEBUG.message)
        else:
            self.form(start, "set_option …", f"set_option {option}")

    def tagged(self, start: int, end: int, *, command: bool = False) -> int:
        """After an attribute list from `start` to `end`: an Aesop rule must tag a proved
        lemma. Aesop picks a rule's builder from the declaration's type when none is named,
        and for a definition of a tactic type that is the `tactic` builder, which runs it;
        a `theorem` or `lemma` has a proposition for its type, so its rule never runs code.
        The `attribute [aesop …] x` command names a declaration this scan cannot see."""
        if not self.aesop_tag:
            return end
        self.aesop_tag = False
        keyword, _, after = self.next_text(end)
        while keyword in _MODIFIERS:
            keyword, _, after = self.next_text(after)
        if keyword == "@[" and not command:
            self.aesop_tag = True  # another list follows: the declaration comes after it
            return end
        if command or keyword not in ("theorem", "lemma"):
            self.form(start, "@[aesop] not on a lemma")
        return end

    def attributes(self, pos: int) -> int:
        """Judge an attribute list whose `[` is read; return where it ends.

        Each entry is `-`? (`scoped`|`local`)? name arguments…; the name must be allowed, and
        the arguments are judged as code. A `(attr := …)` argument is a list of its own: the
        lists nest without recursion, `closers` holding the bracket that ends each open one
        and `depths` the brackets open in the arguments of its current entry."""
        closers = ["]"]
        depths = [0]
        expecting_name = True
        while closers:
            kind, start, end = self.next_token(pos)
            word = self.text[start:end]
            pos = end
            if kind == "eof":
                return end
            if depths[-1] == 0 and word == closers[-1]:
                closers.pop()
                depths.pop()
                expecting_name = False
            elif depths[-1] == 0 and word == ",":
                expecting_name = True
            elif expecting_name and word in _ATTRIBUTE_KINDS:
                continue
            elif expecting_name:
                self.attribute_name(kind, start, end)
                expecting_name = False
            elif word == "(" and self.nested_list_ahead(end):
                pos = self.next_text(self.next_text(end)[2])[2]  # past `attr :=`
                closers.append(")")
                depths.append(0)
                expecting_name = True
            else:
                depths[-1] = max(0, depths[-1] + (word in _OPENERS) - (word in _CLOSERS.values()))
                pos = max(self.token(kind, start, end, in_attributes=True), end)
        return pos

    def nested_list_ahead(self, pos: int) -> bool:
        word, _, end = self.next_text(pos)
        return word == "attr" and self.next_text(end)[0] == ":="

    def attribute_name(self, kind: str, start: int, end: int) -> None:
        word = self.text[start:end]
        if kind in _WORDLIKE:
            self.word(start, end, in_attributes=True)
        name = ".".join(name_parts(word)) if kind in _WORDLIKE else word
        if name == "aesop":
            self.aesop_tag = True
        if kind in _WORDLIKE and name in ALLOWED_ATTRIBUTES:
            return
        if name in MODULE_ATTRIBUTES:
            if not tables.MODULE_SYSTEM_ACCEPTED:
                self.form(start, "module", f"@[{name}]")
            return
        rule = ATTRIBUTES.get(name)
        self.add(start, f"@[{name}]", rule.message if rule else FORMS["@[…]"].message)


# Words a prefix rule would catch that are something else: Mathlib's
# `initialize_simps_projections` (Mathlib/Tactic/Simps/Basic.lean) only names the projections
# `@[simps]` uses, at elaboration time.
_PREFIXED_HARMLESS = frozenset({"initialize_simps_projections"})
# Keywords (Lean's own and tactic names) a name may need guillemets for, but none a rule reads.
_ESCAPABLE_KEYWORDS = (KEYWORDS | TACTICS) - {*WORDS, *CONSTANTS, *DECLARATION_KEYWORDS}
# Modifiers between an attribute list and the declaration keyword.
_MODIFIERS = frozenset({"private", "protected", "noncomputable", "nonrec", "public"})
# What the modifier `unsafe` stands before: a declaration keyword or another modifier.
_DECLARATION_STARTS = frozenset(
    {*DECLARATION_KEYWORDS, "example", "private", "protected", "noncomputable", "partial", "@["}
)
# What may follow an argument-less tactic: the end of the line or of the tactic block, or
# a separator (`;`, `<;>`, `)`, `]`, `}`, `|`).
_AFTER_TACTIC = re.compile(r"[ \t]*+(?:$|--|/-|<;>|<\|>|[;)\]}|])", re.MULTILINE)
_QUOTE_OR_ESCAPE = re.compile(r'["\\]')
# What `%` glued to a name is followed by when it is the modulo operator: an operand.
_GLUED_OPERAND = re.compile(rf"[0-9({ID_FIRST}]")


# What literals mean in a file that declares nothing.
_NOTHING_DECLARED = Meanings("")


def _no_mark(pos: int) -> None:
    """Marks nothing (see `_Scan.body`)."""


def scan(text: str, home: str | None = None) -> list[Violation]:
    """Every policy violation in a Lean source, by line; empty when the source is admissible.
    `home` is the one protected namespace the file may use: a canonical statement's
    `Statements.<label>`."""
    state = _Scan(text, home)
    state.unseen()
    state.body(state.header())
    return sorted(state.found.values(), key=lambda v: (v.line, v.construct))


def scan_file(path: Path) -> list[Violation]:
    """`scan` of a file. A file that is not UTF-8 is a violation (Lean reads only UTF-8);
    one that cannot be read at all raises `SourceUnreadable`."""
    try:
        data = path.read_bytes()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise SourceUnreadable(
            f"cannot read {path} ({reason}); pass a readable .lean file."
        ) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        return [Violation(line, "encoding", "not valid UTF-8, and Lean reads only UTF-8 sources")]
    return scan(text)
