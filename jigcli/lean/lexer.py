"""A Lean 4 lexer, exact where a policy needs it to be: what is code, and what is not.

Lean has no separate lexer (its parser reads tokens on demand), but the boundaries that decide
whether a word is code are fixed by `Lean.Parser.Basic` at v4.33.0, and this module follows them:

* whitespace is `' ' \\t \\r \\n`; `--` runs to the end of the line; `/-` opens a comment that
  nests (`/-` inside opens another level, `-/` closes one). Lean skips the character right after
  the opening `/-`, so a comment body starts three characters in; `/--` is a doc comment and
  `/-!` a module doc, and both nest the same way;
* a string is `"…"` with the escapes `\\\\ \\" \\' \\n \\t \\r`, `\\xHH`, `\\uHHHH` and gaps
  (`\\`, a newline, blanks without a second newline); a raw string is `r"…"`, `r#"…"#`,
  `r##"…"##`, … closed by the first `"` followed by as many `#` as it opened with;
* a char literal `'c'` / `'\\n'` starts only where a token starts: the `'` in `h'` or `f''`
  belongs to the identifier, and `''` is a symbol (Mathlib's image notation);
* an identifier is dot-separated parts, each `«anything but »»` or an identifier-start character
  (ASCII letter, `_`, Lean's letter-like ranges: Greek but λ Π Σ, ℕ-style letter-like symbols,
  Latin-1 and Latin Extended-A letters, mathematical script) followed by identifier characters
  (those, ASCII digits, `_ ' ! ?` and subscript letters and digits). `Foo.sorry` and
  `partial_sum` are single identifiers; `«sorry»` is an identifier that merely spells a keyword;
* `` `name `` is a name literal; a command token is the longest `#` token of the pinned
  toolchain's table (`tokens.yaml`) the text starts with (`#eval`, `#check`; `#checkx` is
  `#check` then `x`), and any other `#` is a one-character symbol (Mathlib's `#s`);
* a symbol is one character, except the tokens of Lean's table that read otherwise one
  character at a time (`changes_reading`: `''`, `⁻¹'`, `∑'`, `]'` of `xs[i]'h`, `//`, `<-`,
  Mathlib's `→o`, `=O[`; the `symbols` of `tokens.yaml`, each with its source) and those the
  text's own notation declares (`Lexer(text, declared)`), read as Lean's `tokenFn` reads the
  longest token, a token as long as the identifier there winning (`isToken`); `@[` and `:=`
  are read whole for the scanner's convenience. A run of symbols Lean holds as one token
  (`<;>`, `→+*`) is split here, which moves no boundary of a comment, literal or name.

The public API, for the policy scan and for readers of declarations:

    tokenize(text, declared=frozenset()) -> Iterator[Token]
    Token(kind, text, line, end_line, start, end)   # a NamedTuple
    Lexer(text, declared).at(pos) -> (kind, end)    # one token at a time, whitespace included
    changes_reading(token) -> bool                  # whether the lexer must know the token

`line` and `end_line` are 1-based (the lines of the first and last character), `start`/`end` are
offsets into `text` with `text[start:end] == token.text`. Whitespace is not yielded: between two
consecutive tokens (and before the first, after the last) there is only whitespace, so the
tokens' texts plus those gaps give back the input exactly. Comments are yielded with their full
text, markers included, so a reader can take a docstring or a `-- tex: label` comment from them.

Kinds: `ident` (identifiers, `«»` names included), `keyword` (an identifier-shaped
word in `KEYWORDS`, e.g. `theorem`, `sorry`), `command` (`#eval`, `#check`), `name` (`` `foo ``),
`number`, `string` (raw strings included), `char`, `line_comment`, `block_comment`,
`doc_comment` (`/-- -/`), `module_doc` (`/-! -/`), `symbol`, and `error`: a literal Lean itself
would refuse (an unterminated string, raw string, `«` or comment, a malformed char literal or
escape), or one character that is not Lean text where it stands (`NOT_TEXT`: a control
character, a space other than `' '`, an invisible or direction-changing format character).
Every character of code gets one of these kinds; one the lexer has no kind for is an `error`,
never a guess. An error token covers the opening character(s) only, and lexing resumes right
after them, so what a broken literal would have hidden is still read as code; an unterminated
comment is the exception, running to the end as in Lean, which stops reading there.

Speed: one compiled master pattern matched at successive positions; only comments nesting
two levels deep and raw strings fall back to a little Python, and no input, however broken,
takes more than linear time. `SKIP_PARTS` exposes the pattern pieces, so that a scanner can
build a pattern consuming uninteresting tokens in bulk with the same boundaries.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import yaml

# Lean's `isLetterLike` (Init/Meta/Defs.lean): identifier characters beyond ASCII.
_LETTER_LIKE = (
    "\u03b1-\u03ba\u03bc-\u03c9"  # Greek lower case, except λ
    "\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9"  # Greek upper case, except Π and Σ
    "\u03ca-\u03fb"  # Coptic
    "\u1f00-\u1ffe"  # polytonic Greek
    "\u2100-\u214f"  # letter-like symbols: ℕ ℤ ℝ ℓ …
    "\U0001d49c-\U0001d59f"  # script, double-struck and Fraktur letters
    "\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff"  # Latin-1 letters, except × and ÷
    "\u0100-\u017f"  # Latin Extended-A
)
# Lean's `isSubScriptAlnum`: ₀…₉, ₐ…ₜ, ᵢ…ᵪ, ⱼ.
_SUBSCRIPT = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c"

ID_FIRST = f"A-Za-z_{_LETTER_LIKE}"
ID_REST = f"A-Za-z0-9_'!?{_LETTER_LIKE}{_SUBSCRIPT}"

_ESCAPE = r"""(?:[\\"'nrt]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4})"""
# A gap: backslash, newline, blanks, and the string goes on on that next line (a second newline
# in the gap is an error in Lean). `\r?` because Lean reads CRLF files as LF.
_GAP = r"\r?\n[ \t\r]*+(?!\n)"
_STRING = rf'"(?>(?:[^"\\]++|\\(?:{_ESCAPE}|{_GAP}))*)"'
# A raw string's opener; its end is found in Python (see `Lexer`), which keeps failures cheap.
_RAW_OPEN = r'r#*+"'
_CHAR = rf"'(?!')(?:\\{_ESCAPE}|[^\\])'"
_PLAIN_PART = rf"[{ID_FIRST}][{ID_REST}]*+"
_PART = rf"(?:«[^»]*+»|{_PLAIN_PART})"
_IDENT = rf"{_PART}(?>(?:\.{_PART})*)"
_NAME = rf"`(?=[«{ID_FIRST}]){_IDENT}"
# The same without `«»` parts, for text after the last `»`, where no escape can close: there
# an escape fails without first scanning to the end of the text.
_PLAIN_IDENT = rf"{_PLAIN_PART}(?>(?:\.{_PLAIN_PART})*)"
_PLAIN_NAME = rf"`{_PLAIN_IDENT}"
_NUMBER = (
    r"0[xX][0-9a-fA-F_]++|0[bB][01_]++|0[oO][0-7_]++"
    r"|[0-9][0-9_]*+(?:\.[0-9][0-9_]*+)?(?:[eE][+-]?[0-9][0-9_]*+)?"
)
# Lean's `#` tokens and `name%` tokens at the pin, with their sources (`tokens.yaml`).
TOKENS: dict[str, dict[str, dict[str, Any]]] = yaml.safe_load(
    (Path(__file__).resolve().parent / "tokens.yaml").read_text(encoding="utf-8")
)
HASH_COMMANDS = frozenset(TOKENS["hash_commands"])
# The longest token the text starts with, as Lean's tokenizer takes it: `#checkx` is `#check`.
_COMMAND = "#(?:{})".format(
    "|".join(re.escape(c[1:]) for c in sorted(HASH_COMMANDS, key=len, reverse=True))
)
# A comment in one match when it nests at most one level deep: `/-`, the character Lean skips,
# then a body of plain text and inner comments (whose bodies start right after their `/-`).
_COMMENT_BODY = r"(?>(?:[^/-]++|/(?!-)|-(?!/))*)"
_SHALLOW_COMMENT = rf"/-[\s\S]{_COMMENT_BODY}(?>(?:/-{_COMMENT_BODY}-/{_COMMENT_BODY})*)-/"

# Characters that are not Lean text in code: C0 and C1 controls (but tab, LF and CR), DEL, every
# space but ' ' (no-break, en/em, ideographic, line and paragraph separators), the invisible or
# direction-changing format characters (soft hyphen, zero-width space and joiners, LRM/RLM/ALM,
# bidi embeddings, overrides and isolates, word joiner, invisible operators, BOM, variation
# selectors, Hangul fillers, tags) and private-use code points. Lean reads none of them as
# whitespace or as part of an identifier, and no Lean or Mathlib token contains one.
# Split by plane: a character class with only the first can be tested in constant time.
NOT_TEXT_BMP = (
    "\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\xa0\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e"
    "\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\u3164\ue000-\uf8ff\ufe00-\ufe0f\ufeff"
    "\uffa0\ufff0-\ufffb"
)
NOT_TEXT_ASTRAL = "\U000e0000-\U000e007f\U000f0000-\U0010ffff"
NOT_TEXT = NOT_TEXT_BMP + NOT_TEXT_ASTRAL

# Multi-character symbols read whole: the pinned table's tokens that `changes_reading`
# (`tokens.yaml`, `symbols`), among them those holding a `'` (`''`, `⁻¹'`, `∑'`, `]'` of
# `xs[i]'h`, whose `'` would otherwise start a char literal) and those with a letter right
# after a symbol (`→o`). `@[` and `:=` are here for the scanner's convenience. A file's own
# notation adds tokens (`Lexer(text, declared)`), read the same way from where it declares
# them; where Lean's table and this one could disagree, `jigcli.lean.policy` refuses.
_IDENT_SHAPED = re.compile(_IDENT)
# A letter where this lexer would start a name but Lean is inside the token: after a symbol
# and any characters that continue names but cannot start one (`→o`, `<<?o`), or after a
# first character of that kind (`!o`, `₁x`).
_GLUE = re.compile(f"(?:[^{ID_REST}]|\\A[^{ID_FIRST}«])[{ID_REST}]*[{ID_FIRST}]")


def changes_reading(token: str) -> bool:
    """Whether reading `token` one character at a time, as this lexer reads a symbol it does
    not know, could split the text differently from Lean's tokenizer, which reads the longest
    token of its table: a quote, `%`, `«»` or a backslash inside it, a comment marker inside
    it or an end in `-` or `/` (which could start one), or a letter right after a symbol
    (which this lexer would start an identifier with)."""
    if len(token) < 2 or _IDENT_SHAPED.fullmatch(token):
        return False
    return (
        any(c in token for c in "'\"`«»\\%")
        or any(marker in token for marker in ("--", "/-", "-/"))
        or token.endswith(("-", "/"))
        or _GLUE.search(token) is not None
    )


PINNED_SYMBOLS = frozenset(TOKENS["symbols"])
MULTI_SYMBOLS = (*sorted(PINNED_SYMBOLS), "@[", ":=")


def _alternation(tokens: frozenset[str] | tuple[str, ...]) -> str:
    return "|".join(re.escape(s) for s in sorted(tokens, key=len, reverse=True)) or "(?!)"


def _master(ident: str, name: str, multi: str) -> re.Pattern[str]:
    return re.compile(
        "|".join(
            f"(?P<{kind}>{pattern})"
            for kind, pattern in (
                ("ws", r"[ \t\r\n]++"),
                ("line_comment", r"--[^\n]*+"),
                ("comment", f"{_SHALLOW_COMMENT}|/-"),
                ("string", _STRING),
                ("raw", _RAW_OPEN),
                ("char", _CHAR),
                ("name", name),
                ("number", _NUMBER),
                ("command", _COMMAND),
                ("ident", ident),
                ("symbol", f"{multi}|[^ \t\r\n\"'«{NOT_TEXT}]"),
                ("error", f"[\"'«{NOT_TEXT}]"),
            )
        )
    )


class _Table:
    """The compiled patterns for one token table: the pinned symbols and a file's own."""

    def __init__(self, declared: frozenset[str]) -> None:
        # A token starting with a digit is never read: Lean reads a number there first.
        symbols = PINNED_SYMBOLS | {
            t for t in declared if changes_reading(t) and not t[0].isdigit()
        }
        self.symbols = symbols
        leading = frozenset(t for t in symbols if not re.match(f"[{ID_FIRST}«]", t))
        multi = _alternation((*leading, "@[", ":="))
        self.master = _master(_IDENT, _NAME, multi)
        self.master_plain = _master(_PLAIN_IDENT, _PLAIN_NAME, multi)
        # Tokens that start like an identifier (`x/`, `ℝ≥0`-like): Lean reads the token when
        # it is at least as long as the identifier there (`isToken`, src/Lean/Parser/Basic.lean).
        wordlike = symbols - leading
        self.wordlike = re.compile(_alternation(wordlike)) if wordlike else None


@functools.lru_cache(maxsize=64)
def table(declared: frozenset[str] = frozenset()) -> _Table:
    return _Table(declared)


_NEST = re.compile(r"/-|-/")

# Identifier-shaped words Lean reads as keywords (core commands, modifiers and term syntax),
# plus the Mathlib `lemma`. The kind is a convenience for readers; the policy matches text.
KEYWORDS = frozenset(
    (
        *("abbrev", "axiom", "by", "calc", "class", "def", "deriving", "do", "else", "end"),
        *("example", "export", "extends", "fun", "have", "if", "import", "in", "inductive"),
        *("instance", "lemma", "let", "match", "mutual", "namespace", "noncomputable", "nonrec"),
        *("open", "opaque", "partial", "prelude", "private", "protected", "section", "show"),
        *("sorry", "structure", "then", "theorem", "universe", "unsafe", "variable", "where"),
        *("with", "admit", "at", "from", "omit", "include", "attribute", "set_option", "macro"),
        *("macro_rules", "syntax", "elab", "elab_rules", "notation", "infix", "infixl", "infixr"),
        *("prefix", "postfix", "initialize", "builtin_initialize", "native_decide", "decide"),
        *("termination_by", "decreasing_by", "module", "public", "meta"),
    )
)

# The pattern pieces, for a scanner that wants the same boundaries (see `jigcli.lean.policy`).
# Names are `«»`-free here: a scanner should leave escapes, and raw strings, to `Lexer.at`.
SKIP_PARTS = {
    "string": _STRING,
    # A string without `{`: it reads the same whether or not the syntax around it interpolates.
    "string_without_braces": rf'"(?>(?:[^"\\{{]++|\\(?:{_ESCAPE}|{_GAP}))*)"',
    "char": _CHAR,
    "name": _PLAIN_NAME,
    "number": _NUMBER,
    "command": _COMMAND,
    "comment": _SHALLOW_COMMENT,
}


class Token(NamedTuple):
    kind: str
    text: str
    line: int
    end_line: int
    start: int
    end: int


def comment_end(text: str, start: int) -> int | None:
    """The end of the comment opened by `/-` at `start`, or None when it never closes."""
    depth = 1
    for m in _NEST.finditer(text, start + 3):
        if m.group() == "-/":
            depth -= 1
            if depth == 0:
                return m.end()
        else:
            depth += 1
    return None


class Lexer:
    """Reads the tokens of one text. It remembers, per text, where the last `»` and the last
    closer of each raw-string width are, so that an unterminated literal is known as such at
    once: a text full of them still lexes in linear time."""

    def __init__(self, text: str, declared: frozenset[str] = frozenset()) -> None:
        self.text = text
        self.table = table(declared)
        self._last_escape_close = text.rfind("»")
        self._last_raw_close: dict[int, int] = {}

    def at(self, pos: int) -> tuple[str, int]:
        """The kind and end offset of the token (or whitespace run, kind `ws`) at `pos`."""
        text = self.text
        patterns = self.table
        master = patterns.master if pos < self._last_escape_close else patterns.master_plain
        m = master.match(text, pos)
        if m is None:  # only at the end of the text: every character matches some alternative
            return "ws", pos
        kind = m.lastgroup or "error"
        end = m.end()
        if kind == "comment":
            if end - pos == 2:  # `/-` alone: the body nests deeper, or never closes
                closed = comment_end(text, pos)
                if closed is None:
                    return "error", len(text)
                end = closed
            third = text[pos + 2]
            kind = {"-": "doc_comment", "!": "module_doc"}.get(third, "block_comment")
        elif kind == "raw":
            return self._raw(end, end - pos - 2)
        elif kind == "ident":
            wordlike = patterns.wordlike.match(text, pos) if patterns.wordlike else None
            if wordlike is not None and wordlike.end() >= end:
                return "symbol", wordlike.end()
            if m.group() in KEYWORDS:
                kind = "keyword"
        return kind, end

    def _raw(self, body: int, hashes: int) -> tuple[str, int]:
        """A raw string whose opener ends at `body`: closed by the first `"` followed by as
        many `#` as it opened with, else an error covering the opener."""
        closer = '"' + "#" * hashes
        last = self._last_raw_close.get(hashes)
        if last is None:
            last = self._last_raw_close[hashes] = self.text.rfind(closer)
        if last < body:
            return "error", body
        return "string", self.text.find(closer, body) + len(closer)


def tokenize(text: str, declared: frozenset[str] = frozenset()) -> Iterator[Token]:
    """Every token of `text` in order, whitespace left out (see the module docstring);
    `declared`: tokens the text's own notation adds to the pinned table."""
    lexer = Lexer(text, declared)
    pos = 0
    line = 1
    n = len(text)
    count = text.count
    while pos < n:
        kind, end = lexer.at(pos)
        if kind == "ws":
            line += count("\n", pos, end)
        else:
            end_line = line + count("\n", pos, end)
            yield Token(kind, text[pos:end], line, end_line, pos, end)
            line = end_line
        pos = end
