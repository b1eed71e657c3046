"""A copy of this repo's verifier content (pins, Statements, Verify, the S001 examples) in a
temporary folder, so pipeline tests can write evidence without touching the tree."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jigcli.repo import Repo

ROOT = Path(__file__).resolve().parents[2]
CONTENT = ("lean-toolchain", "lakefile.toml", "lake-manifest.json")
FOLDERS = ("Commons", "Statements", "Verify", "Submissions/S001")


@pytest.fixture
def lean_repo(tmp_path: Path) -> Repo:
    root = tmp_path / "repo"
    root.mkdir()
    for name in CONTENT:
        shutil.copy(ROOT / name, root / name)
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, root / folder)
    return Repo(root)
