"""The JSON Schemas jig ships, and the one place documents are checked against them.

Two validators, one answer. `fastjsonschema` (a few milliseconds to import and compile)
decides whether a document is valid; only an invalid one pays for `jsonschema` (about a
tenth of a second to import), whose errors name every field that is wrong. `jig verify`
validates every manifest, and its start-up is on the certificate path's critical budget.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any

from jigcli import cachedir

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

SCHEMA_NAMES = ("verdict", "submission", "certificate", "audit", "batch")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema document `jigcli/schemas/<name>.schema.json`."""
    # Beside this module (package data; importlib.resources costs 10 ms to import).
    text = Path(__file__).with_name(f"{name}.schema.json").read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


@cache
def _fast(name: str) -> Callable[[Any], bool]:
    """Whether a document conforms to schema `name`: fastjsonschema's generated code, kept
    compiled in the cache folder (generating and compiling it costs some 25 ms a schema, on
    every `jig verify`), so that a later process loads neither it nor fastjsonschema."""
    stored = _stored(name)
    if stored is None:
        stored = _generated(name)
    if stored is None:  # code this module cannot keep: fastjsonschema's own validator
        return _compiled(name)
    function, code = stored
    namespace: dict[str, Any] = {"Decimal": _NoDecimal, **dict.fromkeys(_RAISED, _Invalid)}
    exec(code, namespace)
    check = namespace[function]

    def conforming(instance: Any) -> bool:
        try:
            check(instance)
        except _Invalid:
            return False
        return True

    return conforming


class _Invalid(ValueError):
    """What the generated code raises for a document that does not conform."""

    def __init__(self, message: str, *_: Any, **__: Any) -> None:
        super().__init__(message)


class _NoDecimal:
    """json.loads never yields a Decimal: the generated code's isinstance checks see none."""


_RAISED = ("JsonSchemaValueException", "JsonSchemaValuesException")
# The lines of fastjsonschema's generated global code this module supplies itself.
_SUPPLIED = (
    "from decimal import Decimal\n",
    "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n",
)
_CODE_CAP = 4 * 1024 * 1024


def _options() -> dict[str, Any]:
    # use_default=False: never fill defaults into the caller's document; use_formats=False:
    # `format` is an annotation in draft 2020-12, as jsonschema treats it.
    return {"use_default": False, "use_formats": False}


def _compiled(name: str) -> Callable[[Any], bool]:
    import fastjsonschema

    validator = fastjsonschema.compile(load_schema(name), **_options())

    def conforming(instance: Any) -> bool:
        try:
            validator(instance)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return conforming


def _cache_entry(name: str) -> Path:
    schema = Path(__file__).with_name(f"{name}.schema.json").read_bytes()
    stamp = [sys.version, sys.implementation.cache_tag or "", Path(__file__).read_bytes(), schema]
    return cachedir.entry("schemas", stamp, f"-{name}.marshal")


def _stored(name: str) -> tuple[str, CodeType] | None:
    import marshal

    kept = cachedir.read_entry(_cache_entry(name), _CODE_CAP)
    try:
        function, code = marshal.loads(kept or b"")
    except (ValueError, EOFError, TypeError):
        return None
    if isinstance(function, str) and isinstance(code, CodeType):
        return function, code
    return None


def _generated(name: str) -> tuple[str, CodeType] | None:
    """fastjsonschema's code for schema `name`, compiled, and kept when this module can
    supply its imports; None when it cannot."""
    import marshal

    import fastjsonschema

    text = fastjsonschema.compile_to_code(load_schema(name), **_options())
    if not all(line in text for line in _SUPPLIED):
        return None
    for line in _SUPPLIED:
        text = text.replace(line, "")
    code = compile(text, f"<schema {name}>", "exec")
    # The generated module's entry point: the function `compile` hands back.
    function = fastjsonschema.compile(load_schema(name), **_options()).__name__
    cachedir.keep(_cache_entry(name), marshal.dumps((function, code)))
    return function, code


def conforms(instance: Any, name: str) -> bool:
    """Whether `instance` is valid against schema `name`, decided without jsonschema."""
    return _fast(name)(instance)


@cache
def _validator(name: str) -> Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


def validate(instance: Any, name: str) -> list[str]:
    """Every way `instance` breaks schema `name`, each a sentence naming the field."""
    if conforms(instance, name):
        return []
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.path))
    return [_describe(error) for error in errors]


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error.path) or "(top level)"
    if error.validator == "required":
        return f"{error.message.split(' is a required')[0]} is required"
    if error.validator == "additionalProperties":
        return f"{where}: {error.message}"
    return f"{where}: {error.message}"
