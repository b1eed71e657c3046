"""The JSON Schemas jig ships, and the one place documents are checked against them.

`jsonschema` is imported on first use only: it costs about a tenth of a second, which a
command that never validates should not pay.
"""

from __future__ import annotations

import json
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
def _validator(name: str) -> Validator:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load_schema(name))


def validate(instance: Any, name: str) -> list[str]:
    """Every way `instance` breaks schema `name`, each a sentence naming the field."""
    errors = sorted(_validator(name).iter_errors(instance), key=lambda e: list(e.path))
    return [_describe(error) for error in errors]


def _describe(error: Any) -> str:
    where = ".".join(str(part) for part in error.path) or "(top level)"
    if error.validator == "required":
        return f"{error.message.split(' is a required')[0]} is required"
    if error.validator == "additionalProperties":
        return f"{where}: {error.message}"
    return f"{where}: {error.message}"
