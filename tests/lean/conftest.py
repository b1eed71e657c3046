"""The Lean pipeline tests run on a copy of this repo's verifier content (`copy_repo`)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from jigcli.repo import Repo
from jigcli.sandbox.job import Execution, Job
from jigcli.sandbox.routes import Route


@pytest.fixture
def lean_repo(copy_repo: Callable[..., Path]) -> Repo:
    return Repo(copy_repo())


@pytest.fixture
def confined() -> None:
    """Skip, saying why, where no sandbox here can confine a build's files (bubblewrap)."""
    from jigcli.lean import build

    found = build.describe(None, None)
    if found["route"] is None:
        pytest.skip(f"no sandbox here confines a Lean build: {found['why']}")


@pytest.fixture
def sandboxed_builds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Job]]:
    """Every build of a submission this test runs, as (route, job), in order."""
    from jigcli.lean import build
    from jigcli.sandbox.execute import execute as real

    seen: list[tuple[str, Job]] = []

    def recording(route: Route, job: Job, cap: str | None = None) -> Execution:
        seen.append((route.name, job))
        return real(route, job, cap)

    monkeypatch.setattr(build, "execute", recording)
    return seen


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
