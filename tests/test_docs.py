"""The README, CONTRIBUTING.md and the pages of docs/ say what jig does: every command they
show is run, on a copy of this repo and a machine without Lean, and exits as its comment
says, printing the output shown; the files they show are the repo's; their manifests are
valid, their limits the lanes' own, their links lead somewhere."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.certificates.spec import LANES, CertLimits
from jigcli.schemas import validate

from .docs_commands import SETUP, Command, commands, file_blocks, shown_pattern

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").rglob("*.md"))]
SKIPPED_IN_COPY = {".git", ".venv", ".lake", ".jig", "build"}


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def _scratch_repo(into: Path) -> Path:
    """This repo's own files, as a fresh clone has them, in a git repository of one commit."""
    root = into / "repo"
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    for name in listed:
        if name.split("/", 1)[0] in SKIPPED_IN_COPY or not (ROOT / name).is_file():
            continue
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, root / name)
    git = ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.org"]
    for step in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "clone"]):
        subprocess.run([*git, *step], cwd=root, check=True, capture_output=True)
    return root


def _environment(into: Path) -> dict[str, str]:
    """A machine without Lean: `jig` is this interpreter's, and no lake, lean or elan is found."""
    bin_folder = into / "bin"
    bin_folder.mkdir()
    jig = bin_folder / "jig"
    jig.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m jigcli "$@"\n')
    jig.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "JIG_"))}
    env.update(
        PATH=f"{bin_folder}:/usr/local/bin:/usr/bin:/bin",
        ELAN_HOME=str(into / "no-elan"),
        JIG_CACHE_DIR=str(into / "cache"),
        NO_COLOR="1",
        GIT_AUTHOR_NAME="docs", GIT_AUTHOR_EMAIL="docs@example.org",
        GIT_COMMITTER_NAME="docs", GIT_COMMITTER_EMAIL="docs@example.org",
    )  # fmt: skip
    env.pop("VIRTUAL_ENV", None)
    return env


def _run(command: Command, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command.text], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_command_a_page_shows_runs_as_it_says(page: Path, tmp_path: Path) -> None:
    shown = commands(page)
    cwd = _scratch_repo(tmp_path)
    env = _environment(tmp_path)
    for command in shown:
        where = f"{_page_id(page)}:{command.line}: {command.text}"
        if command.program == "cd":
            cwd = (cwd / shlex.split(command.text)[1]).resolve()
            assert cwd.is_dir(), where
            continue
        if command.program in SETUP:
            continue
        assert command.program == "jig", f"{where}: a command the tests do not run"
        done = _run(command, cwd, env)
        printed = (done.stdout + done.stderr).splitlines()
        assert done.returncode == command.expected_exit, f"{where}\n{done.stdout}{done.stderr}"
        for line in command.shown:
            pattern = shown_pattern(line)
            assert any(pattern.fullmatch(p.rstrip()) for p in printed), (
                f"{where}: shows {line!r}, which it does not print:\n{done.stdout}{done.stderr}"
            )


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_file_a_page_shows_is_the_repos_own(page: Path) -> None:
    for name, text in file_blocks(page):
        assert (ROOT / name).read_text(encoding="utf-8") == text, f"{_page_id(page)}: {name}"


def test_the_readme_shows_each_role_a_green_and_a_red_without_lean() -> None:
    codes = [c.expected_exit for c in commands(README) if c.program == "jig"]
    assert 0 in codes and 1 in codes and 4 in codes


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 170
    for role in ("As a solver", "As a poser", "As a paper author"):
        assert any(line.startswith(f"### {role}") for line in lines), role


def _json_blocks(path: Path) -> list[dict]:
    blocks = re.findall(r"```json\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)
    return [json.loads(block) for block in blocks]


SOLVERS = ROOT / "docs" / "guides" / "solvers.md"
POSERS = ROOT / "docs" / "guides" / "posers.md"


@pytest.mark.parametrize("guide", [SOLVERS, POSERS], ids=lambda p: p.name)
def test_every_manifest_in_a_guide_is_valid_once_its_placeholders_are_filled(guide):
    for manifest in _json_blocks(guide):
        if manifest.get("schema") != "conject.submission.v1":
            continue
        filled = json.loads(json.dumps(manifest).replace("<name>", "mine"))
        assert validate(filled, "submission") == [], filled


def test_the_lanes_table_is_the_lanes_and_the_defaults():
    text = POSERS.read_text(encoding="utf-8")
    rows = {
        cells[0].strip("` "): cells
        for line in text.splitlines()
        if line.startswith("| `") and (cells := [c.strip() for c in line.strip("|").split("|")])
    }
    default, heavy = LANES["default"].ceiling, LANES["heavy"].ceiling
    for name in ("wall_sec", "cpu_sec", "address_space_mb", "processes", "scratch_mb"):
        assert rows[name][3] == str(int(getattr(default, name))), name
        assert rows[name][4] == str(int(getattr(heavy, name))), name
    assert rows["processes"][2] == str(CertLimits(1, 1, 16, 256).processes)
    assert rows["scratch_mb"][2] == str(CertLimits(1, 1, 16, 256).scratch_mb)
    assert rows["output_bytes"][3:5] == ["1 MiB", "16 MiB"]
    assert default.output_bytes == 2**20 and heavy.output_bytes == 16 * 2**20
    assert rows["memory_mb"][3:5] == [str(default.memory_mb), str(heavy.memory_mb)]


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_relative_link_leads_to_a_file(page):
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
        assert (page.parent / target).exists(), f"{_page_id(page)} links to {target}"


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_no_session_hides_in_a_block_the_tests_do_not_run(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    for block in re.findall(r"^```([a-z]*)\n(.*?)^```", text, re.DOTALL | re.MULTILINE):
        language, body = block
        if language not in ("bash", "console"):
            assert not re.search(r"^\$ ", body, re.MULTILINE), f"{_page_id(page)}: {body[:80]}"


def test_the_reasons_page_lists_every_reason_in_precedence_order_with_its_next_step() -> None:
    from jigcli.verdict import REASONS

    text = (ROOT / "docs" / "reference" / "reasons.md").read_text(encoding="utf-8")
    rows = [
        [cell.replace("\\|", "|") for cell in re.split(r"(?<!\\) \| ", line)]
        for line in text.splitlines()
        if line.startswith("| `")
    ]
    assert [row[0].strip("| `") for row in rows] == list(REASONS)
    for row, reason in zip(rows, REASONS.values(), strict=True):
        assert row[1] == reason.words and row[3] == reason.next


def test_every_environment_variable_jig_reads_is_documented() -> None:
    read = set()
    for path in (ROOT / "jigcli").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        read |= set(re.findall(r"environ(?:\.get)?\(?\[?\"([A-Z][A-Z0-9_]+)\"", source))
        read |= set(re.findall(r"_ENV = \"([A-Z][A-Z0-9_]+)\"", source))
    documented = (ROOT / "docs" / "reference" / "environment.md").read_text(encoding="utf-8")
    assert read, "the scan found no variable: its pattern is stale"
    assert {name for name in read if f"`{name}`" not in documented} == set()
