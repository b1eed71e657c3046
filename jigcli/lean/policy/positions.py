"""Where a word stands: a tactic position (`by simp`, a line of a tactic block), a tactic's
configuration (`simp (maxSteps := 100)`) or a named argument (`le_trans (b := c)`), and which
configuration values are literals."""

from __future__ import annotations

import re

from jigcli.lean.lexer import ID_FIRST, ID_REST
from jigcli.lean.policy.tables import NOTATION_KEYWORDS

_REST_CHAR = re.compile(f"[{ID_REST}]")
_PLAIN_WORD = re.compile(rf"[{ID_FIRST}][{ID_REST}]*")

# -- `(name := value)`: a named argument, or a tactic's configuration item --------------------
#
# Every tactic (and command) that takes `optConfig` elaborates its items into a configuration
# structure and evaluates it with `Meta.evalExpr'` (safety := .unsafe) while the file
# elaborates (`declare_config_elab`, lean4 src/Lean/Elab/Tactic/Config.lean): a value like
# `f 100` runs the submission's `f`. The same shape in a term is a named argument, which only
# elaborates. The scan tells them apart by position: a group that follows a tactic-shaped word
# (`simp`, `grind`, `norm_num`, `decide`…, and the items before it) standing where a tactic
# starts is a configuration item, and its value must be a literal.

# What may follow `(` when it opens `name :=` (comments may hide in between, so a comment
# there is looked at too); the bulk skip stops at exactly these.
_NAMED_AHEAD = rf"[ \t\r\n]*+(?:/-|--|[{ID_FIRST}«][^\s():]*+[ \t\r\n]*+(?::=|/-|--))"
_NAMED_AHEAD_RE = re.compile(_NAMED_AHEAD)
_PLAIN_NAMED = re.compile(
    rf"[ \t]*+([{ID_FIRST}][{ID_REST}]*+(?>(?:\.[{ID_FIRST}][{ID_REST}]*+)*))[ \t]*+:="
)
# How far back the scan looks for the tactic a group belongs to and for the start of its line;
# a bound keeps each look constant-time, so a file of many groups scans in linear time.
_WINDOW = 400
_TACTIC_SHAPED = re.compile(r"[a-z][A-Za-z0-9_]*[!?']*")
_OPENER_OF = {")": "(", "]": "["}
# Where a tactic starts: after these tokens on the same line (`by simp`, `<;> simp`,
# `· simp`, `case h => simp`, `first | simp`), after a combinator that takes a tactic, or as
# the first word of a line whose previous line does not leave a term unfinished.
_TACTIC_SEPARATORS = ("by", ";", "<;>", "·", "=>", "|", "<|>", "{")
# ... as whole tokens: `by` not the end of `hby`, `|` not the end of `<|` or `||`.
_SEPARATOR_AT_END = re.compile(rf"(?:(?<![{ID_REST}])by|(?<![<|])\||<\|>|<;>|;|·|=>|\{{)\Z")
_LAMBDA_AT_END = re.compile(rf"(?:(?<![{ID_REST}])fun|λ)[^\n|]*(?:=>|↦)\Z")
_TACTIC_COMBINATORS = frozenset(
    {
        *("try", "repeat", "repeat'", "all_goals", "any_goals", "focus", "first", "iterate"),
        *("classical", "with_reducible", "with_reducible_and_instances", "with_unfolding_all"),
        *("fail_if_success", "show_term", "then", "else", "solve", "next"),
    }
)
# A previous line ending so leaves a term unfinished: the next line continues it.
_CONTINUATIONS = (
    *(":=", "(", ",", "<|", "|>", "$", "[", "⟨", "{", "←", "→", "↔", "=", "+", "*", "∧", "∨"),
    *("exact", "refine", "refine'", "apply", "use", "exists", "exacts", "from", "show", "calc"),
)
# Words that take `(name := …)` arguments evaluated by macros, never by the interpreter:
# `instance (priority := …)` (priorities are `prio` syntax, expanded by macros).
_NOT_TACTICS = frozenset({"instance", *NOTATION_KEYWORDS})
# Options whose value is tactic syntax, not a term: a discharger (`Parser.Tactic.discharger`
# in lean4 src/Init/Tactics.lean) and `linear_combination (norm := tac)` (Mathlib
# Mathlib/Tactic/LinearCombination.lean), read as tactics the scan judges like any other.
_TACTIC_VALUED = frozenset({"disch", "discharger", "norm"})
# `.pos [2, 3]` / `.neg [1]`: `Occurrences` (lean4 src/Init/MetaTypes.lean), as in
# `rw (occs := .pos [2]) [h]`: a constructor of Lean's own applied to a list of numbers; a
# bare `[2, 3]` is the same through the `Coe (List Nat) Occurrences` instance declared there.
_OCCURRENCES = frozenset({"pos", "neg"})
# `.constructor` values accepted: the constructors of Lean's own configuration enums
# (`TransparencyMode`, `EtaStructMode` in lean4 src/Init/MetaTypes.lean). A leading-dot name
# resolves in the configuration type's namespace; these names exist there already, so a
# submission cannot declare them.
_ENUM_CONSTRUCTORS = frozenset(
    {"all", "default", "reducible", "instances", "implicit", "none", "notClasses"}
)
_GROUP_LOOKAHEAD = 256
# Tactic names refused only in tactic position: as identifiers they are common hypothesis
# names (`hint`), and as tactics they could only stand where a tactic starts.
_TACTIC_ONLY = frozenset({"hint"})
# Aesop's rule builders that take a lemma or a type (Aesop's README, "Rule builders"); the
# `tactic` builder, which runs a program, has its own rule.
_AESOP_BUILDERS = frozenset(
    {"apply", "forward", "destruct", "constructors", "cases", "cases_or", "simp", "unfold"}
)


