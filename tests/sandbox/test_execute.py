"""One job through a real route: limits as asked, no more."""

from pathlib import Path

import pytest

from jigcli.sandbox import probe
from jigcli.sandbox.execute import execute, staged, temporary_root
from jigcli.sandbox.job import Job, Limits, View
from jigcli.sandbox.owner import PREFIX
from jigcli.sandbox.routes import route_named

ASK_LIMIT = Job(
    argv=("/bin/sh", "-c", "ulimit -v"),
    view=View(),
    limits=Limits(wall_sec=20, cpu_sec=10, address_space_mb=None, output_bytes=4096),
)
LIMITS = Limits(wall_sec=20, cpu_sec=10, address_space_mb=256, output_bytes=4096)


def test_a_job_without_an_address_space_limit_runs_and_is_probed_without_one():
    # Lean maps every imported .olean (gigabytes for Mathlib): RLIMIT_AS would stop it.
    bubblewrap = route_named("bubblewrap")
    why = probe.probe(bubblewrap, ASK_LIMIT)
    if why is not None:
        pytest.skip(f"bubblewrap cannot run here: {why}")
    done = execute(bubblewrap, ASK_LIMIT, probe.process_cap(bubblewrap, ASK_LIMIT).mechanism)
    assert done.exit_status == 0 and done.result.stdout.strip() == "unlimited"


def test_stages_go_where_tempfile_would_put_them(tmp_path, monkeypatch):
    """$TMPDIR first, as `tempfile.gettempdir` reads it; one that does not exist or cannot be
    written is passed over, as tempfile passes it over."""
    for name in ("TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    assert temporary_root() == tmp_path
    monkeypatch.setenv("TMPDIR", str(tmp_path / "missing"))
    monkeypatch.setenv("TMP", str(tmp_path))
    assert temporary_root() == tmp_path
    monkeypatch.setenv("TMP", str(tmp_path / "missing"))
    assert temporary_root() == Path("/tmp")


def test_a_stage_is_private_and_gone_afterwards(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    job = Job(argv=("true",), view=View(inputs={"witness": b"1 2 3"}), limits=LIMITS)
    with staged(job) as stage:
        assert stage.parent == tmp_path and stage.name.startswith(PREFIX)
        assert stage.stat().st_mode & 0o777 == 0o700
        assert (stage / "witness").read_bytes() == b"1 2 3"
    assert not stage.exists()
