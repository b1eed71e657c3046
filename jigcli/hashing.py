"""SHA-256 in the two spellings jig uses: tagged (`sha256:<hex>`, verdicts) and bare hex."""

from __future__ import annotations

import hashlib
from pathlib import Path

TAG = "sha256:"


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def sha256_tagged(data: bytes | str) -> str:
    return TAG + sha256_hex(data)


def file_sha256_tagged(path: Path) -> str:
    return sha256_tagged(path.read_bytes())


def file_sha256_hex(path: Path) -> str:
    return sha256_hex(path.read_bytes())
