"""Where a token stands, read from the tokens before it: a tactic position (`by simp`, a line
of a tactic block), a tactic's configuration (`simp (maxSteps := 100)`) or a named argument
(`le_trans (b := c)`); and which configuration values are literals.

Every tactic (and command) that takes `optConfig` elaborates its items into a configuration
structure and evaluates it with `Meta.evalExpr'` (safety := .unsafe) while the file elaborates
(`declare_config_elab`, lean4 src/Lean/Elab/Tactic/Config.lean): a value like `f 100` runs the
submission's `f`. The same shape in a term is a named argument, which only elaborates. So a
`(name := value)` group is judged a configuration, and its value must be a literal, unless the
tokens before it prove it a named argument: its head (the token before it, past earlier
groups and `+flag`/`-flag`) is a term that applies to it (a dotted name, a name after a term
position such as `:=`, `exact` or `[`, a name or a closing bracket continuing an application).
A head that is a tactic name of the pinned table (`tactics.yaml`), a term elaborator, an
attribute, or anything else is a configuration: the judgement fails closed."""

from __future__ import annotations

import bisect
import re
from pathlib import Path

import yaml

from jigcli.lean.lexer import ID_FIRST, ID_REST, Lexer
from jigcli.lean.policy.tables import NOTATION_KEYWORDS

_TACTICS_DATA = yaml.safe_load(
    (Path(__file__).resolve().parents[1] / "tactics.yaml").read_text(encoding="utf-8")
)
TACTICS = frozenset(_TACTICS_DATA["tactics"])
# What may follow `(` when it opens `name :=` (comments may hide in between, so a comment
# there is looked at too); the bulk skip stops at exactly these.
_NAMED_AHEAD = rf"[ \t\r\n]*+(?:/-|--|[{ID_FIRST}«][^\s():]*+[ \t\r\n]*+(?::=|/-|--))"
_NAMED_AHEAD_RE = re.compile(_NAMED_AHEAD)
_PLAIN_NAMED = re.compile(
    rf"[ \t]*+([{ID_FIRST}][{ID_REST}]*+(?>(?:\.[{ID_FIRST}][{ID_REST}]*+)*))[ \t]*+:="
)
_TRIVIA = frozenset({"ws", "line_comment", "block_comment", "doc_comment", "module_doc"})
_PLAIN_WORD = re.compile(rf"[{ID_FIRST}][{ID_REST}]*")
_WORDS = frozenset({"ident", "keyword"})
# How far back, in characters, the tokens before a position are read.
_WINDOW = 256


class Stream:
    """The significant tokens before a position, as (kind, start, end), read with the lexer in
    force there (a notation switches it where it declares tokens). Lexing every token of a
    file would cost what the bulk skip saves, so the stream starts reading at the last place
    the scan knows a token starts (`mark`) at least `_WINDOW` characters back, and goes on
    from where it stopped when asked again further on; a judgement that walks back further
    than `_BACK` tokens fails closed."""

    def __init__(self, text: str, lexer: Lexer) -> None:
        self.text = text
        self.tokens: list[tuple[str, int, int]] = []
        self.read_from = 0
        self.read_to = 0
        self.lexer = lexer
        self.marks: list[int] = [0]

    def switch(self, lexer: Lexer) -> None:
        """Read on with `lexer` (the scan's, from where the scan now is)."""
        self.lexer = lexer

    def mark(self, pos: int) -> None:
        """A token starts at `pos` (the scan has read up to it)."""
        if pos > self.marks[-1]:
            self.marks.append(pos)

    def before(self, pos: int) -> list[tuple[str, int, int]]:
        """The significant tokens of at least the last `_WINDOW` characters before `pos` (and
        any read before them), in order; `pos` must be where a token starts."""
        index = bisect.bisect_right(self.marks, max(0, pos - _WINDOW)) - 1
        start = self.marks[max(0, index)]
        if not self.read_from <= start <= self.read_to or start > pos:
            start = min(start, pos)
            self.tokens, self.read_from, self.read_to = [], start, start
        while self.read_to < pos:
            kind, end = self.lexer.at(self.read_to)
            if end <= self.read_to:  # the end of the text
                break
            if kind not in _TRIVIA:
                self.tokens.append((kind, self.read_to, end))
            self.read_to = end
        tokens = self.tokens
        count = len(tokens)
        while count and tokens[count - 1][2] > pos:
            count -= 1
        return tokens[:count] if count < len(tokens) else tokens

    def word(self, token: tuple[str, int, int]) -> str:
        return self.text[token[1] : token[2]]

    def symbol_before(self, tokens: list[tuple[str, int, int]], i: int) -> str:
        """The token at `i` as a reader of Lean's symbols sees it: the lexer reads a symbol it
        has no entry for one character at a time, so `<;>` is three tokens here; this gives
        the longest of `_SYMBOLS` that the glued symbols ending at `i` end with."""
        kind, start, end = tokens[i]
        if kind != "symbol":
            return self.text[start:end]
        first = i
        while first > 0 and tokens[first - 1][0] == "symbol" and tokens[first - 1][2] == start:
            first -= 1
            start = tokens[first][1]
        run = self.text[start:end]
        for size in (3, 2):
            if run[-size:] in _SYMBOLS:
                return run[-size:]
        return self.text[tokens[i][1] : end]


