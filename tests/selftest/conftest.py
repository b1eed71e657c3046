"""Fixtures for the selftest tests: a tiny repo, a stand-in verifier, a private cache."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest


def load_helpers() -> ModuleType:
    path = Path(__file__).with_name("helpers.py")
    spec = importlib.util.spec_from_file_location("selftest_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


helpers = load_helpers()


@pytest.fixture
def repo_root(tmp_path: Path) -> Path:
    return helpers.make_repo(tmp_path / "repo")


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache"
    monkeypatch.setenv("JIG_CACHE_DIR", str(directory))
    return directory


@pytest.fixture
def fake_verify(monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    fake = helpers.FakeVerifier()
    monkeypatch.setattr("jigcli.verify.submission.verify", fake)
    return fake


@pytest.fixture
def kit() -> ModuleType:
    """The builders in helpers.py (manifests, answers) for the tests to call."""
    return helpers
