"""The validators shipped compiled: current with their schemas, used only while they are,
and nothing of them kept in the cache folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from jigcli import schemas
from jigcli.schemas import SCHEMA_NAMES, conforms

REPO = Path(__file__).resolve().parents[2]


def test_every_compiled_validator_is_the_one_its_schema_makes_today() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/compile_schemas.py", "--check"],
        cwd=REPO, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_each_compiled_module_names_the_schema_it_was_made_from(name: str) -> None:
    import importlib

    module = importlib.import_module(f"jigcli.schemas.compiled.{name}")
    assert schemas.schema_digest(name) == module.SCHEMA_SHA256


def test_a_schema_changed_since_it_was_compiled_is_checked_by_fastjsonschema_made_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a developer tightened the schema and did not regenerate: the stale module must not
    # answer for it
    monkeypatch.setattr(schemas, "schema_digest", lambda name: "0" * 64)
    made: list[str] = []
    real = schemas._compiled

    def compiled_now(name: str):  # type: ignore[no-untyped-def]
        made.append(name)
        return real(name)

    monkeypatch.setattr(schemas, "_compiled", compiled_now)
    schemas._fast.cache_clear()
    try:
        assert conforms({"schema": "conject.submission.v1"}, "submission") is False
    finally:
        schemas._fast.cache_clear()
    assert made == ["submission"]


def test_a_verification_keeps_no_code_in_the_cache_folder(tmp_path: Path) -> None:
    import os

    cache = tmp_path / "cache"
    manifest = REPO / "Certificates/C001/submissions/off-by-one.json"
    env = {**os.environ, "JIG_CACHE_DIR": str(cache)}
    subprocess.run(
        [sys.executable, "-m", "jigcli", "verify", str(manifest), "--json"],
        cwd=REPO, env=env, capture_output=True, timeout=120,
    )  # fmt: skip
    kept = [path.relative_to(cache).as_posix() for path in cache.rglob("*") if path.is_file()]
    assert not any(path.startswith("schemas/") or path.endswith(".marshal") for path in kept)
