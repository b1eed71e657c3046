"""A child's set-up before its program runs (`jigcli.spawn`): through the gate where it can
be, in the forked child elsewhere; either way the program starts with its limits in force,
never before, and a jig that dies at the gate leaves nothing of the program running."""

from __future__ import annotations

import ctypes
import resource
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from jigcli import spawn
from jigcli.process import Limits, ProgramMissing, run_bounded

LINUX = sys.platform.startswith("linux")
needs_gate = pytest.mark.skipif(
    not (LINUX and spawn._setpriv()), reason="the gate needs Linux and util-linux's setpriv"
)
KEY_SPEC_SESSION_KEYRING, KEYCTL_GET_KEYRING_ID = -3, 0

# The child's own view of what it was given: its limits, its stdin, its open descriptors.
REPORT = textwrap.dedent(
    """
    import os, stat, sys
    limits = open("/proc/self/limits").read()
    print(stat.S_ISCHR(os.fstat(0).st_mode), sorted(int(fd) for fd in os.listdir("/proc/self/fd")))
    print(limits)
    """
)


def _limit_line(limits_text: str, name: str) -> list[str]:
    line = next(line for line in limits_text.splitlines() if line.startswith(name))
    return line[len(name) :].split()[:2]


@needs_gate
def test_the_gate_is_the_way_on_linux_with_setpriv():
    setup = Limits(cpu_sec=5, parent_death=True).child_setup()
    gate = spawn._gate_prefix(setup, subprocess.DEVNULL)
    assert gate is not None and gate[:3] == [spawn._setpriv(), "--pdeathsig", "KILL"]
    # A caller's own descriptor as stdin cannot carry the gate's line: the forked child does it.
    assert spawn._gate_prefix(setup, 0) is None


def test_a_setpriv_without_pdeathsig_leaves_the_set_up_to_the_forked_child(tmp_path, monkeypatch):
    """util-linux before 2.33 has setpriv but no --pdeathsig: the run does not fail at the
    gate, it is set up in the child, parent-death signal included."""
    if not LINUX:
        pytest.skip("Linux only")
    old = tmp_path / "setpriv"
    old.write_text("#!/bin/sh\necho \"setpriv: unrecognized option '$1'\" >&2\nexit 1\n")
    old.chmod(0o755)
    monkeypatch.setattr(spawn, "_SYSTEM_PATH", str(tmp_path))
    spawn._setpriv.cache_clear()
    try:
        setup = setup_limits().child_setup()
        assert spawn._gate_prefix(setup, subprocess.DEVNULL) is None
        done = run_bounded(["/bin/sh", "-c", "echo ran"], limits=setup_limits())
        assert (done.ok, done.stdout) == (True, "ran\n"), done.stderr
    finally:
        spawn._setpriv.cache_clear()


@needs_gate
def test_a_gate_that_never_opens_fails_the_set_up_instead_of_hanging(
    tmp_path, monkeypatch, gone_within
):
    """Its group killed with it: nothing it started is left."""
    marker = tmp_path / "sleeper.pid"
    stuck = ["/bin/sh", "-c", f"sleep 30 & echo $! > {marker}; wait", "stuck"]
    monkeypatch.setattr(spawn, "_GATE_START_SEC", 0.5)
    monkeypatch.setattr(spawn, "_gate_prefix", lambda setup, stdin: stuck)
    started = time.monotonic()
    with pytest.raises(subprocess.SubprocessError, match="did not open"):
        run_bounded(["true"], limits=Limits(cpu_sec=5))
    assert time.monotonic() - started < 10
    assert gone_within(int(marker.read_text()))


def test_whether_setpriv_takes_pdeathsig_is_asked_once_then_kept(tmp_path, monkeypatch):
    """A fake setpriv that counts its runs: a second process (here: the answer forgotten in
    memory) reads the kept answer instead of running it again; a new binary is asked anew."""
    if not LINUX:
        pytest.skip("Linux only")
    runs = tmp_path / "runs"
    fake = tmp_path / "bin" / "setpriv"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho run >> {runs}\nshift 3\nexec "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(spawn, "_SYSTEM_PATH", str(fake.parent))
    try:
        for _ in range(2):
            spawn._setpriv.cache_clear()
            assert spawn._setpriv() == str(fake)
        assert runs.read_text() == "run\n"
        fake.write_text(fake.read_text() + "# another build\n")
        spawn._setpriv.cache_clear()
        assert spawn._setpriv() == str(fake)
        assert runs.read_text() == "run\nrun\n"
    finally:
        spawn._setpriv.cache_clear()


