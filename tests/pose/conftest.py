"""A real verifier repo in a temporary git repository, seeded from this repo's own pins and S001."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import git
import pytest

from jigcli.pose import PoseRefused

from ..conftest import git_repo as poser_git_repo

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "pose"
SEED: tuple[str, ...] = (
    "lakefile.toml",
    "lake-manifest.json",
    "lean-toolchain",
    "Statements/S001.lean",
)
SEED += ("Commons/Basic.lean",)


class Verifier:
    """The temporary verifier repo: its root, its git repository, and small helpers."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.git: git.Repo = poser_git_repo(root)

    def write(self, rel: str, text: str) -> Path:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def commit(self, message: str, *paths: str) -> str:
        """Stage `paths` (added or removed) and commit them; return the commit id."""
        self.git.git.add("--all", "--", *paths)
        self.git.git.commit("-m", message)
        return self.git.head.commit.hexsha

    def snapshot(self) -> dict[str, bytes]:
        """Every file of the working tree (outside .git), for "nothing was written" checks."""
        return {
            path.relative_to(self.root).as_posix(): path.read_bytes()
            for path in sorted(self.root.rglob("*"))
            if path.is_file() and ".git" not in path.relative_to(self.root).parts
        }

    def status(self) -> str:
        return str(self.git.git.status("--porcelain"))

    def refused(self, pose: Callable[[], object]) -> str:
        """Run `pose`, which must be refused; return its sentence after checking that nothing
        was written and git's status did not change."""
        before, status = self.snapshot(), self.status()
        with pytest.raises(PoseRefused) as refusal:
            pose()
        assert self.snapshot() == before
        assert self.status() == status
        assert str(refusal.value).endswith("(nothing was written).")
        return refusal.value.sentence


@pytest.fixture
def git_repo() -> type[Verifier]:
    """Makes a git repository (with an identity) at a folder: `git_repo(path)`."""
    return Verifier


@pytest.fixture
def verifier(tmp_path: Path) -> Verifier:
    root = tmp_path / "verifier"
    for rel in SEED:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, root / rel)
    repo = Verifier(root)
    repo.commit("Seed the verifier repo", ".")
    return repo
