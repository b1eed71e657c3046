"""What the generated validators import instead of fastjsonschema and `decimal`."""

from __future__ import annotations

from typing import Any


class JsonSchemaValueException(ValueError):
    """Raised by a generated validator for a document that does not conform."""

    def __init__(self, message: str, *_: Any, **__: Any) -> None:
        super().__init__(message)


JsonSchemaValuesException = JsonSchemaValueException


class Decimal:
    """json.loads never yields a Decimal: the generated isinstance checks see none."""