def _line_before(text: str, pos: int) -> tuple[int, str]:
    """Where the line holding `pos` starts (at most `_WINDOW` back), and its text up to `pos`."""
    line_start = text.rfind("\n", max(0, pos - _WINDOW), pos) + 1
    if line_start == 0:
        line_start = max(0, pos - _WINDOW)
    return line_start, text[line_start:pos]


def _tactic_start(text: str, pos: int) -> bool:
    """Whether a tactic may start at `pos`, judged from the text before it."""
    line_start, before = _line_before(text, pos)
    before = before.rstrip()
    if not before:
        previous = text[max(0, line_start - _WINDOW) : line_start].rstrip()
        if _LAMBDA_AT_END.search(previous):  # `fun x =>` then the body on the next line
            return False
        return not previous.endswith(_CONTINUATIONS) or previous.endswith(("<;>", "=>"))
    if _SEPARATOR_AT_END.search(before) or before == ".":
        return True
    if before.endswith("("):
        return _tactic_start(text, line_start + len(before) - 1)
    words = before.split()
    last = words[-1]
    if last.isdigit() and len(words) > 1:  # `iterate 3 simp`
        last = words[-2]
    return last.lstrip("(") in _TACTIC_COMBINATORS


def _configuration_position(text: str, pos: int) -> bool:
    """Whether the `(` at `pos` opens an item of a tactic's configuration."""
    head = _head_before(text, pos)
    if head is None:
        return False
    start, word = head
    return word not in _NOT_TACTICS and _tactic_start(text, start)


def _head_before(text: str, pos: int) -> tuple[int, str] | None:
    """The tactic-shaped word whose clauses run up to `pos`, read backwards over blanks,
    bracket groups (some tactics take clauses in any order: `aesop (add safe h) (config :=
    …)`), `+flag`/`-flag`, `only` and comments; None when there is none within `_WINDOW`."""
    limit = max(0, pos - _WINDOW)
    i = pos
    while True:
        while i > limit and text[i - 1] in " \t\r\n":
            i -= 1
        if i <= limit:
            return None
        last = text[i - 1]
        if last in _OPENER_OF:
            opener = _opener_before(text, i - 1, limit)
            if opener is None:
                return None
            i = opener
            continue
        if text.startswith("-/", i - 2):
            opener = text.rfind("/-", limit, i - 2)
            if opener < 0:
                return None
            i = opener
            continue
        j = i
        while j > limit and (_REST_CHAR.match(text, j - 1) or text[j - 1] == "."):
            j -= 1
        word = text[j:i]
        if j > limit and text[j - 1] in "+-" and word[:1].isalpha():
            i = j - 1  # `+arith`, `-zeta`
        elif word == "only":
            i = j
        elif (j > limit or limit == 0) and _TACTIC_SHAPED.fullmatch(word):
            return j, word
        else:
            return None


