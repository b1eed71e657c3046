"""The JSON Schemas jig ships, and the one place documents are checked against them.

`jsonschema` is imported on first use only: it costs about a tenth of a second, which a
command that never validates should not pay, and a valid document is first checked by
`quick`, which decides the keywords jig's schemas use exactly, so it rarely pays it at all.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from jigcli.schemas import quick

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
def _validator(name: str) -> Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


def validate(instance: Any, name: str) -> list[str]:
    """Every way `instance` breaks schema `name`, each a sentence naming the field."""
    if quick.conforms(instance, load_schema(name)) is True:
        return []  # decided without importing jsonschema (see `quick`)
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.path))
    return [_describe(error) for error in errors]


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error.path) or "(top level)"
    if error.validator == "required":
        return f"{error.message.split(' is a required')[0]} is required"
    if error.validator == "additionalProperties":
        return f"{where}: {error.message}"
    return f"{where}: {error.message}"
