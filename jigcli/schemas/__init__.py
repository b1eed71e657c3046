"""The JSON Schemas jig ships, and the one place documents are checked against them.

Two validators, one answer. `fastjsonschema` (a few milliseconds to import and compile)
decides whether a document is valid; only an invalid one pays for `jsonschema` (about a
tenth of a second to import), whose errors name every field that is wrong. `jig verify`
validates every manifest, and its start-up is on the certificate path's critical budget.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

SCHEMA_NAMES = ("verdict", "submission", "certificate", "audit")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema document `jigcli/schemas/<name>.schema.json`."""
    text = resources.files(__package__).joinpath(f"{name}.schema.json").read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


@cache
def _fast(name: str) -> Callable[[Any], Any]:
    import fastjsonschema

    # use_default=False: never fill defaults into the caller's document; use_formats=False:
    # `format` is an annotation in draft 2020-12, as jsonschema treats it.
    validator: Callable[[Any], Any] = fastjsonschema.compile(
        load_schema(name), use_default=False, use_formats=False
    )
    return validator


def conforms(instance: Any, name: str) -> bool:
    """Whether `instance` is valid against schema `name`, decided without jsonschema."""
    from fastjsonschema import JsonSchemaException

    try:
        _fast(name)(instance)
    except JsonSchemaException:
        return False
    return True


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