def _opener_before(text: str, close: int, limit: int) -> int | None:
    """Where the bracket that the `)` or `]` at `close` closes opens, if after `limit`."""
    depth = 0
    for i in range(close, limit - 1, -1):
        c = text[i]
        if c in ")]":
            depth += 1
        elif c in "([":
            depth -= 1
            if depth == 0:
                return i
    return None


_NUMBER = re.compile(r"[0-9][0-9_]*")
# A literal value or `{ field := literal, … }` then `)`, without comments: what `_literal_value`
# accepts, read by one pattern (anything else goes through the token reader).
_ATOM = "(?:true|false|[0-9][0-9_]*+|\\.(?:{}))(?![{}])".format(
    "|".join(sorted(_ENUM_CONSTRUCTORS)), ID_REST
)
_FIELD = rf"[{ID_FIRST}][{ID_REST}]*+\s*+:=\s*+{_ATOM}"
_PLAIN_LITERAL = re.compile(
    rf"\s*+(?:{_ATOM}|\{{\s*+(?:{_FIELD}(?>(?:\s*+,?\s*+{_FIELD})*))?\s*+\}})\s*+\)"
)


def _literal(tokens: list[str]) -> bool:
    """A value the interpreter evaluates without running anything a submission wrote."""
    if len(tokens) == 1:
        return tokens[0] in ("true", "false") or _NUMBER.fullmatch(tokens[0]) is not None
    if tokens[:1] == ["."] and len(tokens) > 3 and tokens[1] in _OCCURRENCES:
        return _number_list(tokens[2:])
    if tokens[:1] == ["["]:
        return _number_list(tokens)
    return len(tokens) == 2 and tokens[0] == "." and tokens[1] in _ENUM_CONSTRUCTORS


def _number_list(tokens: list[str]) -> bool:
    """`[1, 2, 3]`, as tokens."""
    inside = tokens[1:-1]
    return (
        tokens[0] == "["
        and tokens[-1] == "]"
        and all(_NUMBER.fullmatch(t) for t in inside[::2])
        and all(t == "," for t in inside[1::2])
    )


def _literal_structure(tokens: list[str]) -> bool:
    """`{ field := literal, … }` (fields separated by commas or new lines)."""
    if tokens[:1] != ["{"] or tokens[-1:] != ["}"]:
        return False
    fields: list[list[str]] = [[]]
    for token in tokens[1:-1]:
        if token == ",":
            fields.append([])
        else:
            fields[-1].append(token)
    fields = [field for field in fields if field]
    # Without commas, fields on separate lines run together: split them at each `name :=`.
    flat = [token for field in fields for token in field]
    i = 0
    while i < len(flat):
        if i + 2 >= len(flat) + 0 or flat[i + 1] != ":=" or not _PLAIN_WORD.fullmatch(flat[i]):
            return False
        j = i + 2
        while j < len(flat) and not (j + 1 < len(flat) and flat[j + 1] == ":="):
            j += 1
        if not _literal(flat[i + 2 : j]):
            return False
        i = j
    return True


def _literal_value(option: str, tokens: list[str]) -> bool:
    """Whether `(option := tokens)` configures a tactic with literals only. `by …` is kept as
    syntax, not evaluated (`elabConfig`'s special case); Aesop's `rule_sets` are names."""
    if tokens[:1] == ["by"]:
        return True
    if option == "rule_sets":  # `[A, -B]`: names of rule sets, never evaluated
        names = " ".join(tokens[1:-1]).replace("- ", "-").split(" , ")
        return (
            tokens[:1] == ["["]
            and tokens[-1:] == ["]"]
            and all(_PLAIN_WORD.fullmatch(name.removeprefix("-")) for name in names)
        )
    if option in ("config", "simp_config"):
        return _literal(tokens) or _literal_structure(tokens)
    return _literal(tokens)
