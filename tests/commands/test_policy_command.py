"""`jig policy` as a user runs it: a real process, so the CLI's error boundary is in play."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CLEAN = "import Mathlib.Tactic\n\ntheorem t : 1 + 1 = 2 := by norm_num\n"
DIRTY = "import Mathlib.Tactic\n/- a\ncomment -/\ntheorem t : 1 + 1 = 2 := by\n  sorry\n"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {"clean": tmp_path / "Clean.lean", "dirty": tmp_path / "Dirty.lean"}
    paths["clean"].write_text(CLEAN, encoding="utf-8")
    paths["dirty"].write_text(DIRTY, encoding="utf-8")
    return paths


def jig(*args: object) -> tuple[int, str, str]:
    result = subprocess.run(
        [sys.executable, "-m", "jigcli", *map(str, args)],
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    return result.returncode, result.stdout, result.stderr


def test_clean_files_exit_zero(files: dict[str, Path]):
    code, out, _ = jig("policy", files["clean"])
    assert code == 0
    assert f"{files['clean']}: ● clean" in out
    assert "1 file scanned: all clean" in out


def test_a_violation_is_a_path_line_entry_and_exits_one(files: dict[str, Path]):
    code, out, _ = jig("policy", files["clean"], files["dirty"])
    assert code == 1
    assert f"{files['dirty']}:5: ● sorry — an unfinished proof" in out
    assert "2 files scanned: 1 with 1 violation" in out


def test_json_lists_every_file_in_order_with_its_violations(files: dict[str, Path]):
    code, out, _ = jig("policy", "--json", files["dirty"], files["clean"])
    assert code == 1
    document = json.loads(out)
    assert [entry["path"] for entry in document["files"]] == [
        str(files["dirty"]),
        str(files["clean"]),
    ]
    dirty, clean = document["files"]
    assert clean == {"path": str(files["clean"]), "ok": True, "violations": []}
    assert dirty["ok"] is False
    (violation,) = dirty["violations"]
    assert set(violation) == {"line", "construct", "message"}
    assert (violation["line"], violation["construct"]) == (5, "sorry")


def test_a_missing_file_is_a_usage_error(files: dict[str, Path], tmp_path: Path):
    missing = tmp_path / "Missing.lean"
    code, out, err = jig("policy", files["clean"], missing)
    assert code == 2
    assert out == ""
    assert err == f"jig: {missing} does not exist; pass the Lean files to scan.\n"


def test_a_folder_is_a_usage_error(tmp_path: Path):
    code, _, err = jig("policy", tmp_path)
    assert code == 2
    assert "is a folder" in err


def test_a_file_that_is_not_utf8_is_a_violation(tmp_path: Path):
    path = tmp_path / "Latin1.lean"
    path.write_bytes(b"-- caf\xe9\n")
    code, out, _ = jig("policy", "--json", path)
    assert code == 1
    (entry,) = json.loads(out)["files"]
    assert [(v["line"], v["construct"]) for v in entry["violations"]] == [(1, "encoding")]


def test_a_file_that_is_not_a_lean_source_is_a_usage_error(tmp_path: Path):
    notes = tmp_path / "README.md"
    notes.write_text("# Notes\n\nLean is fun, sorry.\n")
    code, out, err = jig("policy", notes, "--json")
    assert (code, out) == (2, "")
    assert err == f"jig: {notes} is not a Lean source (.lean); pass the .lean files to scan.\n"


def test_a_device_or_pipe_is_refused_rather_than_read_forever(tmp_path: Path):
    fifo = tmp_path / "Pipe.lean"
    os.mkfifo(fifo)
    code, _, err = jig("policy", fifo)
    assert code == 2
    assert "is not a regular file" in err


def test_format_github_annotates_each_violation_after_the_text(files: dict[str, Path]):
    code, out, _ = jig("policy", "--format", "github", files["dirty"], files["clean"])
    assert code == 1
    lines = out.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    assert lines[0] != token and f"{files['dirty']}:5: ● sorry" in out
    resumed = lines.index(f"::{token}::")
    assert lines[resumed + 1 :] == [
        f"::error file={files['dirty'].as_posix()},line=5,title=jig policy::sorry — an "
        "unfinished proof: `sorry` closes any goal through `sorryAx`"
    ]


def test_under_github_actions_annotations_come_by_themselves_but_never_with_json(
    files: dict[str, Path], monkeypatch
):
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    _, out, _ = jig("policy", files["dirty"])
    assert "::error file=" in out
    code, out, _ = jig("policy", "--json", files["dirty"])
    assert code == 1 and json.loads(out)["files"][0]["ok"] is False  # one document, nothing else
    _, out, _ = jig("policy", "--format", "text", files["dirty"])
    assert "::" not in out


def test_an_unknown_format_is_a_usage_error(files: dict[str, Path]):
    code, out, err = jig("policy", "--format", "sarif", files["dirty"])
    assert (code, out) == (2, "") and "use text or github" in err


def test_findings_come_by_line_and_one_line_refused_for_one_reason_is_said_once(tmp_path: Path):
    source = tmp_path / "Shadow.lean"
    source.write_text(
        "import Mathlib.Tactic\n#eval 1\nnamespace Statements.S001\n"
        "theorem statement : True := trivial\nend Statements.S001\n",
        encoding="utf-8",
    )
    code, out, _ = jig("policy", source)
    lines = [line for line in out.splitlines() if line.startswith(f"{source}:")]
    numbers = [int(line.split(":")[1]) for line in lines]
    assert code == 1 and numbers == sorted(numbers)
    assert numbers.count(3) == 1  # `namespace Statements.S001` and `Statements`: one finding
    (line_3,) = [line for line in lines if line.startswith(f"{source}:3:")]
    assert "namespace Statements.S001" in line_3 and "Statements" in line_3
