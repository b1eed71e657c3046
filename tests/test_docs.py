"""The README's first ten minutes and the guides in docs/ say what jig does: their commands
exit as written, their manifests are valid, their limits are the lanes' own."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.certificates.spec import LANES, CertLimits
from jigcli.schemas import validate

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDES = sorted((ROOT / "docs").glob("*.md"))


def _first_ten_minutes() -> list[tuple[str, int]]:
    """(command, the exit its comment promises) for each `jig verify`/`jig policy` line."""
    text = README.read_text(encoding="utf-8")
    block = text.split("## First ten minutes", 1)[1].split("```", 2)[1]
    found = []
    for line in block.splitlines():
        command, _, comment = line.partition("#")
        said = re.search(r"exit (\d)", comment)
        if command.strip().startswith(("jig verify", "jig policy")):
            found.append((command.strip(), int(said.group(1)) if said else 1))
    return found


@pytest.mark.parametrize(("command", "code"), _first_ten_minutes())
def test_each_first_ten_minutes_command_exits_as_its_comment_says(command, code):
    args = shlex.split(command)[1:]
    done = subprocess.run(
        [sys.executable, "-m", "jigcli", *args], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == code, done.stdout + done.stderr


def test_the_first_ten_minutes_show_a_green_and_a_red():
    assert sorted(code for _command, code in _first_ten_minutes()) == [0, 1, 1]


def _json_blocks(path: Path) -> list[dict]:
    blocks = re.findall(r"```json\n(.*?)```", path.read_text(encoding="utf-8"), re.DOTALL)
    return [json.loads(block) for block in blocks]


@pytest.mark.parametrize("guide", GUIDES, ids=lambda p: p.name)
def test_every_manifest_in_a_guide_is_valid_once_its_placeholders_are_filled(guide):
    for manifest in _json_blocks(guide):
        filled = json.loads(json.dumps(manifest).replace("<name>", "mine"))
        assert validate(filled, "submission") == [], filled


def test_the_lanes_table_is_the_lanes_and_the_defaults():
    text = (ROOT / "docs" / "posers.md").read_text(encoding="utf-8")
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


@pytest.mark.parametrize("page", [README, *GUIDES], ids=lambda p: p.name)
def test_every_relative_link_leads_to_a_file(page):
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
        assert (page.parent / target).exists(), f"{page.name} links to {target}"
