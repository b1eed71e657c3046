"""A quick check of the JSON Schema keywords jig's schemas use, without importing jsonschema.

`validate` asks this first so that the common case, a valid document, costs microseconds
instead of jsonschema's tenth of a second of import. It answers True only when every keyword
it met is one it implements exactly as Draft 2020-12 defines it and as jsonschema (with no
format checker) applies it; on `$ref`, a keyword it does not know, or a value it cannot compare
exactly it answers None, and so does the caller's jsonschema; False means invalid, and
jsonschema then says why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# Keywords that never make a document invalid (jsonschema asserts no `format` by default).
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "$defs", "title", "description", "default", "examples"}
    | {"format", "deprecated", "readOnly", "writeOnly", "then", "else"}
)


class _Unsure(Exception):
    """A keyword or value outside what this module decides exactly."""


def conforms(instance: Any, schema: Any) -> bool | None:
    """True: valid; False: invalid; None: not decided here (ask jsonschema)."""
    try:
        return _valid(instance, schema)
    except _Unsure:
        return None


def _valid(instance: Any, schema: Any) -> bool:
    if isinstance(schema, bool):
        return schema
    if not isinstance(schema, dict):
        raise _Unsure
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(keyword)
        if check is None:
            raise _Unsure
        if not check(instance, value, schema):
            return False
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_type(instance: Any, name: str) -> bool:
    if name == "integer":
        if isinstance(instance, float):
            return instance.is_integer()
        return isinstance(instance, int) and not isinstance(instance, bool)
    kinds: dict[str, Callable[[Any], bool]] = {
        "null": lambda v: v is None,
        "boolean": lambda v: isinstance(v, bool),
        "object": lambda v: isinstance(v, dict),
        "array": lambda v: isinstance(v, list),
        "string": lambda v: isinstance(v, str),
        "number": _is_number,
    }
    if name not in kinds:
        raise _Unsure
    return kinds[name](instance)


def _equal(one: Any, two: Any) -> bool:
    """JSON equality for scalars (true is not 1); containers are left to jsonschema."""
    if isinstance(one, dict | list) or isinstance(two, dict | list):
        raise _Unsure
    if isinstance(one, bool) or isinstance(two, bool):
        return isinstance(one, bool) and isinstance(two, bool) and one == two
    if isinstance(one, str) or isinstance(two, str):
        return isinstance(one, str) and isinstance(two, str) and one == two
    return bool(one == two)


def _type(instance: Any, value: Any, _: dict[str, Any]) -> bool:
    names = value if isinstance(value, list) else [value]
    return any(_is_type(instance, name) for name in names)


def _properties(instance: Any, value: dict[str, Any], _: dict[str, Any]) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(_valid(instance[key], sub) for key, sub in value.items() if key in instance)


def _additional(instance: Any, value: Any, schema: dict[str, Any]) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        raise _Unsure
    named = schema.get("properties", {})
    return all(_valid(item, value) for key, item in instance.items() if key not in named)


def _if(instance: Any, value: Any, schema: dict[str, Any]) -> bool:
    branch = "then" if _valid(instance, value) else "else"
    return branch not in schema or _valid(instance, schema[branch])


def _when(kind: Callable[[Any], bool], test: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    """A keyword that applies `test` to instances of one kind and ignores every other."""

    def check(instance: Any, value: Any, _: dict[str, Any]) -> bool:
        return not kind(instance) or test(instance, value)

    return check


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_list(value: Any) -> bool:
    return isinstance(value, list)


def _is_dict(value: Any) -> bool:
    return isinstance(value, dict)


_KEYWORDS: dict[str, Callable[[Any, Any, dict[str, Any]], bool]] = {
    "type": _type,
    "const": lambda instance, value, _: _equal(instance, value),
    "enum": lambda instance, value, _: any(_equal(instance, item) for item in value),
    "required": _when(_is_dict, lambda i, v: all(key in i for key in v)),
    "properties": _properties,
    "additionalProperties": _additional,
    "pattern": _when(_is_str, lambda i, v: re.search(v, i) is not None),
    "minLength": _when(_is_str, lambda i, v: len(i) >= v),
    "maxLength": _when(_is_str, lambda i, v: len(i) <= v),
    "minimum": _when(_is_number, lambda i, v: i >= v),
    "maximum": _when(_is_number, lambda i, v: i <= v),
    "exclusiveMinimum": _when(_is_number, lambda i, v: i > v),
    "exclusiveMaximum": _when(_is_number, lambda i, v: i < v),
    "minItems": _when(_is_list, lambda i, v: len(i) >= v),
    "maxItems": _when(_is_list, lambda i, v: len(i) <= v),
    "items": _when(_is_list, lambda i, v: all(_valid(item, v) for item in i)),
    "allOf": lambda instance, value, _: all(_valid(instance, sub) for sub in value),
    "anyOf": lambda instance, value, _: any(_valid(instance, sub) for sub in value),
    "oneOf": lambda instance, value, _: sum(_valid(instance, sub) for sub in value) == 1,
    "not": lambda instance, value, _: not _valid(instance, value),
    "if": _if,
}
