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


def test_mypy_checks_jigcli_scripts_and_bench_strictly_and_the_tests_too() -> None:
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["files"] == ["jigcli", "scripts", "bench", "tests"] and config["strict"] is True
    overrides = [o for o in config["overrides"] if o["module"] == ["tests.*"]]
    assert overrides and overrides[0]["disallow_untyped_defs"] is False


# -- the lock, actionlint and shellcheck -------------------------------------------------------


def test_ci_checks_the_lock_is_current_before_the_tests() -> None:
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    check = lines.index("pip install -q 'uv==0.13.9' && .ci/lock --check")
    assert check < len(lines) - 1


def _locked() -> dict[str, tuple[str, list[str]]]:
    """requirements.lock's pins: name → (version, hashes)."""
    text = (REPO / "requirements.lock").read_text(encoding="utf-8").replace("\\\n", " ")
    pins = {}
    for line in text.splitlines():
        found = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line)
        if found:
            pins[found[1].lower().replace("_", "-")] = (found[2], re.findall(r"sha256:\w+", line))
    return pins


def test_every_dependency_and_the_build_backend_are_locked_with_hashes() -> None:
    import tomllib

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0] for spec in project["dependencies"]]
    locked = _locked()
    for name in [*wanted, "setuptools"]:
        key = name.lower().replace("_", "-")
        assert key in locked, f"{name} is not in requirements.lock: run .ci/lock"
        assert locked[key][1], f"{name} has no hash in requirements.lock"
    assert all(hashes for _, hashes in locked.values())


def _tool(name: str) -> str:
    """A linter from the test extras; skipped (with the reason) outside CI when missing."""
    import os
    import shutil
    import sys

    import pytest

    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is missing: pip install -e '.[test]'")
        pytest.skip(f"{name} is not installed here: pip install -e '.[test]'")
    return found


def test_the_workflows_pass_actionlint_with_shellcheck_over_their_scripts() -> None:
    import os
    import subprocess

    shellcheck = _tool("shellcheck")
    workflows = sorted((REPO / ".github" / "workflows").glob("*.yml"))
    done = subprocess.run(
        [_tool("actionlint"), "-shellcheck", shellcheck, *map(str, workflows)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_ci_scripts_and_the_composite_actions_scripts_pass_shellcheck(tmp_path) -> None:
    import subprocess

    import yaml

    action = yaml.safe_load((REPO / ".github/actions/lean-setup/action.yml").read_text())
    scripts = [REPO / ".ci" / "run", REPO / ".ci" / "lock"]
    for index, step in enumerate(action["runs"]["steps"]):
        if "run" in step:
            script = tmp_path / f"lean-setup-{index}.sh"
            # `${{ … }}` is substituted by the runner before bash sees it
            body = re.sub(r"\$\{\{.*?\}\}", "VALUE", step["run"])
            script.write_text(f"#!/usr/bin/env bash\nset -e\n{body}")
            scripts.append(script)
    done = subprocess.run(
        [_tool("shellcheck"), *map(str, scripts)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
