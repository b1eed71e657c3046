"""The Lean pipeline tests run on a copy of this repo's verifier content (`copy_repo`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from jigcli.repo import Repo


@pytest.fixture
def lean_repo(copy_repo: Callable[..., Path]) -> Repo:
    return Repo(copy_repo())
