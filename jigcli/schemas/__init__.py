"""The JSON Schemas jig ships, and the one place documents are checked against them.

Two validators, one answer. fastjsonschema's code, generated ahead of time and shipped in
`jigcli.schemas.compiled`, decides whether a document is valid; only an invalid one pays for
`jsonschema` (about a tenth of a second to import), whose errors name every field that is
wrong. `jig verify` validates every manifest, and its start-up is on the certificate path's
critical budget: generating the code at run time cost some 25 ms a schema, and keeping it in
the cache folder let whoever could write there run code inside jig.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

SCHEMA_NAMES = ("verdict", "submission", "certificate", "audit", "batch")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The schema document `jigcli/schemas/<name>.schema.json`."""
    text = _schema_path(name).read_text("utf-8")
    document: dict[str, Any] = json.loads(text)
    return document


OPTIONS: dict[str, Any] = {
    # never fill defaults into the caller's document; `format` is an annotation in draft
    # 2020-12, as jsonschema treats it
    "use_default": False,
    "use_formats": False,
}


def schema_digest(name: str) -> str:
    """The SHA-256 of the schema file `name`: a compiled validator names the one it is for."""
    return hashlib.sha256(_schema_path(name).read_bytes()).hexdigest()


def _schema_path(name: str) -> Path:
    # Beside this module (package data; importlib.resources costs 10 ms to import).
    return Path(__file__).with_name(f"{name}.schema.json")


@cache
def _fast(name: str) -> Callable[[Any], bool]:
    """Whether a document conforms to schema `name`: the validator shipped compiled for it
    (`jigcli.schemas.compiled`), or, when the schema has changed since it was compiled (a
    developer's tree), fastjsonschema's own, made now."""
    import importlib

    from jigcli.schemas.support import JsonSchemaValueException

    module = importlib.import_module(f"jigcli.schemas.compiled.{name}")
    if schema_digest(name) != module.SCHEMA_SHA256:
        return _compiled(name)
    check = module.validate

    def conforming(instance: Any) -> bool:
        try:
            check(instance)
        except JsonSchemaValueException:
            return False
        return True

    return conforming


def _compiled(name: str) -> Callable[[Any], bool]:
    import fastjsonschema

    validator = fastjsonschema.compile(load_schema(name), **OPTIONS)

    def conforming(instance: Any) -> bool:
        try:
            validator(instance)
        except fastjsonschema.JsonSchemaException:
            return False
        return True

    return conforming


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
