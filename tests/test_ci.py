"""`.ci/run`, the CI entry point: it runs exactly the README's test command, and that command
checks lint, format and types before the tests, so nothing keeps them clean by hand."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, flags=re.DOTALL)
    return next(block for block in blocks if "pytest" in block)


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    command = _readme_test_command()
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert lines[-1] == command


def test_lint_format_and_types_are_checked_before_the_tests() -> None:
    steps = [shlex.split(step) for step in _readme_test_command().split("&&")]
    assert [" ".join(step) for step in steps] == [
        "pip install -e .[test]",
        "python -m ruff check .",
        "python -m ruff format --check .",
        "python -m mypy",
        "python -m pytest",
    ]


def test_mypy_checks_jigcli_strictly_and_the_tests_too() -> None:
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["jigcli", "tests"] and config["strict"] is True
    overrides = [o for o in config["overrides"] if o["module"] == ["tests.*"]]
    assert overrides and overrides[0]["disallow_untyped_defs"] is False
