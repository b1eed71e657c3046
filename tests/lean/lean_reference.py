"""A reference reading of Lean source, written from `whitespace`, `tokenFnAux`, `identFnAux`
and `isToken` in lean4 src/Lean/Parser/Basic.lean (read at commit 00c1b82722b5) one character
at a time, with none of the lexer's patterns: the property tests hold the lexer to it.

    spans(text, table) -> list[(kind, start, end)]

Kinds: `comment` (line, block and doc comments), `string` (raw ones too), `char`, `number`,
`name` (a name literal), `ident`, `token` (an entry of `table`, or one character Lean has no
token for) and `error` (a char literal Lean rejects; the reading goes on after its `'`, as
the lexer's does; an unterminated comment or raw string, after which Lean reads no further).
"""

from __future__ import annotations

import re

from jigcli.lean.lexer import ID_FIRST, ID_REST

_FIRST = re.compile(f"[{ID_FIRST}]")
_REST = re.compile(f"[{ID_REST}]")


def _comment_end(text: str, pos: int) -> int | None:
    """The end of the nested block comment whose body starts at `pos` (after `/-` and the
    character Lean skips), or None when it never closes."""
    depth = 1
    i = pos
    while i < len(text) and depth:
        if text.startswith("-/", i):
            depth -= 1
            i += 2
        elif text.startswith("/-", i):
            depth += 1
            i += 2
        else:
            i += 1
    return None if depth else i


def _string_end(text: str, pos: int) -> int:
    i = pos + 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return len(text)


def _raw_opener(text: str, pos: int) -> int | None:
    """The number of `#` of a raw string literal's opener after its `r`, else None."""
    end = pos
    while end < len(text) and text[end] == "#":
        end += 1
    return end - pos if text[end : end + 1] == '"' else None


_DIGITS = {"x": "0123456789abcdefABCDEF_", "b": "01_", "o": "01234567_"}


def _number_end(text: str, pos: int) -> int:
    """`numberFnAux`: `0x`, `0b`, `0o` then at least one digit of the base (else an error,
    given as `pos`), or decimal digits."""
    base = text[pos + 1 : pos + 2].lower() if text[pos] == "0" else ""
    if base in _DIGITS:
        end = pos + 2
        while end < len(text) and text[end] in _DIGITS[base]:
            end += 1
        return end if any(ch != "_" for ch in text[pos + 2 : end]) else pos
    end = pos + 1
    while end < len(text) and text[end].isascii() and (text[end].isdigit() or text[end] == "_"):
        end += 1
    return end


def _ident_end(text: str, pos: int) -> int:
    """Where the identifier starting at `pos` ends: parts of `«…»` or a first character and
    rest characters, joined by `.` when a part follows (`isIdCont`)."""
    i = pos
    while True:
        if text.startswith("«", i):
            close = text.find("»", i + 1)
            i = len(text) if close < 0 else close + 1
        else:
            i += 1
            while i < len(text) and _REST.match(text, i):
                i += 1
        if text.startswith(".", i) and i + 1 < len(text):
            nxt = text[i + 1]
            if nxt == "«" or _FIRST.match(nxt):
                i += 1
                continue
        return i


def _longest(text: str, pos: int, table: frozenset[str]) -> str | None:
    best = None
    for token in table:
        if text.startswith(token, pos) and (best is None or len(token) > len(best)):
            best = token
    return best


def spans(text: str, table: frozenset[str]) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif text.startswith("--", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out.append(("comment", i, end))
            i = end
        elif text.startswith("/-", i):
            closed = _comment_end(text, i + 3)
            # Unterminated: an error, and Lean reads no further.
            out.append(("comment", i, closed) if closed is not None else ("error", i, n))
            i = n if closed is None else closed
        elif c == '"':
            end = _string_end(text, i)
            out.append(("string", i, end))
            i = end
        elif c == "'" and text[i + 1 : i + 2] != "'":
            # `charLitFnAux`: one character, then `'`, else an error at the opener.
            closed = i + 2 < n and text[i + 1] != "\\" and text[i + 2] == "'"
            out.append(("char", i, i + 3) if closed else ("error", i, i + 1))
            i += 3 if closed else 1
        elif c.isdigit() and c.isascii():
            end = _number_end(text, i)
            out.append(("number", i, end) if end > i else ("error", i, i + 1))
            i = max(end, i + 1)
        elif c == "`" and i + 1 < n and (text[i + 1] == "«" or _FIRST.match(text[i + 1])):
            end = _ident_end(text, i + 1)
            out.append(("name", i, end))
            i = end
        elif c == "r" and (hashes := _raw_opener(text, i + 1)) is not None:
            # `tokenFnAux` tries a raw string literal (`isRawStrLitStart`) before any token.
            closer = text.find('"' + "#" * hashes, i + hashes + 2)
            if closer < 0:  # unterminated: an error, and Lean reads no further
                out.append(("error", i, n))
                i = n
            else:
                out.append(("string", i, closer + 1 + hashes))
                i = closer + 1 + hashes
        else:
            token = _longest(text, i, table)
            if c == "«" or _FIRST.match(c):
                end = _ident_end(text, i)
                if token is not None and len(token) >= end - i:
                    out.append(("token", i, i + len(token)))
                    i += len(token)
                else:
                    out.append(("ident", i, end))
                    i = end
            else:
                size = len(token) if token else 1
                out.append(("token", i, i + size))
                i += size
    return out