# The tokens after which a name is a term, so `(x := …)` after the name is its argument.
_TERM_BEFORE = frozenset(
    {
        *(":=", "(", "[", "⟨", ",", "←", "<-", "<|", "|>", "$", "=", "≠", "<", ">", "≤", "≥"),
        *("↦", "=>", "|"),  # `| step (m := k) hk =>`: a pattern's named argument
        *("+", "-", "*", "/", "∘", "∣", "↔", "→", "∧", "∨", "¬", "@", "▸", ":"),
        *("exact", "apply", "refine", "refine'", "use", "exists", "from", "show", "calc"),
        *("using", "exacts", "specialize", "convert", "have", "obtain", "rcases", "rintro"),
        *("exact_mod_cast", "apply_mod_cast", "simpa", "trans", "generalize", "set", "let"),
    }
)
_CLOSERS = frozenset({")", "]", "}", "⟩"})
# Words whose `(name := …)` groups are syntax that macros expand, never evaluated:
# `instance (priority := …)` (priorities are `prio` syntax) and the notation commands.
_NOT_TACTICS = frozenset({"instance", *NOTATION_KEYWORDS})
# How far back a head is looked for; beyond it the group is a configuration (fail closed).
_BACK = 256
# Aesop clauses that may stand between `aesop` and its `(config := …)`.
_CLAUSES = frozenset({"add", "erase", "rule_sets", "config", "simp_config"})


def _matching_open(stream: Stream, tokens: list[tuple[str, int, int]], close: int) -> int | None:
    depth = 0
    for i in range(close, max(-1, close - _BACK), -1):
        word = stream.word(tokens[i])
        if word == ")":
            depth += 1
        elif word == "(":
            depth -= 1
            if depth == 0:
                return i
    return None


def _skippable_group(stream: Stream, tokens: list[tuple[str, int, int]], opener: int) -> bool:
    """A `(name := …)` group or an Aesop clause (`(add safe h)`) opening at `opener`."""
    if opener + 2 >= len(tokens):
        return False
    first, second = stream.word(tokens[opener + 1]), stream.word(tokens[opener + 2])
    return second == ":=" or first in _CLAUSES


# The common spellings of a named argument, read on the line before the `(`: a dotted name
# (`hp.two_le (p := p)`), or a name after `exact`, `(`, `:=`… (`exact foo (n := k)`), with
# only blanks before the `(` (so no comment or string can hide between). Only a yes is read
# here; anything else goes to the tokens.
_DOTTED = rf"[{ID_FIRST}][{ID_REST}]*(?:\.[{ID_FIRST}][{ID_REST}]*)+"
_NAME = rf"(?<![{ID_REST}.])([{ID_FIRST}][{ID_REST}]*)"
_PLAIN_ARGUMENT = re.compile(
    rf"(?:(?<![{ID_REST}.]){_DOTTED}|(?:(?<![{ID_REST}])(?:exact|apply|refine|use|simpa using)"
    rf"|:=|\(|\[|,|⟨)[ \t]+{_NAME}|[(\[⟨]{_NAME})[ \t]*\Z"
)


def _plainly_an_argument(text: str, start: int) -> bool:
    line_start = text.rfind("\n", 0, start) + 1
    m = _PLAIN_ARGUMENT.search(text, max(line_start, start - _WINDOW), start)
    if m is None:
        return False
    name = m.group(1) or m.group(2)
    return name is None or (name not in TACTICS and name.rstrip("!?") not in TACTICS)


