"""Reading TeX's arguments from a masked source: braces, brackets, spaces, comma lists."""

from __future__ import annotations


def skip_spaces(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def matching_brace(text: str, i: int) -> int | None:
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


def read_group(text: str, i: int) -> tuple[str, int] | None:
    """`{content}` at `i` (after spaces): its content and the index after it."""
    j = skip_spaces(text, i)
    if j >= len(text) or text[j] != "{":
        return None
    close = matching_brace(text, j)
    return None if close is None else (text[j + 1 : close], close + 1)


def read_optional(text: str, i: int) -> tuple[str, int] | None:
    """`[content]` at `i` (after spaces), `]` inside braces not ending it."""
    j = skip_spaces(text, i)
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


def comma_list(arg: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in arg.split(",") if part.strip())


def tex_words(text: str) -> str:
    """An argument as TeX reads it: a line break and the spaces around it are one space."""
    return " ".join(text.split())