def _run_a_jig_that_kills_itself(script: str) -> None:
    """`script` in a process of its own, which must end by SIGKILLing itself (as a killed
    jig does), never by finishing."""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
    assert done.returncode == -9, done.stderr


def setup_limits() -> Limits:
    return Limits(cpu_sec=5, parent_death=True)


@pytest.mark.parametrize("gated", [True, False], ids=["gate", "forked child"])
def test_jig_killed_while_the_program_runs_kills_it_either_way(gated, tmp_path, gone_within):
    if not LINUX or (gated and not spawn._setpriv()):
        pytest.skip("no parent-death signal here")
    pid_file = tmp_path / "program.pid"
    script = textwrap.dedent(
        f"""
        import os, signal
        from pathlib import Path
        from jigcli import spawn
        from jigcli.process import Limits, run_bounded

        if not {gated}:
            spawn._gate_prefix = lambda setup, stdin: None

        def started(line):
            Path({str(pid_file)!r}).write_text(line)
            os.kill(os.getpid(), signal.SIGKILL)

        run_bounded(["/bin/sh", "-c", "echo $$; exec sleep 60"], on_line=started,
                    limits=Limits(cpu_sec=5, parent_death=True))
        """
    )
    _run_a_jig_that_kills_itself(script)
    assert gone_within(int(pid_file.read_text()))


@pytest.mark.parametrize("gated", [True, False], ids=["gate", "forked child"])
def test_the_program_starts_with_its_rlimits_soft_and_hard(gated, monkeypatch):
    if gated and not (LINUX and spawn._setpriv()):
        pytest.skip("no gate here")
    if not gated:
        monkeypatch.setattr(spawn, "_gate_prefix", lambda setup, stdin: None)
    limits = Limits(cpu_sec=7, address_space_mb=900, file_size_mb=3, open_files=40)
    done = run_bounded([sys.executable, "-S", "-c", REPORT], limits=limits, timeout=30)
    assert done.ok, done.stderr
    said = done.stdout.split("\n", 1)[1]
    assert _limit_line(said, "Max cpu time") == ["7", "8"]  # SIGXCPU, then SIGKILL a second on
    assert _limit_line(said, "Max address space") == [str(900 << 20)] * 2
    assert _limit_line(said, "Max file size") == [str(3 << 20)] * 2
    assert _limit_line(said, "Max open files") == ["40", "40"]
    assert _limit_line(said, "Max core file size") == ["0", "0"]


@needs_gate
def test_cpu_kill_makes_the_hard_cpu_limit_the_soft_one():
    limits = Limits(cpu_sec=7, cpu_kill=True)
    done = run_bounded([sys.executable, "-S", "-c", REPORT], limits=limits, timeout=30)
    assert _limit_line(done.stdout.split("\n", 1)[1], "Max cpu time") == ["7", "7"]


@needs_gate
def test_through_the_gate_the_program_holds_no_descriptor_of_it_and_reads_dev_null():
    done = run_bounded(
        [sys.executable, "-S", "-c", REPORT], limits=Limits(cpu_sec=5, parent_death=True)
    )
    first = done.stdout.split("\n", 1)[0]
    # stdin a character device (/dev/null), and 0, 1, 2 plus the one listdir opened.
    assert first.startswith("True [0, 1, 2, 3]"), first


@needs_gate
def test_stdin_data_follows_the_gates_line_untouched():
    data = b"go\nno\n" + bytes(range(256)) * 64  # what the gate reads must not eat it
    done = run_bounded(["od", "-An", "-v", "-tx1"], stdin_data=data, limits=Limits(cpu_sec=5))
    assert bytes.fromhex(done.stdout.replace("\n", " ")) == data


@needs_gate
def test_a_missing_program_is_still_program_missing_through_the_gate():
    with pytest.raises(ProgramMissing):
        run_bounded(["/nonexistent/program-jig"], limits=Limits(cpu_sec=5))
    with pytest.raises(ProgramMissing):
        run_bounded(["no-such-program-jig"], limits=Limits(cpu_sec=5))


@needs_gate
def test_a_set_up_that_fails_raises_and_the_program_never_runs(tmp_path):
    """A cgroup that cannot be joined: an error for the caller saying why, and the program,
    held at the gate, never ran."""
    marker = tmp_path / "ran"
    with pytest.raises(subprocess.SubprocessError, match=r"set-up failed.*not-a-cgroup"):
        run_bounded(
            ["/bin/sh", "-c", f"touch {marker}"],
            limits=Limits(cgroups=(tmp_path / "not-a-cgroup",)),
        )
    time.sleep(0.2)
    assert not marker.exists()