def configuration(stream: Stream, start: int) -> bool:
    """Whether the `(name := …)` group whose `(` is at `start` configures a tactic (or an
    elaborator, or a command), judged from the tokens before it; see the module docstring."""
    if _plainly_an_argument(stream.text, start):
        return False
    tokens = stream.before(start)
    i = len(tokens) - 1
    floor = max(-1, i - _BACK)
    while i > floor:
        kind = tokens[i][0]
        word = stream.word(tokens[i])
        if word == ")":
            opener = _matching_open(stream, tokens, i)
            if opener is None or not _skippable_group(stream, tokens, opener):
                return not _term_before(stream, tokens, i)
            i = opener - 1
            continue
        if kind in _WORDS and i > 0 and _flag_sign(stream, tokens, i):
            i -= 2  # `+decide`, `-zeta`
            continue
        break
    if i <= floor:
        return True
    return not _term_head(stream, tokens, i)


def _flag_sign(stream: Stream, tokens: list[tuple[str, int, int]], i: int) -> bool:
    sign = tokens[i - 1]
    return stream.word(sign) in ("+", "-") and sign[2] == tokens[i][1]


def _term_before(stream: Stream, tokens: list[tuple[str, int, int]], i: int) -> bool:
    """Whether the token at `i` (a closing bracket of a term) is part of a term that an
    argument can follow: what comes before its group decides, as for a name."""
    opener = _matching_open(stream, tokens, i)
    if opener is None or opener == 0:
        return False
    return _term_head(stream, tokens, opener)


def _term_head(stream: Stream, tokens: list[tuple[str, int, int]], i: int) -> bool:
    """Whether the token at `i` is a term that the group after it is an argument of."""
    kind = tokens[i][0]
    word = stream.word(tokens[i])
    if word in _NOT_TACTICS:
        return True
    if kind in _WORDS:
        if word in TACTICS or word.rstrip("!?") in TACTICS:
            return False
        if "." in word.strip("."):
            return True
        return i > 0 and _continues_a_term(stream, tokens, i)
    if kind in ("number", "string", "char"):
        return True
    if word in _CLOSERS:
        return i > 0 and _term_before(stream, tokens, i)
    return word in ("(", "⟨") and i > 0 and _continues_a_term(stream, tokens, i)


def _continues_a_term(stream: Stream, tokens: list[tuple[str, int, int]], i: int) -> bool:
    """Whether the token at `i` stands where a term does: after a term position, or after a
    name or closing bracket on the same line (an application going on). A name that starts a
    line after something that ends a term starts a tactic there."""
    start = tokens[i][1]
    before_kind, _, before_end = tokens[i - 1]
    before = stream.symbol_before(tokens, i - 1)
    if before in _TERM_BEFORE:
        return True
    same_line = "\n" not in stream.text[before_end:start]
    applied = before_kind in _WORDS | {"number"} or before in _CLOSERS
    return same_line and applied and before not in TACTICS and before != "by"


# -- tactic positions ---------------------------------------------------------------------

# Tokens after which a tactic starts: `by simp`, `<;> simp`, `· simp`, `case h => simp`,
# `first | simp`, `try simp`, `(simp)`, and the tactic combinators.
_TACTIC_BEFORE = frozenset(
    {
        *("by", ";", "<;>", "·", ".", "=>", "|", "<|>", "(", "{", "try", "repeat", "repeat'"),
        *("all_goals", "any_goals", "focus", "first", "iterate", "classical", "solve", "next"),
        *("with_reducible", "with_reducible_and_instances", "with_unfolding_all", "then"),
        *("else", "fail_if_success", "show_term"),
    }
)
# Tokens that leave a term unfinished at the end of a line: the next line continues it.
_CONTINUATIONS = frozenset(
    {
        *(":=", "(", ",", "<|", "|>", "$", "[", "⟨", "{", "←", "→", "↔", "=", "+", "*", "∧"),
        *("∨", "exact", "refine", "refine'", "apply", "use", "exists", "exacts", "from", "show"),
        "calc",
    }
)


def tactic_position(stream: Stream, start: int) -> bool:
    """Whether a tactic may start at `start`, judged from the token before it (fail closed:
    at the start of the text, or after an unfinished line's continuation only when that
    continuation is a term position)."""
    tokens = stream.before(start)
    if not tokens:
        return True
    end = tokens[-1][2]
    word = stream.symbol_before(tokens, len(tokens) - 1)
    if word in _TACTIC_BEFORE:
        return True
    if "\n" in stream.text[end:start]:
        return word not in _CONTINUATIONS
    return False


