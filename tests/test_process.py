import os
import sys
import time
from pathlib import Path

import pytest

from jigcli.process import (
    Limits,
    ProgramMissing,
    Stopped,
    become_subreaper,
    run_bounded,
    stopping,
)


def test_run_captures_both_streams_and_exit_code():
    result = run_bounded(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (result.stdout, result.stderr, result.returncode) == ("out\n", "err\n", 3)
    assert not result.ok and not result.timed_out


def test_run_kills_the_whole_group_at_the_deadline(tmp_path, pid_alive):
    marker = tmp_path / "child.pid"
    script = f"sleep 30 & echo $! > {marker}; wait"
    started = time.monotonic()
    result = run_bounded(["sh", "-c", script], timeout=0.5)
    assert result.timed_out and time.monotonic() - started < 5
    child = int(marker.read_text())
    time.sleep(0.1)
    assert not pid_alive(child)


def test_run_stops_a_flood_at_the_output_cap():
    result = run_bounded(["yes"], output_cap=100_000, timeout=10)
    assert result.stdout_truncated and len(result.stdout) == 100_000
    assert result.notes and "exceeded" in result.notes[0]


def test_run_applies_the_cpu_limit():
    result = run_bounded(
        [sys.executable, "-c", "while True: pass"], limits=Limits(cpu_sec=1), timeout=20
    )
    assert result.signal is not None and not result.timed_out


def test_run_does_not_wait_for_a_child_that_closed_its_pipes_and_lingers():
    result = run_bounded(["sh", "-c", "exec >&- 2>&-; sleep 30"], timeout=1)
    assert result.timed_out


def test_run_reports_a_missing_program():
    with pytest.raises(ProgramMissing):
        run_bounded(["/nonexistent/program-jig"])


def test_run_streams_lines_to_on_line():
    seen: list[str] = []
    run_bounded(["sh", "-c", "echo a; echo b; printf c"], on_line=seen.append)
    assert seen == ["a", "b", "c"]


def test_run_feeds_stdin():
    assert run_bounded(["cat"], stdin_data=b"hello").stdout == "hello"


def test_run_reports_the_cpu_time_of_the_child_and_its_waited_for_children():
    spin = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"
    script = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {spin!r}])"
    result = run_bounded([sys.executable, "-c", script], timeout=20)
    assert result.ok and result.cpu_sec is not None and result.cpu_sec >= 0.3


def test_run_reports_cpu_time_when_the_cpu_limit_kills_the_child():
    result = run_bounded(
        [sys.executable, "-c", "while True: pass"], limits=Limits(cpu_sec=1), timeout=20
    )
    assert result.cpu_sec is not None and result.cpu_sec >= 0.9


def test_stopping_kills_what_run_has_running_in_another_thread(tmp_path, pid_alive):
    import threading

    marker = tmp_path / "child.pid"
    up = threading.Event()
    results = []
    script = f"sleep 30 & echo $! > {marker}; echo up; wait"
    worker = threading.Thread(
        target=lambda: results.append(run_bounded(["sh", "-c", script], on_line=lambda _: up.set()))
    )
    worker.start()
    assert up.wait(30)
    with stopping():
        worker.join(30)
    assert not worker.is_alive()
    [result] = results
    assert result.signal == 9 and not result.timed_out  # killed, not run out
    grandchild = int(marker.read_text())
    for _ in range(50):  # SIGKILL is sent; give the kernel a moment to finish it
        if not pid_alive(grandchild):
            break
        time.sleep(0.1)
    assert not pid_alive(grandchild)  # it went with its group


def test_inside_stopping_run_starts_nothing_and_after_it_runs_again():
    with stopping(), pytest.raises(Stopped, match="stopping"):
        run_bounded(["true"])
    assert run_bounded(["true"]).ok


def test_an_orphan_left_in_the_childs_group_comes_back_to_jig_and_is_reaped():
    """The child exits leaving a process in its group: killed with the group, it comes back
    to jig (the subreaper), which reaps it, so no zombie is left to any init."""
    if not become_subreaper():
        pytest.skip("this kernel offers no PR_SET_CHILD_SUBREAPER")
    done = run_bounded(["/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!"], timeout=20)
    orphan = int(done.stdout.split()[0])
    with pytest.raises(ChildProcessError):  # reaped already: not a child of jig's any more
        os.waitpid(orphan, os.WNOHANG)
    assert not Path(f"/proc/{orphan}").exists()
