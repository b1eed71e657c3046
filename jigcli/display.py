"""Text from an untrusted program, made safe to show a person: one line, no control.

A checker (or any tool jig runs) may print escape sequences that move the cursor, retitle
the window, write the clipboard or draw links, and newlines that draw a fake verdict line
under the real one. Whatever reaches a terminal or a job summary goes through `one_line`:
control and format characters (C0, DEL, C1, line and paragraph separators, bidirectional
overrides, zero-width marks) are shown escaped (`\\x1b`, `\\n`, `\\u202e`), so they are
seen, never obeyed, and the line is cut at a length a person reads. The JSON verdict keeps
the exact text. Standard library only: the CI fallback script imports this before jig may
be installed.
"""

from __future__ import annotations

import unicodedata

LIMIT = 300  # characters shown of one untrusted line
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def one_line(text: object, limit: int = LIMIT) -> str:
    """`text` as one safe line of at most `limit` characters (then `…`)."""
    shown: list[str] = []
    size = 0
    for char in str(text):
        piece = _escaped(char)
        if size + len(piece) > limit:
            shown.append("…")
            break
        shown.append(piece)
        size += len(piece)
    return "".join(shown)


def _escaped(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"):
        code = ord(char)
        return (
            f"\\x{code:02x}"
            if code < 0x100
            else f"\\u{code:04x}"
            if code < 0x10000
            else f"\\U{code:08x}"
        )
    return char
