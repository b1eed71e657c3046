"""One job through a real route: limits as asked, no more."""

import signal
import subprocess
from pathlib import Path

import pytest

from jigcli.sandbox import probe
from jigcli.sandbox.execute import execute, kill_left_in, staged, temporary_root
from jigcli.sandbox.job import Job, Limits, View
from jigcli.sandbox.owner import PREFIX, run_name
from jigcli.sandbox.routes import Bubblewrap, route_named

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


def _stage_of_a_gone_jig(folder: Path) -> Path:
    """A stage folder named for this process's pid with another start time: a jig gone."""
    mine = run_name()[len(PREFIX) :].split("-")
    mine[1] = str(int(mine[1]) + 1)
    stage = folder / (PREFIX + "-".join(mine))
    stage.mkdir()
    return stage


def test_what_a_gone_jig_left_running_in_its_stage_is_killed_and_nothing_else(tmp_path):
    gone_stage = _stage_of_a_gone_jig(tmp_path)
    live_stage = tmp_path / run_name()  # this very process's: running
    live_stage.mkdir()
    elsewhere = tmp_path / "work"
    elsewhere.mkdir()
    sleepers = {
        folder: subprocess.Popen(["sleep", "60"], cwd=folder)
        for folder in (gone_stage, live_stage, elsewhere)
    }
    try:
        assert kill_left_in(tmp_path) == [sleepers[gone_stage].pid]
        assert sleepers[gone_stage].wait(timeout=10) == -signal.SIGKILL
        assert all(sleepers[folder].poll() is None for folder in (live_stage, elsewhere))
        assert kill_left_in(tmp_path / "work") == []  # only a stage's own parent is swept
    finally:
        for sleeper in sleepers.values():
            sleeper.kill()
            sleeper.wait()


def test_a_process_left_in_a_stage_already_removed_is_killed_too(tmp_path):
    stage = _stage_of_a_gone_jig(tmp_path)
    sleeper = subprocess.Popen(["sleep", "60"], cwd=stage)
    try:
        stage.rmdir()  # an older jig's sweep removed the folder and left the process
        assert kill_left_in(tmp_path) == [sleeper.pid]
    finally:
        sleeper.kill()
        sleeper.wait()


# -- bubblewrap's init and jig's life ------------------------------------------------------


def _armed_script(status: Path) -> list[str]:
    """`Bubblewrap.armed`, reading `status` where the sandbox's PID 1 would be."""
    armed = Bubblewrap.armed.replace("/proc/1/status", str(status))
    return ["/bin/sh", "-c", armed + "echo started"]


def _status(filters: int) -> str:
    return f"Name:\tbwrap\nNoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t{filters}\nx:\t0\n"


def test_the_script_waits_until_the_init_holds_the_programs_filters(tmp_path):
    """bubblewrap's init asks for its parent-death signal right before it loads the
    filter: while its count of filters is not the program's, the program must wait."""
    status = tmp_path / "status"
    own = [line for line in Path("/proc/self/status").read_text().split("\n") if "Seccomp" in line]
    count = int(next(line for line in own if line.startswith("Seccomp_filters:")).split()[1])
    seccomp = next(line for line in own if line.startswith("Seccomp:")).split()[1]
    status.write_text(_status(count + 1).replace("Seccomp:\t2", f"Seccomp:\t{seccomp}"))
    waiting = subprocess.Popen(_armed_script(status), stdout=subprocess.PIPE, text=True)
    try:
        with pytest.raises(subprocess.TimeoutExpired):
            waiting.wait(timeout=0.5)
        status.write_text(_status(count).replace("Seccomp:\t2", f"Seccomp:\t{seccomp}"))
        out, _ = waiting.communicate(timeout=10)
        assert out == "started\n"
    finally:
        waiting.kill()
        waiting.wait()
