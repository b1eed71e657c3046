"""The static policy: which Lean a submission may contain, decided without running Lean.

A submission states and proves mathematics. The policy keeps out everything that reaches
outside the fragment the kernel protects: unfinished proofs, assumptions, trust in compiled
code, and metaprogramming (code that runs while the file elaborates, which could add
declarations the kernel never checks, or do whatever the user running the build can). It is
not the soundness argument: the axiom audit reads the elaborated environment and catches
`sorry`, native computation and stray axioms however they are spelled. The scan exists so that
a source it rejects is never built at all: building it would run the very code kept out here.

    scan(text) -> list[Violation]        # sorted by line; empty means admissible
    scan_file(path) -> list[Violation]   # not UTF-8: a violation; unreadable: SourceUnreadable
    Violation(line, construct, message)
    RULES                                # the policy itself, one Rule per construct

What is scanned is the token stream of `jigcli.lean.lexer`, so a forbidden word inside a
comment, a string, a raw string, a char literal, a `«name»` or a longer identifier
(`partial_sum`, `Foo.sorry`) is not a violation. Decisions worth knowing:

* `opaque` is allowed: the kernel checks its value (from `Inhabited`) and only hides it;
  `opaque … implemented_by` is caught by `implemented_by`.
* `set_option` is allowed except `debug.*` (`debug.skipKernelTC` turns kernel checking off).
  `maxHeartbeats 0` is allowed: it can only make elaboration slower, and the wall budget ends
  that in a `timeout` verdict; refusing it would refuse honest heavy proofs.
* `export` is refused: as a command its aliases travel with the module into every importer,
  the verifier's check file included, where they could stand in for the names it resolves.
* Attributes that register the tagged definition as code Lean runs (`@[command_elab]`,
  `@[tactic]`, `@[positivity]`, `@[builtin_…]`, …) are refused, and so are the meta monads
  (`MetaM`, `TacticM`, `IO`, …) and Lean's metaprogramming namespaces (`open Lean`,
  `Lean.Elab.…`, `Qq`): defence in depth behind the refused ways of running code.
* `decide +native`, `native := true` anywhere, and `decide (config := e)` with `e` not a
  `{ … }` literal (its options cannot be read without elaborating it) are refused.
* Imports extend Lean's token table, so the lexer cannot know every multi-character symbol.
  A `--`, `/-` or char literal glued to a preceding operator character (`x <|-- …`) is where
  that could change what is code, and is refused with "put a space before it".
* A literal Lean itself rejects (unterminated string, bad escape, malformed char literal, …)
  is refused: Lean's error recovery goes on reading what follows it as code.
* `prelude` and the `module` header are refused; imports come first (Lean agrees).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from jigcli.errors import UsageError
from jigcli.lean.lexer import ID_FIRST, ID_REST, MULTI_SYMBOLS, SKIP_PARTS, Lexer


@dataclass(frozen=True)
class Violation:
    line: int
    construct: str
    message: str


class SourceUnreadable(UsageError):
    """A Lean source that cannot be read at all (missing, a directory, no permission)."""


class Rule(NamedTuple):
    construct: str
    where: str  # word | constant | command | attribute | option | form
    message: str


_META = "metaprogramming, code that runs while the file elaborates"
_NATIVE = "trusts compiled code instead of the kernel (a native axiom in Lean 4.33); use `decide`"
_NOTATION = "defines notation, which is a macro; write the term out or use Mathlib's notation"
_REGISTERS = f"registers the tagged definition as code Lean runs while elaborating ({_META})"
_META_TYPE = "a metaprogramming or IO type; a submission proves mathematics and runs no programs"
_SIMPROC = "defines a simproc, meta code that `simp` runs"

# The policy, one line per construct. `where` says how a construct is found:
#   word       an identifier-shaped word as written (`«sorry»` is a name, not the keyword);
#              a trailing `!`/`?` is ignored (`sorry!`, `bv_decide?`)
#   constant   any component of a name once `«»` escapes are undone (`Lean.ofReduceBool`,
#              `Lean.«ofReduceBool»`, `ofReduceBool` after `open Lean`, `DecideConfig.mk`)
#   command    a `#` command, by prefix as Lean's token table reads it (`#evalx` is `#eval x`)
#   attribute  a name inside `@[…]` or `attribute […]`
#   option     the first component of a `set_option` name
#   form       a shape the scanner reads in code, listed here for its message
RULES: tuple[Rule, ...] = (
    Rule("sorry", "word", "an unfinished proof: `sorry` closes any goal through `sorryAx`"),
    Rule("admit", "word", "the tactic spelling of `sorry`"),
    Rule("stop", "word", "the tactic `stop` is `repeat sorry`"),
    Rule("sorryAx", "constant", "the axiom behind `sorry`"),
    Rule("axiom", "word", "declares an assumption the kernel never checks; prove it instead"),
    Rule("native_decide", "word", _NATIVE),
    Rule("bv_decide", "word", f"checks its certificate by compiled code: {_NATIVE}"),
    Rule("bv_check", "word", f"checks its certificate by compiled code: {_NATIVE}"),
    Rule("ofReduceBool", "constant", f"the axiom of native computation: {_NATIVE}"),
    Rule("ofReduceNat", "constant", f"the axiom of native computation: {_NATIVE}"),
    Rule("trustCompiler", "constant", f"the axiom of native computation: {_NATIVE}"),
    Rule("decide +native", "form", f"asks `decide` to evaluate by compiled code: {_NATIVE}"),
    Rule("native := true", "form", f"switches a decision procedure to compiled code: {_NATIVE}"),
    Rule(
        "decide (config := …)",
        "form",
        "a configuration this scan cannot read without elaborating it; write the options out "
        "(`decide +kernel`) or use plain `decide`",
    ),
    Rule(
        "DecideConfig",
        "constant",
        "a `decide` configuration built as a value, which this scan cannot read; write the "
        "options out (`decide +kernel`)",
    ),
    Rule("unsafe", "word", "switches the kernel's checks off for the declaration"),
    Rule(
        "partial",
        "word",
        "defines the function by an opaque constant whose equations the kernel never sees; "
        "use structural or well-founded recursion",
    ),
    Rule("implemented_by", "word", "swaps in compiled code the kernel never relates to it"),
    Rule("extern", "word", "binds the definition to native code the kernel never sees"),
    Rule(
        "export",
        "word",
        "makes aliases that travel into every importer, the verifier's check file included "
        "(as an attribute, renames compiled code); a submission needs neither",
    ),
    Rule("macro", "word", f"defines a macro: {_META}"),
    Rule("macro_rules", "word", f"defines a macro: {_META}"),
    Rule("syntax", "word", "extends Lean's grammar, which changes how the rest of the file reads"),
    Rule("declare_syntax_cat", "word", "extends Lean's grammar, which changes how the rest reads"),
    Rule("elab", "word", f"defines an elaborator: {_META}"),
    Rule("elab_rules", "word", f"defines an elaborator: {_META}"),
    *(
        Rule(word, "word", _NOTATION)
        for word in ("notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix")
    ),
    Rule("binder_predicate", "word", _NOTATION),
    *(
        Rule(word, "word", f"runs {_META}")
        for word in ("run_cmd", "run_elab", "run_meta", "run_tac", "by_elab")
    ),
    Rule("initialize", "word", "runs code whenever the module is loaded"),
    Rule("builtin_initialize", "word", "runs code whenever the module is loaded"),
    *(
        Rule(word, "word", _SIMPROC)
        for word in ("simproc", "dsimproc", "simproc_decl", "dsimproc_decl")
    ),
    Rule("register_simp_attr", "word", "registers an attribute at load time (an `initialize`)"),
    Rule("register_option", "word", "registers an option at load time (an `initialize`)"),
    Rule("#eval", "command", f"runs arbitrary code with the environment in hand: {_META}"),
    Rule("#exit", "command", "stops Lean reading the file, so the rest is never checked"),
    Rule("addDecl", "constant", "adds a declaration from meta code"),
    Rule("addDeclCore", "constant", "adds a declaration from meta code, optionally unchecked"),
    Rule("addDeclWithoutChecking", "constant", "adds a declaration the kernel never checks"),
    Rule("addAndCompile", "constant", "adds a declaration from meta code"),
    *(
        Rule(name, "constant", _META_TYPE)
        for name in (
            *("MetaM", "TacticM", "TermElabM", "CommandElabM", "CoreM", "MacroM", "DelabM"),
            *("IO", "EIO", "BaseIO"),
        )
    ),
    *(
        Rule(name, "attribute", _REGISTERS)
        for name in (
            *("command_elab", "term_elab", "tactic", "delab", "app_unexpander", "init"),
            *("simproc", "sevalproc", "positivity", "norm_num", "env_linter", "widget_module"),
            *("code_action_provider", "command_code_action", "hole_code_action", "incremental"),
            *("combinator_formatter", "combinator_parenthesizer", "run_parser_attribute_hooks"),
        )
    ),
    Rule("builtin_…", "attribute", _REGISTERS),
    Rule(
        "set_option debug.*",
        "option",
        "`debug.skipKernelTC` and its siblings switch kernel checks off or change what they see",
    ),
    Rule("open private", "form", "reaches declarations their module kept private"),
    Rule("Lean.…", "form", f"Lean's metaprogramming namespaces are off limits: {_META}"),
    Rule("Qq", "form", f"typed quotations for {_META}"),
    Rule("prelude", "form", "a `prelude` module does without `Init`, as only core itself does"),
    Rule(
        "module",
        "form",
        "module-system files hide proof bodies from importers, and the checks read them; "
        "drop the `module` line",
    ),
    Rule("import", "form", "imports must come before everything else in the file"),
    Rule(
        "glued comment",
        "form",
        "a comment opener glued to an operator may be part of a longer symbol in Lean's "
        "token table, and then what follows is code; put a space before it",
    ),
    Rule(
        "glued char literal",
        "form",
        "a `'` glued to an operator may belong to a longer symbol (like `⁻¹'` or `∑'`), and "
        "then what follows reads differently; put a space before it",
    ),
    Rule(
        "malformed literal",
        "form",
        "Lean rejects this literal, and its error recovery reads what follows as code; "
        "close or fix it",
    ),
)

ALLOWED_IMPORT_ROOTS = ("Mathlib", "Batteries", "Std", "Init", "Aesop", "Plausible", "Commons")
_KERNEL_BYPASS = "which can add declarations the kernel never checks"
REJECTED_IMPORT_ROOTS = {
    "Statements": "its `target` is closed with `sorry`, which an importer could inherit; state "
    "your own theorem and let the verifier bridge it to the canonical statement",
    "Verify": "the verifier's own trusted metaprograms are not for submissions",
    "Submissions": "another submission is not reviewed code; prove what you need here",
    "Lean": f"Lean's own modules are for metaprogramming, {_KERNEL_BYPASS}",
    "Qq": f"typed quotations are for metaprogramming, {_KERNEL_BYPASS}",
}


def _table(where: str) -> dict[str, Rule]:
    return {rule.construct: rule for rule in RULES if rule.where == where}


WORDS = _table("word")
CONSTANTS = _table("constant")
COMMANDS = _table("command")
ATTRIBUTES = _table("attribute")
FORMS = _table("form")
_DEBUG = _table("option")["set_option debug.*"]

# `Lean.<X>` for these X is metaprogramming; other `Lean.` namespaces (`Lean.Grind`,
# `Lean.Omega`) hold lemmas a proof may cite.
LEAN_META_NAMESPACES = frozenset(
    (
        *("Elab", "Meta", "Parser", "PrettyPrinter", "Syntax", "Macro", "Environment", "Kernel"),
        *("Compiler", "IR", "Server", "Widget", "Core", "Expr", "Language", "Linter"),
    )
)

# Words that send the scanner to Python: every word a rule or a form looks at.
_CONTEXT_WORDS = ("import", "native", "config", "set_option", "open", "attribute", "Lean", "Qq")
_HOT_WORDS = sorted({*WORDS, *CONSTANTS, *_CONTEXT_WORDS})


def _trie(words: list[str]) -> str:
    """An alternation of `words` factored by shared prefixes, so a miss costs one comparison."""
    by_first: dict[str, list[str]] = {}
    ends_here = False
    for word in words:
        if word:
            by_first.setdefault(word[0], []).append(word[1:])
        else:
            ends_here = True
    branches = [re.escape(first) + _trie(rest) for first, rest in sorted(by_first.items())]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 and not ends_here else f"(?:{'|'.join(branches)})"
    return f"{body}?" if ends_here else body


# What may come right before a comment opener or a char literal without doubt about where
# Lean's previous token ended: blanks, identifier characters, brackets and separators.
_SAFE_BEFORE = rf"\s{ID_REST}()\[\]{{}}⟨⟩,;\"»"
_GUARD = rf"(?<![^{_SAFE_BEFORE}])"
_HOT = rf"{_trie(_HOT_WORDS)}[!?]*+(?![{ID_REST}])"
_BORING_PART = rf"(?!{_HOT})[{ID_FIRST}][{ID_REST}]*+"
_BORING_IDENT = rf"(?!r#*+\"){_BORING_PART}(?:\.{_BORING_PART})*+(?!\.[«{ID_FIRST}])"
_HOT_COMMANDS = "|".join(re.escape(command[1:]) for command in COMMANDS)
_BORING_MULTI = "|".join(
    re.escape(s) for s in sorted(MULTI_SYMBOLS, key=len, reverse=True) if s != "@["
)
_BORING_SYMBOL = (
    rf"{_BORING_MULTI}|[^\s{ID_FIRST}0-9\"'«`#@/\-]|/(?!-)|-(?!-)"
    rf"|`(?![«{ID_FIRST}])|#(?![A-Za-z_])|@(?!\[)"
)
# Consumes in one C-level match every token the policy has no interest in, with exactly the
# lexer's boundaries, and stops at the start of the next token worth a look (or at the end).
_SKIP = re.compile(
    "(?:"
    + "|".join(
        (
            r"[ \t\r\n]++",
            _BORING_IDENT,
            _BORING_SYMBOL,
            SKIP_PARTS["number"],
            _GUARD + r"--[^\n]*+",
            _GUARD + SKIP_PARTS["comment"],
            SKIP_PARTS["string"],
            _GUARD + SKIP_PARTS["char"],
            SKIP_PARTS["name"] + "(?!\\.«)",  # a name with `«»` parts is left to the lexer
            rf"#(?!{_HOT_COMMANDS})[A-Za-z_][A-Za-z0-9_!?]*+",
        )
    )
    + ")*+"
)
_SAFE_CHAR = re.compile(f"[{_SAFE_BEFORE}]")
_COMMENTS = frozenset({"line_comment", "block_comment", "doc_comment", "module_doc"})
_TRIVIA = _COMMENTS | {"ws"}
_GLUABLE = _COMMENTS | {"char"}
_WORDLIKE = frozenset({"ident", "keyword"})
_PART = re.compile(r"«([^»]*)»|([^.«]+)")
_CLOSERS = {"(": ")", "[": "]", "{": "}", "⟨": "⟩"}
_OPENERS = frozenset({*_CLOSERS, "@["})
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


class _Scan:
    """One scan of one text: the findings, and the small readers the rules share. Every
    reader moves forward through the text, and none recurses, so a scan takes linear time."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lexer = Lexer(text)
        self.found: dict[tuple[int, str], Violation] = {}
        self._counted = (0, 1)  # (offset, line there): findings come mostly in order

    def add(self, pos: int, construct: str, message: str) -> None:
        offset, line = self._counted if pos >= self._counted[0] else (0, 1)
        line += self.text.count("\n", offset, pos)
        self._counted = (pos, line)
        self.found.setdefault((line, construct), Violation(line, construct, message))

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

    # -- the header: `module`? `prelude`? (`public`? `meta`? `import` `all`? Name)* ------------

    def header(self) -> int:
        """Judge the header; return where the first command starts."""
        pos = 0
        first = True
        while True:
            _, start, end = self.next_token(pos)
            word = self.text[start:end]
            if first and word == "module":
                self.add(start, "module", FORMS["module"].message)
            elif word == "prelude":
                self.add(start, "prelude", FORMS["prelude"].message)
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

    def body(self, pos: int) -> None:
        text = self.text
        n = len(text)
        skip = _SKIP.match
        while True:
            boring = skip(text, pos)
            assert boring is not None  # a `*+` pattern always matches
            pos = boring.end()
            if pos >= n:
                return
            kind, end = self.lexer.at(pos)
            pos = self.token(kind, pos, end)

    def token(self, kind: str, start: int, end: int, *, in_attributes: bool = False) -> int:
        """Judge one token; return where scanning goes on."""
        text = self.text
        if kind in _WORDLIKE:
            return self.word(start, end, in_attributes=in_attributes)
        if kind == "command":
            for construct, rule in COMMANDS.items():
                if text.startswith(construct, start):
                    self.add(start, construct, rule.message)
        elif kind == "symbol" and text.startswith("@[", start) and not in_attributes:
            return self.attributes(end)
        elif kind == "error":
            self.add(start, "malformed literal", FORMS["malformed literal"].message)
            if text.startswith("/-", start):
                return end  # Lean, too, reads an unterminated comment to the end
            return start + 1  # what the broken literal would have hidden is code
        elif kind in _GLUABLE and start > 0 and not _SAFE_CHAR.match(text, start - 1):
            construct = "glued char literal" if kind == "char" else "glued comment"
            self.add(start, construct, FORMS[construct].message)
        return end

    def word(self, start: int, end: int, *, in_attributes: bool = False) -> int:
        text = self.text
        word = text[start:end]
        rule = WORDS.get(word.rstrip("!?"))
        if rule is not None:
            self.add(start, rule.construct, rule.message)
        parts = name_parts(word)
        for part in parts:
            rule = CONSTANTS.get(part)
            if rule is not None:
                self.add(start, rule.construct, rule.message)
        if parts[0] == "Lean" and (len(parts) == 1 or parts[1] in LEAN_META_NAMESPACES):
            self.add(start, ".".join(parts[:2]), FORMS["Lean.…"].message)
        elif parts[0] == "Qq":
            self.add(start, "Qq", FORMS["Qq"].message)
        if word == "import":
            self.add(start, "import", FORMS["import"].message)
        elif word == "config":
            self.decide_config(start, end)
        elif word == "native":
            self.native(start, end)
        elif word == "set_option":
            kind, name_start, name_end = self.next_token(end)
            option = text[name_start:name_end]
            if kind in _WORDLIKE and name_parts(option)[0] == "debug":
                self.add(start, f"set_option {option}", _DEBUG.message)
        elif word == "open":
            if self.next_text(end)[0] == "private":
                self.add(start, "open private", FORMS["open private"].message)
        elif word == "attribute" and not in_attributes:
            bracket, _, bracket_end = self.next_text(end)
            if bracket == "[":
                return self.attributes(bracket_end)
        return end

    def native(self, start: int, end: int) -> None:
        if _ends_with(self.text, _blank_before(self.text, start), "+"):
            self.add(start, "decide +native", FORMS["decide +native"].message)
        assign, _, after = self.next_text(end)
        if assign == ":=" and self.next_text(after)[0] == "true":
            self.add(start, "native := true", FORMS["native := true"].message)

    def decide_config(self, start: int, end: int) -> None:
        """`decide (config := e)`: only a `{ … }` literal can be read without elaborating."""
        text = self.text
        before = _blank_before(text, start)
        if not _ends_with(text, before, "("):
            return
        before = _blank_before(text, before - 1)
        if not _ends_with(text, before, "decide") or (
            before > 6 and _REST_CHAR.match(text, before - 7)
        ):
            return
        assign, _, after = self.next_text(end)
        if assign == ":=" and self.next_text(after)[0] != "{":
            rule = FORMS["decide (config := …)"]
            self.add(start, rule.construct, rule.message)

    def attributes(self, pos: int) -> int:
        """Judge every token of an attribute list whose `[` is read; return the list's end."""
        depth = 0
        while True:
            kind, start, end = self.next_token(pos)
            word = self.text[start:end]
            if kind == "eof" or (word == "]" and depth == 0):
                return end
            depth += (word in _OPENERS) - (word in _CLOSERS.values())
            if kind in _WORDLIKE:
                name = name_parts(word)[-1]
                if name.startswith("builtin_"):
                    self.add(start, f"@[{name}]", ATTRIBUTES["builtin_…"].message)
                elif name in ATTRIBUTES:
                    self.add(start, f"@[{name}]", ATTRIBUTES[name].message)
            pos = max(self.token(kind, start, end, in_attributes=True), end)


def scan(text: str) -> list[Violation]:
    """Every policy violation in a Lean source, by line; empty when the source is admissible."""
    state = _Scan(text)
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
