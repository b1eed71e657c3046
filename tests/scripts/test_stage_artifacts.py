"""scripts/stage_artifacts.py: every verdict and judge's report is uploaded, hidden folders
included, and no link left in them (by a submission's build, say) is ever followed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "stage_artifacts.py"


def stage(cwd: Path, *sources: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-S", SCRIPT, "--into=artifacts", "--", *sources],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def write(root: Path, rel: str, data: str = "x") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data)
    return path


@pytest.fixture
def job(tmp_path: Path) -> Path:
    """A job's working folder after jig ran: verdicts, hidden reports, and a secret outside."""
    work = tmp_path / "work"
    write(work, "verdicts/verdict.json", '{"verdict": "red"}')
    write(work, ".jig/work/S001-A/judge.json", '{"report": 1}')
    write(work, ".jig/work/S001-A/.hidden/deeper.txt", "kept")
    write(tmp_path, "secret.txt", "runner's secret")
    return work


def test_hidden_folders_are_staged_under_their_own_names(job):
    done = stage(job, "verdicts", ".jig/work")
    assert done.returncode == 0, done.stderr
    staged = job / "artifacts"
    assert (staged / "verdicts/verdict.json").read_text() == '{"verdict": "red"}'
    assert (staged / ".jig/work/S001-A/judge.json").read_text() == '{"report": 1}'
    assert (staged / ".jig/work/S001-A/.hidden/deeper.txt").read_text() == "kept"
    assert not (staged / "LEFT_OUT.txt").exists()


@pytest.mark.parametrize("target", ["file", "folder"])
def test_a_link_left_in_the_work_folder_is_never_followed(job, target):
    secret = job.parent / ("secret.txt" if target == "file" else "")
    (job / ".jig/work/S001-A/out").symlink_to(secret)
    assert stage(job, "verdicts", ".jig/work").returncode == 0
    staged = job / "artifacts"
    assert not (staged / ".jig/work/S001-A/out").exists()
    assert not any(
        "runner's secret" in p.read_text()
        for p in staged.rglob("*")
        if p.is_file() and p.name != "LEFT_OUT.txt"
    )
    assert ".jig/work/S001-A/out: a link" in (staged / "LEFT_OUT.txt").read_text()


def test_a_linked_source_folder_is_left_out(job):
    (job / ".jig/work").rename(job / "elsewhere")
    (job / ".jig/work").symlink_to(job / "elsewhere")
    assert stage(job, ".jig/work").returncode == 0
    assert not (job / "artifacts/.jig").exists()
    assert ".jig/work: a link" in (job / "artifacts/LEFT_OUT.txt").read_text()


def test_a_link_on_the_way_to_a_source_is_left_out(job):
    (job / ".jig").rename(job / "dotjig")
    (job / ".jig").symlink_to(job / "dotjig")
    assert stage(job, ".jig/work").returncode == 0
    assert "a link on its way" in (job / "artifacts/LEFT_OUT.txt").read_text()


def test_a_fifo_is_never_opened(job):
    os.mkfifo(job / ".jig/work/S001-A/pipe")
    done = stage(job, ".jig/work")  # opening a FIFO for reading would hang here
    assert done.returncode == 0
    assert "pipe: not a regular file" in (job / "artifacts/LEFT_OUT.txt").read_text()


def test_a_file_over_the_cap_is_left_out_and_named(job):
    big = job / ".jig/work/S001-A/huge.olean"
    with big.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024 + 1)  # sparse: no real 64 MiB written
    assert stage(job, ".jig/work").returncode == 0
    assert not (job / "artifacts/.jig/work/S001-A/huge.olean").exists()
    assert "huge.olean: 67108865 bytes" in (job / "artifacts/LEFT_OUT.txt").read_text()


def test_a_missing_source_is_skipped_and_what_was_there_before_is_replaced(job):
    write(job, "artifacts/stale.txt")
    assert stage(job, "verdicts", "nothing-here").returncode == 0
    assert not (job / "artifacts/stale.txt").exists()
    assert (job / "artifacts/verdicts/verdict.json").exists()


@pytest.mark.parametrize("source", ["../secret.txt", "/etc/hostname"])
def test_a_source_outside_the_working_folder_is_left_out(job, source):
    assert stage(job, source).returncode == 0
    assert "a link on its way" in (job / "artifacts/LEFT_OUT.txt").read_text()


def test_a_malformed_call_exits_2_with_usage(job):
    done = subprocess.run(
        [sys.executable, SCRIPT, "artifacts", "verdicts"],
        cwd=job,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stderr.startswith("usage:")
