"""Reading a JSON document that a user wrote, with one sentence for each way it can be wrong."""

from __future__ import annotations

import json
import sys
from typing import Any


class JsonProblem(ValueError):
    """The bytes are not a JSON document; `str()` says what, `place` where (1-based line and
    column, when the parser knew), for the caller's own `path:line:col:` error."""

    def __init__(self, message: str, place: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.place = place


def _no_constant(name: str) -> Any:
    # Python reads NaN and Infinity, JSON has neither; a NaN limit would compare false with
    # every ceiling and switch the limit off instead of being clamped.
    raise JsonProblem(f"{name} is not a JSON number")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            raise JsonProblem(f"the key {key!r} appears twice in one object")
    return dict(pairs)


def parse_json(raw: bytes, what: str, *, unique_keys: bool = False) -> Any:
    """The document in `raw`; `what` names it in the sentence ("the manifest", "spec.json").

    `unique_keys` refuses an object that repeats a key: Python would keep the last value
    silently, another reader the first, and a document two readers read differently cannot
    decide anything."""
    hook = _unique if unique_keys else None
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_no_constant, object_pairs_hook=hook)
    except JsonProblem as exc:
        raise JsonProblem(f"{what} is not valid JSON: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise JsonProblem(f"{what} is not UTF-8 (byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        comma = _trailing_comma(exc.doc, exc.pos)
        if comma is not None:
            line, column = _place(exc.doc, comma)
            raise JsonProblem(
                f"{what} is not valid JSON: a comma after its last item at line {line} column "
                f"{column}; remove it",
                (line, column),
            ) from exc
        raise JsonProblem(
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}",
            (exc.lineno, exc.colno),
        ) from exc
    except RecursionError as exc:
        raise JsonProblem(f"{what} nests too deeply to be read") from exc
    except ValueError as exc:  # an integer past Python's digit limit
        raise JsonProblem(
            f"{what} holds a number with more digits than {sys.get_int_max_str_digits()}"
        ) from exc


def _trailing_comma(text: str, pos: int) -> int | None:
    """Where the comma is when the parser stopped at a `}` or `]` right after one (`{"a": 1,}`):
    it reports the bracket, a line late; the mistake is the comma."""
    if pos >= len(text) or text[pos] not in "}]":
        return None
    before = text[:pos].rstrip()
    return len(before) - 1 if before.endswith(",") else None


def _place(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def is_unicode_text(text: str) -> bool:
    """False for a string JSON can carry but UTF-8 cannot: one holding a lone surrogate
    (`"\\ud800"`), which no file, log or hash of jig's can hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
