"""Hostile checkers against every isolation route that runs here: the verdict each gets, and
that nothing escaped (no connection arrives, no file is read or written, no process lives on).
"""

import json
import os
import secrets
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import pytest

from jigcli.certificates import isolation
from jigcli.sandbox import cgroups, environment

from .conftest import REPO, SMALL


def _token() -> str:
    return f"jig-escapee-{secrets.token_hex(6)}"


def test_a_checker_cannot_reach_a_listener_on_the_host_loopback(through):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        outcome = through("connect_to_listener.py", json.dumps({"port": port}).encode())
        time.sleep(0.1)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert outcome["reason"] == "invalid_witness"
    assert outcome["checker_reason"].startswith("no network")


def test_a_checker_cannot_read_a_canary_outside_its_scratch(through, protected_dir):
    canary = protected_dir / "canary"
    canary.write_text("canary-secret-7c1f")
    canary.chmod(0o600)
    outcome = through("read_canary.py", json.dumps({"path": str(canary)}).encode())
    assert outcome["reason"] == "invalid_witness"
    assert "canary-secret-7c1f" not in json.dumps(outcome)


def test_a_checker_cannot_read_a_world_readable_token_beside_the_repo(through):
    """A checkout's `.git/config` with a token, readable by everyone: the unshare route runs
    as nobody, which may read it, so it must not be in view at all (every top folder but the
    system's is covered), as bubblewrap never shows it."""
    try:
        folder = Path(tempfile.mkdtemp(prefix="jig-checkout-", dir=REPO.parent))
    except OSError:
        pytest.skip(f"cannot make a folder beside {REPO}")
    try:
        folder.chmod(0o755)
        (folder / ".git").mkdir(mode=0o755)
        config = folder / ".git" / "config"
        config.write_text("[http]\n\textraheader = AUTHORIZATION: basic token-5e3a9\n")
        config.chmod(0o644)
        outcome = through("read_canary.py", json.dumps({"path": str(config)}).encode())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert outcome["reason"] == "invalid_witness"
    assert "token-5e3a9" not in json.dumps(outcome)


def test_a_checker_leaves_nothing_in_the_hosts_world_writable_folders(through):
    """/var/tmp, /run/lock, a /var/crash: anyone may write there, nobody included; what a
    run writes must not outlive it."""
    made = Path(tempfile.mkdtemp(prefix="jig-world-", dir="/var"))  # like /var/crash
    made.chmod(0o1777)
    token = _token()
    folders = [made, *(Path(p) for p in ("/var/tmp", "/run/lock", "/tmp", "/dev/shm"))]
    targets = [str(folder / token) for folder in folders if folder.is_dir()]
    try:
        through("write_outside.py", json.dumps({"paths": targets}).encode())
        assert [target for target in targets if Path(target).exists()] == []
    finally:
        shutil.rmtree(made, ignore_errors=True)


def test_a_checker_cannot_write_outside_its_scratch(through, protected_dir):
    target = protected_dir / "escaped"
    outcome = through("write_outside.py", json.dumps({"paths": [str(target)]}).encode())
    assert outcome["reason"] == "invalid_witness"
    assert not target.exists()


def test_a_setsid_daemon_does_not_outlive_the_checker(through, survivors):
    token = _token()
    outcome = through("setsid_daemon.py", json.dumps({"token": token}).encode())
    assert outcome["reason"] == "invalid_witness"
    assert outcome["checker_reason"] == "left a daemon behind"
    assert _gone(survivors, token)


def test_a_bounded_fork_storm_leaves_nothing_behind(through, survivors):
    token = _token()
    witness = json.dumps({"token": token, "count": 64}).encode()
    outcome = through("fork_storm.py", witness)
    assert outcome["reason"] == "invalid_witness"
    assert outcome["checker_reason"].startswith("forked ")
    assert _gone(survivors, token)


# -- fork bombs: only where the route's probe verified that the kernel caps its processes ------

BOMB_CAP = 16


def _capped(through):
    if through.processes_cap is None:
        pytest.skip(f"{through.route} caps no processes here: {through.processes_note}")
    return through