# Multi-character symbols the judgements above compare with.
_SYMBOLS = frozenset(
    s for s in (*_TERM_BEFORE, *_TACTIC_BEFORE, *_CONTINUATIONS) if len(s) > 1 and not s.isalpha()
)

# -- literal values -----------------------------------------------------------------------

# Options whose value is tactic syntax, not a term: a discharger (`Parser.Tactic.discharger`
# in lean4 src/Init/Tactics.lean) and `linear_combination (norm := tac)` (Mathlib
# Mathlib/Tactic/LinearCombination.lean), read as tactics the scan judges like any other.
_TACTIC_VALUED = frozenset({"disch", "discharger", "norm"})
# `.pos [2, 3]` / `.neg [1]`: `Occurrences` (lean4 src/Init/MetaTypes.lean), as in
# `rw (occs := .pos [2]) [h]`.
_OCCURRENCES = frozenset({"pos", "neg"})
# `.constructor` values accepted: the constructors of Lean's own configuration enums
# (`TransparencyMode`, `EtaStructMode` in lean4 src/Init/MetaTypes.lean), and the two
# configurations Mathlib's `@[simps]` names (`Simps.Config.asFn`, `Simps.Config.lemmasOnly` in
# Mathlib/Tactic/Simps/Basic.lean), which exist already, so a submission cannot declare them.
_ENUM_CONSTRUCTORS = frozenset(
    {"all", "default", "reducible", "instances", "implicit", "none", "notClasses"}
    | {"asFn", "lemmasOnly"}
)
_BOOLEANS = frozenset({"true", "false", "Bool.true", "Bool.false"})
_NUMBER = re.compile(r"[0-9][0-9_]*")
_GROUP_LOOKAHEAD = 256
# A literal value or `{ field := literal, … }` then `)`, without comments, read by one pattern:
# the common spellings, for a file that declares nothing that changes what they mean.
_ATOM = "(?:true|false|Bool\\.true|Bool\\.false|[0-9][0-9_]*+|\\.(?:{}))(?![{}])".format(
    "|".join(sorted(_ENUM_CONSTRUCTORS)), ID_REST
)
_FIELD = rf"[{ID_FIRST}][{ID_REST}]*+\s*+:=\s*+{_ATOM}"
_PLAIN_LITERAL = re.compile(
    rf"\s*+(?:{_ATOM}|\{{\s*+(?:{_FIELD}(?>(?:\s*+,?\s*+{_FIELD})*))?\s*+\}})\s*+\)"
)
# Tactic names refused only in tactic position: as identifiers they are common hypothesis
# names (`hint`), and as tactics they could only stand where a tactic starts.
_TACTIC_ONLY = frozenset({"hint"})


# The names a literal may resolve to (`true`, `.reducible`, `.pos`), and where a file declares
# one: after a declaration keyword (under any prefix), as a constructor (`| true`), or as a
# renaming (`open X renaming a → true`). Read over the whole text, comments included: a
# comment can only make the scan refuse more.
_LITERAL_NAMES = ("true", "false", *_ENUM_CONSTRUCTORS, *_OCCURRENCES)
_PLAIN_MEANINGS = frozenset({"true", "false", *_ENUM_CONSTRUCTORS})
_NAMES = "|".join(sorted(_LITERAL_NAMES, key=len, reverse=True))
_NAME_AT = {name: re.compile(rf"{name}(?![{ID_REST}])") for name in _LITERAL_NAMES}
# What stands before a name a file declares: a declaration keyword (the name under any prefix),
# a constructor's `|`, or a renaming's `→`.
_DECLARES_BEFORE = re.compile(
    rf"(?:(?<![{ID_REST}])(?:def|theorem|lemma|abbrev|opaque|axiom|instance|structure|class"
    rf"|inductive|alias|irreducible_def)\s+(?:[^\s(:]*\.)?|(?:^|\n)[ \t]*\|[ \t]*"
    rf"|renaming[^\n]*→[ \t]*)\Z"
)
_REST = re.compile(f"[{ID_REST}.]")
_CONTEXT = 80


