"""The bulk skip: one compiled pattern that consumes every token the scan has no interest in,
with the lexer's boundaries, and stops where a rule may apply."""

from __future__ import annotations

import functools
import re

from jigcli.lean.lexer import (
    HASH_COMMANDS,
    ID_FIRST,
    ID_REST,
    NOT_TEXT,
    NOT_TEXT_ASTRAL,
    SKIP_PARTS,
    table,
)
from jigcli.lean.policy.positions import _NAMED_AHEAD
from jigcli.lean.policy.rules import CONSTANTS, PREFIXES, WORDS
from jigcli.lean.policy.tables import (
    ALLOWED_COMMANDS,
    DECLARATION_KEYWORDS,
    FORBIDDEN_ROOTS,
    GLUED_KEYWORD_AHEAD,
    NOTATION_KEYWORDS,
)

# Words that send the scanner to Python: every word a rule or a form looks at.
_CONTEXT_WORDS = (
    *("import", "native", "set_option", "attribute", "_root_", "Mathlib", "Batteries", "public"),
    *NOTATION_KEYWORDS,
)
_HOT_WORDS = sorted({*WORDS, *CONSTANTS, *_CONTEXT_WORDS, *FORBIDDEN_ROOTS})


def _trie(words: dict[str, str]) -> str:
    """An alternation of `words` factored by shared prefixes, so a miss costs one comparison;
    each word is followed by its own tail pattern (what must come after it)."""
    by_first: dict[str, dict[str, str]] = {}
    tail = None
    for word, after in words.items():
        if word:
            by_first.setdefault(word[0], {})[word[1:]] = after
        else:
            tail = after
    branches = [re.escape(first) + _trie(rest) for first, rest in sorted(by_first.items())]
    if tail is not None:
        branches.append(tail)
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"


# What may come right before a comment opener or a literal without doubt about where Lean's
# previous token ended: blanks, identifier characters, brackets and separators.
_SAFE_BEFORE = rf"\s{ID_REST}()\[\]{{}}⟨⟩,;\"»"
_GUARD = rf"(?<![^{_SAFE_BEFORE}])"
_END = rf"(?![{ID_REST}])"
_ROOT_AHEAD = "|".join(re.escape(root) for root in (*FORBIDDEN_ROOTS, "_root_"))
# A declaration keyword followed by a plain name outside the protected roots (`theorem aux`),
# and `open` followed by a name but `private`, need no look: every other spelling gets one.
_PLAIN_NAME_AHEAD = rf"[ \t\r\n]++(?!(?:{_ROOT_AHEAD}){_END})[{ID_FIRST}]"
# A hot word exactly (a trailing `!`/`?` aside), a word with a hot prefix, or a declaration
# keyword or `open` followed by anything else.
_HOT = _trie(
    {word: rf"{_END}(?!{_PLAIN_NAME_AHEAD})" for word in DECLARATION_KEYWORDS}
    | {"open": rf"{_END}(?![ \t\r\n]++(?!private{_END})[{ID_FIRST}])"}
    | {word: rf"[!?]*+{_END}" for word in _HOT_WORDS}  # `axiom` is hot whatever follows
    | dict.fromkeys(PREFIXES, "")
    | dict.fromkeys(("unsafe", "dbg"), "")  # the `component` rules that match a prefix
)
# ... and the `component` rules that match inside a component.
_COMPONENT_INSIDE = rf"(?![{ID_REST}]*?(?:Unsafe|IO(?![a-z])))"
_BORING_PART = rf"(?!{_HOT}){_COMPONENT_INSIDE}[{ID_FIRST}][{ID_REST}]*+"
_BORING_IDENT = (
    rf"(?!r#*+\")(?!{GLUED_KEYWORD_AHEAD})"
    rf"{_BORING_PART}(?>(?:\.{_BORING_PART})*)(?!\.[«{ID_FIRST}]|%)"
)
# An allowed command is boring unless a longer token continues it (`#check` in `#check_simp`).
_BORING_COMMANDS = "|".join(
    re.escape(command[1:])
    + "(?!{})".format(
        "|".join(
            re.escape(longer[len(command) :])
            for longer in HASH_COMMANDS
            if longer.startswith(command) and longer != command
        )
        or "(?!)"
    )
    for command in sorted(ALLOWED_COMMANDS)
)


def _skip(not_text: str, multi: str, wordlike: str) -> re.Pattern[str]:
    """A pattern that consumes in one C-level match every token the policy has no interest in,
    with exactly the lexer's boundaries, and stops at the start of the next token worth a look
    (or at the end). Name literals, escaped names, strings with braces and raw strings are left
    to the lexer, and so is every character in `not_text`; an identifier where a token of the
    table that starts like one (`wordlike`) could be read instead is left to it too."""
    symbol = (
        rf"{multi}|[^\s{ID_FIRST}0-9\"'«`#@/\-({not_text}]|/(?!-)|-(?!-)"
        rf"|`(?![«{ID_FIRST}(`])|#(?![A-Za-z_])|@(?!\[)|\((?!{_NAMED_AHEAD})"
    )
    parts = (
        r"[ \t\r\n]++",
        (f"(?!{wordlike})" if wordlike else "") + _BORING_IDENT,
        symbol,
        SKIP_PARTS["number"],
        _GUARD + r"--[^\n]*+",
        _GUARD + SKIP_PARTS["comment"],
        _GUARD + SKIP_PARTS["string_without_braces"],
        _GUARD + SKIP_PARTS["char"],
        rf"#(?:{_BORING_COMMANDS})",
    )
    return re.compile("(?>(?:" + "|".join(parts) + ")*)")


@functools.lru_cache(maxsize=64)
def skips(declared: frozenset[str] = frozenset()) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The bulk skip for the pinned table plus `declared`, as (plain, strict). Most sources
    hold no character that is not Lean text outside the astral planes, which one quick look at
    the whole text tells; they skip symbols with a class that leaves only the astral ones to
    the lexer (plain). Any other source is scanned with the strict one."""
    symbols = table(declared).symbols
    leading = [s for s in symbols if not re.match(f"[{ID_FIRST}«]", s)]
    wordlike = [s for s in symbols if re.match(f"[{ID_FIRST}«]", s)]
    multi = "|".join(re.escape(s) for s in sorted(leading, key=len, reverse=True)) or "(?!)"
    starts = "|".join(re.escape(s) for s in sorted(wordlike, key=len, reverse=True))
    return _skip(NOT_TEXT_ASTRAL, multi, starts), _skip(NOT_TEXT, multi, starts)