class _Census:
    """Samples, on a thread, how many live host processes carry `token`, keeping the most."""

    def __init__(self, survivors, token: str) -> None:
        self.survivors, self.token, self.most = survivors, token, 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample)

    def _sample(self) -> None:
        while not self._done.wait(0.02):
            self.most = max(self.most, len(self.survivors(self.token)))

    def __enter__(self) -> "_Census":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        self._thread.join()


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid` on the host."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def test_an_unbounded_fork_bomb_is_held_at_its_cap_until_its_wall_clock(through, survivors):
    runner = _capped(through)
    before = _descendants(os.getpid())
    token = _token()
    witness = json.dumps({"token": token, "style": "every"}).encode()
    limits = SMALL.replace(wall_sec=2, processes=BOMB_CAP)
    with _Census(survivors, token) as census:
        outcome = runner("fork_bomb.py", witness, limits)
    # Every process retries its refused forks forever: held at the cap, it never finishes.
    assert outcome["reason"] == "timeout", outcome["detail"]
    assert "wall limit of 2 s" in outcome["detail"]
    assert outcome["limits"]["processes"] == BOMB_CAP
    assert outcome["limits"]["processes_mechanism"] == runner.processes_cap
    assert 4 <= census.most <= BOMB_CAP  # it did bomb, and the cap held
    assert _gone(survivors, token)  # nothing of it is left on the host
    assert _descendants(os.getpid()) <= before  # nor under this test's process


def test_a_fork_bomb_that_dies_of_a_refused_fork_is_a_checker_error(through, survivors):
    runner = _capped(through)
    token = _token()
    witness = json.dumps({"token": token, "style": "leader"}).encode()
    outcome = runner("fork_bomb.py", witness, SMALL.replace(processes=BOMB_CAP))
    assert outcome["reason"] == "checker_error"
    assert "BlockingIOError" in outcome["detail"]
    assert f"its process limit is {BOMB_CAP}" in outcome["detail"]
    assert _gone(survivors, token)


def test_a_run_capped_by_a_cgroup_leaves_no_cgroup_behind(through_bubblewrap):
    if through_bubblewrap.processes_cap != cgroups.CGROUP:
        pytest.skip(f"bubblewrap does not use a cgroup here: {through_bubblewrap.processes_note}")
    hierarchy = cgroups.hierarchy(cgroups.PIDS)
    assert hierarchy is not None
    ours = f"jig-sandbox-{os.getpid()}-*"
    outcome = through_bubblewrap(
        "fork_storm.py", json.dumps({"token": _token(), "count": 8}).encode()
    )
    assert outcome["reason"] == "invalid_witness"
    assert list(hierarchy.glob(ours)) == []


def test_a_memory_bomb_stops_at_the_address_space_limit(through):
    outcome = through("memory_bomb.py", limits=SMALL.replace(address_space_mb=256))
    assert outcome["reason"] == "checker_error"
    assert "MemoryError" in outcome["detail"]


def test_a_cpu_spin_is_a_timeout(through):
    outcome = through("cpu_spin.py", limits=SMALL.replace(cpu_sec=1))
    assert outcome["reason"] == "timeout"
    assert "CPU limit of 1 s" in outcome["detail"]


def test_a_checker_that_catches_sigxcpu_and_prints_green_after_is_a_timeout(through):
    outcome = through("catch_sigxcpu.py", limits=SMALL.replace(cpu_sec=1))
    assert outcome["reason"] == "timeout", outcome
    assert "CPU limit of 1 s" in outcome["detail"] and outcome["canonical"] is None


def test_a_sleep_past_the_wall_clock_is_a_timeout(through):
    started = time.monotonic()
    outcome = through("sleep_past_wall.py", limits=SMALL.replace(wall_sec=1))
    assert outcome["reason"] == "timeout"
    assert "wall limit of 1 s" in outcome["detail"]
    assert time.monotonic() - started < 30


def test_a_200_mb_output_flood_is_stopped_at_the_cap(through):
    outcome = through("output_flood.py", limits=SMALL.replace(output_bytes=65536))
    assert outcome["reason"] == "checker_protocol"
    assert "more than 65536 bytes on stdout" in outcome["detail"]
    assert len(outcome["stdout_tail"]) <= 4001


def test_the_parents_environment_never_reaches_the_checker(through, monkeypatch):
    monkeypatch.setenv("JIG_TEST_SECRET", "env-secret-58e2")
    outcome = through("leak_environment.py")
    assert outcome["reason"] == "ok"
    seen = json.loads(outcome["canonical"])
    assert "JIG_TEST_SECRET" not in seen and "HOME" not in seen
    assert "env-secret-58e2" not in json.dumps(outcome)
    seen.pop("PWD", None)  # set by bwrap's and the shell init's chdir, not inherited
    assert seen == environment.environment(Path(seen["TMPDIR"]), isolation.PYTHON_ENV)


def test_a_checker_killing_its_parent_harms_nothing_outside(through):
    outcome = through("kill_parent.py")
    # Its parent is the sandbox's own init, which a namespace protects; jig carries on.
    assert outcome["reason"] == "ok"
    assert outcome["isolation"] == through.route
    assert os.getppid() > 1


def _gone(survivors, token: str) -> bool:
    deadline = time.monotonic() + 5  # the kernel tears a PID namespace down asynchronously
    while survivors(token):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


# -- bubblewrap's file view ----------------------------------------------------------------


def test_bubblewrap_shows_only_system_folders_the_interpreter_and_scratch(
    through_bubblewrap, protected_dir
):
    outcome = through_bubblewrap("look_around.py")
    assert outcome["reason"] == "ok", outcome["detail"]
    seen = json.loads(outcome["canonical"])
    python_top = Path(isolation.default_python()).parts[1]
    allowed = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc"}
    assert set(seen["root"]) <= allowed | {"proc", "dev", "scratch", python_top}
    assert seen["etc"] == ["ld.so.cache"]
    assert seen["scratch"] == ["checker.py", "witness"]
    assert seen["cwd"] == "/scratch" and seen["uid"] == 65534
    assert not seen["host_tmp"] and seen["scratch_writable"]
    for home, inside in seen["homes"].items():
        # Nothing of a home folder, unless the interpreter lives there: then only its path.
        python = isolation.default_python()
        expected = [python.relative_to(home).parts[0]] if python.is_relative_to(home) else None
        assert inside == expected


def test_bubblewrap_keeps_host_tmp_unwritten(through_bubblewrap):
    target = Path("/tmp") / f"{_token()}.txt"
    outcome = through_bubblewrap("write_outside.py", json.dumps({"paths": [str(target)]}).encode())
    assert outcome["reason"] == "invalid_witness"
    assert not target.exists()


def test_bubblewrap_leaves_no_unsized_space_to_write_in_its_own_root(through_bubblewrap):
    # bubblewrap's root folder is a tmpfs of no set size; unless remounted read-only, a
    # checker could fill it (and the folders it made for the view's binds) without bound.
    paths = [f"/{_token()}.txt", f"/proc/../{_token()}.txt", f"/dev/../{_token()}"]
    outcome = through_bubblewrap("write_outside.py", json.dumps({"paths": paths}).encode())
    assert outcome["reason"] == "invalid_witness", outcome["detail"]
    assert outcome["detail"].count("OSError") == len(paths)


def _zombie_children() -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] == "Z" and int(fields[1]) == os.getpid():
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("checker", ["accept.py", "sleep_past_wall.py"])
def test_no_run_leaves_a_process_for_the_callers_reaper(through, checker):
    """bubblewrap's launcher exits without waiting for its init, and a launcher killed at
    the wall clock leaves its own child: jig adopts both and reaps them (under an init that
    never reaps, they would be zombies for good)."""
    zombies, descendants = set(_zombie_children()), _descendants(os.getpid())
    outcome = through(checker, b"w", SMALL.replace(wall_sec=2))
    assert outcome["reason"] in ("ok", "timeout")
    # Only this run's count: earlier tests' killed helpers leave theirs to this process.
    assert set(_zombie_children()) <= zombies
    assert _descendants(os.getpid()) <= descendants


def test_bubblewraps_orphaned_init_comes_back_to_jig_and_is_reaped(through_bubblewrap, monkeypatch):
    from jigcli.sandbox import execute

    reaped: list[tuple[int, bool]] = []

    def spy(pid: int) -> bool:
        reaped.append((pid, execute_reap(pid)))
        return reaped[-1][1]

    execute_reap = execute.reap
    monkeypatch.setattr(execute, "reap", spy)
    through_bubblewrap("accept.py", b"w")
    # Reaped by jig: it was jig's child by adoption (not the machine init's, never reaped).
    assert reaped and all(done for _, done in reaped), reaped


def test_a_checker_holds_at_most_its_share_of_descriptors(through):
    """RLIMIT_NOFILE, so that sockets and their kernel buffers are bounded per process even
    where no memory cgroup counts them."""
    from jigcli.certificates.isolation import CHECKER_OPEN_FILES

    outcome = through("open_many.py", b"1000")
    assert outcome["reason"] == "invalid_witness"
    opened = int(outcome["checker_reason"].split()[1])
    assert opened < CHECKER_OPEN_FILES