def _declared_literal_names(text: str) -> frozenset[str]:
    """The literal names `text` declares, read from the text before each use of one (the scan
    adds those its declaration reader finds behind a comment)."""
    found = set()
    for name, pattern in _NAME_AT.items():
        if name not in text:
            continue
        for m in pattern.finditer(text):
            start = m.start()
            if start and _REST.match(text, start - 1) and text[start - 1] != ".":
                continue
            if _DECLARES_BEFORE.search(text[max(0, start - _CONTEXT) : start]):
                found.add(name)
                break
    return frozenset(found)


class Meanings:
    """What the file declares that could change what a literal means: an `OfNat` instance
    (numerals elaborate through it), a name whose last component is `true`, `false` or an
    enumeration constructor (a name resolves in the current namespace first, and `.c` in the
    expected type's namespace, which a file can extend). `+flag` and `-flag` need no such
    care: they become `mkCIdentFrom item ``true` (`mkConfigItemViews`, lean4
    src/Lean/Elab/Tactic/Config.lean), a constant named in full, whatever the file declares."""

    def __init__(self, text: str) -> None:
        self.numerals_plain = "OfNat" not in text and "OfScientific" not in text
        self.declared = _declared_literal_names(text)
        # `_PLAIN_LITERAL` may be trusted: nothing it accepts means something else here.
        self.plain = self.numerals_plain and not self.declared & _PLAIN_MEANINGS

    def declare(self, name: str) -> None:
        """A name the scan's declaration reader found declared (behind comments too)."""
        if name in _LITERAL_NAMES:
            self.declared |= {name}
            self.plain = self.plain and name not in _PLAIN_MEANINGS

    def literal(self, tokens: list[str]) -> bool:
        """A value the interpreter evaluates without running anything a submission wrote."""
        if len(tokens) == 1:
            token = tokens[0]
            if token in _BOOLEANS:
                return token.rsplit(".", 1)[-1] not in self.declared
            return self.numerals_plain and _NUMBER.fullmatch(token) is not None
        if tokens[:1] == ["."] and len(tokens) > 3 and tokens[1] in _OCCURRENCES:
            return tokens[1] not in self.declared and self.number_list(tokens[2:])
        if tokens[:1] == ["["]:
            return self.number_list(tokens)
        if all(_NUMBER.fullmatch(t) or t == "," for t in tokens):  # `(reorder := 1 2, 3 4)`
            return self.numerals_plain
        if len(tokens) == 2 and tokens[0] == ".":
            return tokens[1] in _ENUM_CONSTRUCTORS and tokens[1] not in self.declared
        return False

    def number_list(self, tokens: list[str]) -> bool:
        """`[1, 2, 3]`, as tokens."""
        inside = tokens[1:-1]
        return (
            self.numerals_plain
            and tokens[0] == "["
            and tokens[-1] == "]"
            and all(_NUMBER.fullmatch(t) for t in inside[::2])
            and all(t == "," for t in inside[1::2])
        )

    def structure(self, tokens: list[str]) -> bool:
        """`{ field := literal, … }` (fields separated by commas or new lines)."""
        if tokens[:1] != ["{"] or tokens[-1:] != ["}"]:
            return False
        flat = [token for token in tokens[1:-1] if token != ","]
        i = 0
        while i < len(flat):
            if i + 2 >= len(flat) or flat[i + 1] != ":=" or not _PLAIN_WORD.fullmatch(flat[i]):
                return False
            j = i + 2
            while j < len(flat) and not (j + 1 < len(flat) and flat[j + 1] == ":="):
                j += 1
            if not self.literal(flat[i + 2 : j]):
                return False
            i = j
        return True

    def value(self, option: str, tokens: list[str]) -> bool:
        """Whether `(option := tokens)` configures with literals only. A string is data (the
        `since` of `deprecated`); Aesop's `rule_sets` are names; `by …` builds the value with
        a tactic, so only an option whose value is a tactic takes it."""
        if option in _TACTIC_VALUED:
            return True
        if len(tokens) == 1 and tokens[0].startswith('"'):
            return True
        if option == "rule_sets":  # `[A, -B]`: names of rule sets, never evaluated
            names = " ".join(tokens[1:-1]).replace("- ", "-").split(" , ")
            return (
                tokens[:1] == ["["]
                and tokens[-1:] == ["]"]
                and all(_PLAIN_WORD.fullmatch(name.removeprefix("-")) for name in names)
            )
        if option in ("config", "simp_config"):
            return self.literal(tokens) or self.structure(tokens)
        return self.literal(tokens)