@needs_gate
def test_jig_dying_at_the_gate_leaves_nothing_of_the_program_running(tmp_path, gone_within):
    """jig SIGKILLed after starting the child and before writing `go`: the shell reads
    end-of-file (or is killed by its parent-death signal) and the program never starts."""
    marker = tmp_path / "ran"
    pid_file = tmp_path / "gate.pid"
    script = textwrap.dedent(
        f"""
        import os, signal, sys
        from pathlib import Path
        from jigcli import spawn
        from jigcli.process import Limits, run_bounded

        def die(proc):
            Path({str(pid_file)!r}).write_text(str(proc.pid))
            os.kill(os.getpid(), signal.SIGKILL)

        spawn._await_ready = die
        limits = Limits(cpu_sec=5, parent_death=True)
        run_bounded(["/bin/sh", "-c", "touch {marker}"], limits=limits)
        """
    )
    _run_a_jig_that_kills_itself(script)
    assert gone_within(int(pid_file.read_text()))
    assert not marker.exists()


@needs_gate
def test_each_child_gets_a_new_session_keyring_and_the_callers_stays_its_own():
    """Joined by the starting thread, so only that thread's changes: another thread (here the
    main one) keeps its session keyring."""
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long
    number = spawn._keyctl_number()
    if number is None:
        pytest.skip("no keyctl number for this architecture")
    mine = syscall(number, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0)
    ask = (
        "import ctypes; s = ctypes.CDLL(None).syscall; s.restype = ctypes.c_long; "
        f"print(s({number}, {KEYCTL_GET_KEYRING_ID}, {KEY_SPEC_SESSION_KEYRING}, 0))"
    )
    seen: list[str] = []

    def start_two() -> None:
        for _ in range(2):
            seen.append(
                run_bounded(
                    [sys.executable, "-S", "-c", ask], limits=Limits(fresh_keyring=True)
                ).stdout.strip()
            )

    worker = threading.Thread(target=start_two)
    worker.start()
    worker.join(60)
    first, second = (int(text) for text in seen)
    assert first > 0 and second > 0 and len({first, second, mine}) == 3
    assert syscall(number, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0) == mine


@needs_gate
def test_the_cgroup_is_joined_before_the_program_runs(tmp_path):
    """A cgroup folder stand-in: the gate's shell writes "0" (itself) to its `tasks` before
    the program runs, and the program, once it runs, finds it written."""
    folder = tmp_path / "cgroup"
    folder.mkdir()
    (folder / "tasks").write_text("")
    tasks = folder / "tasks"
    done = run_bounded(["/bin/cat", str(tasks)], limits=Limits(cgroups=(folder,)))
    assert done.ok and done.stdout == "0"


@needs_gate
def test_a_v2_cgroup_is_joined_through_cgroup_procs(tmp_path):
    folder = tmp_path / "cgroup"
    folder.mkdir()
    (folder / "cgroup.procs").write_text("")
    done = run_bounded(["/bin/cat", str(folder / "cgroup.procs")], limits=Limits(cgroups=(folder,)))
    assert done.ok and done.stdout == "0"


def test_no_set_up_at_all_is_a_plain_start():
    assert not Limits(no_core=False).child_setup().needed()
    assert run_bounded(["true"], limits=Limits(no_core=False)).ok


def test_the_rlimit_pairs_give_cpu_a_second_more_unless_it_kills():
    pairs = [(resource.RLIMIT_CPU, 3), (resource.RLIMIT_NOFILE, 9)]
    assert spawn.rlimit_pairs(pairs, cpu_kill=False) == (
        (resource.RLIMIT_CPU, (3, 4)),
        (resource.RLIMIT_NOFILE, (9, 9)),
    )
    assert spawn.rlimit_pairs(pairs, cpu_kill=True)[0] == (resource.RLIMIT_CPU, (3, 3))


def test_the_gate_refuses_anything_but_its_line():
    """What the shell does with a line that is not `go` (or none): exits 125, runs nothing."""
    for line in (b"", b"gone\n", b"no\n"):
        done = subprocess.run(
            ["/bin/sh", "-c", spawn._GATE, spawn._GATE_NAME, "--", "echo", "ran"],
            input=line,
            capture_output=True,
        )
        assert (done.returncode, done.stdout) == (125, spawn._READY)
