"""The Lean pipeline tests run on a copy of this repo's verifier content (`copy_repo`)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from jigcli.repo import Repo


@pytest.fixture
def lean_repo(copy_repo: Callable[..., Path]) -> Repo:
    return Repo(copy_repo())


@pytest.fixture
def kept_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The run folders the pipeline makes, kept after it ends (under `tmp_path/runs`) so a
    test can read the launcher's log (`control/landrun.log`) and what was written."""
    import tempfile

    from jigcli.lean import pipeline

    made: list[Path] = []
    parent = tmp_path / "runs"
    parent.mkdir()

    class Kept:
        def __init__(self, prefix: str = "jig-lean-", **_: object) -> None:
            self.name = tempfile.mkdtemp(prefix=prefix, dir=parent)
            made.append(Path(self.name))

        def __enter__(self) -> str:
            return self.name

        def __exit__(self, *_: object) -> None:
            return None

    monkeypatch.setattr(pipeline, "TemporaryDirectory", Kept)
    return made


def steps(run: Path) -> list[dict[str, object]]:
    """The launcher's log of one run folder: every sandboxed step, in order."""
    from jigcli.lean.comparator import landrun

    return landrun.read_log(run / "control")


@pytest.fixture
def no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where bubblewrap, the one route that confines a build, cannot run."""
    from jigcli.sandbox import probe
    from jigcli.sandbox.routes import Bubblewrap

    monkeypatch.setattr(probe, "_probed", {})
    monkeypatch.setattr(Bubblewrap, "unavailable", lambda self: "bwrap is not installed (test)")


def standin_module() -> ModuleType:
    """The stand-in toolchain's code (`tests/standin/standin.py`), for a test that writes what
    it writes (an export in lean4export's format) without running it."""
    path = Path(__file__).resolve().parent.parent / "standin" / "standin.py"
    spec = importlib.util.spec_from_file_location("jig_tests_standin", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
