"""jig killed mid-run (SIGKILL, SIGTERM, SIGHUP), on every route, as root and as nobody:
nothing the run started is left alive, and what SIGKILL left on the host (the run's cgroups,
its stage folder) is swept by the next run (issue 22)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyseccomp  # type: ignore[import-untyped]
import pytest

from jigcli.sandbox import cgroups

from .conftest import HOSTILE, REPO, SMALL, SYSTEM_PYTHON

ROUTES = ("bubblewrap", "unshare-root", "bubblewrap-as-nobody")
HELPER = Path(__file__).with_name("run_as_nobody.py")


def _start(
    route: str,
    checker: str,
    witness: bytes,
    folder: Path,
    block: dict[str, Any] | None = None,
    cache: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    """The helper, as root or as nobody, running `checker` through `route` (not waited);
    `block` holds its bubblewrap at a point of the set-up (run_as_nobody.py)."""
    as_nobody = route.endswith("-as-nobody")
    if as_nobody and (os.geteuid() != 0 or not SYSTEM_PYTHON.exists()):
        pytest.skip(f"{route} needs root (to become nobody) and a system python3")
    if not as_nobody and os.geteuid() != 0:
        pytest.skip(f"{route} is the root's route")
    system = Path(os.path.realpath(SYSTEM_PYTHON))
    python = system if as_nobody else Path(sys.executable)
    # The checker's interpreter: one nobody can run where the checker runs as nobody.
    checker_python = system if as_nobody or route == "unshare-root" else python
    folder.chmod(0o755)
    shutil.copy(pyseccomp.__file__, folder / "pyseccomp.py")
    (folder / "witness").write_bytes(witness)
    limits = {**SMALL.to_json(), "wall_sec": 60, "cpu_sec": 30}
    request = {
        "repo": str(REPO),
        "path": str(folder),
        "checker": str(HOSTILE / checker),
        "witness": str(folder / "witness"),
        "limits": limits,
        "route": route.removesuffix("-as-nobody"),
        "python": str(checker_python),
        **({} if block is None else {"block": block}),
    }
    (folder / "request.json").write_text(json.dumps(request))
    for name in ("witness", "request.json", "pyseccomp.py"):
        (folder / name).chmod(0o644)
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if as_nobody else []
    return subprocess.Popen(
        [*drop, str(python), str(HELPER), str(folder / "request.json")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"PATH": "/usr/bin:/bin", "TMPDIR": tempfile.gettempdir(), **(cache or {})},
        pass_fds=() if block is None else (block["fd"],),
    )


def _wait_for(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _left_by(pid: int) -> list[Path]:
    """The cgroups and stage folders named for the jig process `pid`."""
    places = {cgroups.hierarchy(c) for c in (cgroups.PIDS, cgroups.MEMORY)} - {None}
    places.add(Path(tempfile.gettempdir()))
    return [path for place in places if place for path in place.glob(f"jig-sandbox-{pid}-*")]


@pytest.fixture
def readable_folders() -> Iterator[Callable[[], Path]]:
    """Fresh folders under the host /tmp that nobody can read (a test's tmp_path is not)."""
    made: list[Path] = []

    def make() -> Path:
        made.append(Path(tempfile.mkdtemp(prefix="jig-nobody-")))
        return made[-1]

    yield make
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGHUP], ids=str)
def test_jig_killed_mid_run_leaves_nothing_alive_and_the_next_run_sweeps_its_leftovers(
    route, how, survivors, readable_folders
):
    token = f"jig-linger-{os.urandom(6).hex()}"
    first, second = readable_folders(), readable_folders()
    jig = _start(route, "linger.py", json.dumps({"token": token}).encode(), first)
    if not _wait_for(lambda: len(survivors(token)) >= 2 or jig.poll() is not None, 30):
        jig.kill()
        pytest.fail(f"the checker never started: {jig.communicate()}")
    if jig.poll() is not None:
        out, err = jig.communicate()
        said = out + err
        if "sandbox_unavailable" in said or "cannot run" in said:
            pytest.skip(f"{route} cannot run here")
        pytest.fail(said)
    jig.send_signal(how)
    jig.communicate(timeout=30)
    assert jig.returncode == (-how if how == signal.SIGKILL else 128 + how)
    # Nothing of the run outlives jig: not the checker, not its setsid daemon.
    assert _wait_for(lambda: survivors(token) == [], 10), survivors(token)
    if how != signal.SIGKILL:  # jig cleaned up itself
        assert _left_by(jig.pid) == []
        return
    assert _left_by(jig.pid) != []  # SIGKILL left its stage (and cgroups): the next run's
    after = _start(route, "accept.py", b"w", second)
    out, err = after.communicate(timeout=120)
    assert after.returncode == 0 and json.loads(out)["reason"] == "ok", err
    assert _left_by(jig.pid) == []  # swept by the next run, whoever owned them


# -- SIGKILL during bubblewrap's set-up ---------------------------------------------------------
# bubblewrap's init asks for its parent-death signal only in do_init, after its set-up and
# the fork of the program (bubblewrap.c at v0.8.0); the helper holds the set-up at a point
# before that (`--block-fd`: the init, after the uid maps; `--userns-block-fd`: the
# launcher, before it lets the init go on), so the kill lands there every time.

BWRAP_ROUTES = ("bubblewrap", "bubblewrap-as-nobody")


def _in_new_pid_namespace(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return any(line.startswith("NSpid:") and len(line.split()) > 2 for line in status.split("\n"))


def _reading(pid: int) -> bool:
    """Whether `pid` is blocked in read(2) (syscall 0 on x86-64; elsewhere: asleep)."""
    try:
        call = Path(f"/proc/{pid}/syscall").read_text().split()[0]
    except (OSError, IndexError):
        call = "0"
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state == "S" and call == "0"


def _held_run(route, survivors, folder, option, run="jig-start"):  # type: ignore[no-untyped-def]
    """Start a lingering checker whose bubblewrap (the checker's, or with `run` "jig-probe"
    the route's probe, in a cache of its own) is held at `option`; (jig, held pid, the
    release pipe's write end, token)."""
    token = f"jig-held-{os.urandom(6).hex()}"
    release, write_end = os.pipe()
    block = {"option": option, "fd": release, "mark": token, "run": run}
    witness = json.dumps({"token": token}).encode()
    cache = None
    if run == "jig-probe":  # a cache of its own, where no probe is kept yet
        (folder / "cache").mkdir(mode=0o700)
        if route.endswith("-as-nobody"):
            os.chown(folder / "cache", 65534, 65534)
        cache = {"JIG_CACHE_DIR": str(folder / "cache")}
    jig = _start(route, "linger.py", witness, folder, block=block, cache=cache)
    os.close(release)
    init = option == "--block-fd"  # which of bubblewrap's two processes is held

    def held() -> list[int]:
        return [pid for pid in survivors(token) if _in_new_pid_namespace(pid) == init]

    if not _wait_for(lambda: (held() and _reading(held()[0])) or jig.poll() is not None, 30):
        jig.kill()
        pytest.fail(f"bubblewrap never reached the held point: {jig.communicate()}")
    if jig.poll() is not None:
        out, err = jig.communicate()
        if "sandbox_unavailable" in out + err:
            pytest.skip(f"{route} cannot run here")
        pytest.fail(out + err)
    return jig, held()[0], write_end, token


@pytest.mark.parametrize("run", ["jig-start", "jig-probe"], ids=["checker", "probe"])
@pytest.mark.parametrize("route", BWRAP_ROUTES)
def test_jig_killed_during_the_set_up_leaves_no_checker_and_no_probe_running(
    route, run, survivors, readable_folders
):
    """Nor the probe's children, which would sleep 30 s each."""
    folder = readable_folders()
    jig, init, release, token = _held_run(route, survivors, folder, "--block-fd", run)
    jig.kill()
    jig.communicate(timeout=30)
    # The launcher died with jig; the init, held before its parent-death signal, did not.
    assert _wait_for(lambda: survivors(token) == [init], 10), survivors(token)
    os.write(release, b"go")
    os.close(release)
    # Let go, it sets the sandbox up and starts the script, whose first write to jig fails:
    # the checker (which would leave two sleeps named by the token) never runs, nor the
    # probe's sleeping children (its init, named by the token, would wait for them).
    assert _wait_for(lambda: survivors(token) == [], 10), survivors(token)


@pytest.mark.parametrize("route", BWRAP_ROUTES)
def test_jig_killed_before_bubblewrap_lets_its_init_go_on_leaves_it_to_the_next_run(
    route, survivors, readable_folders
):
    jig, launcher, release, token = _held_run(
        route, survivors, readable_folders(), "--userns-block-fd"
    )
    jig.kill()
    jig.communicate(timeout=30)
    assert _wait_for(lambda: launcher not in survivors(token), 10)
    # The init waits for a word from the launcher that is gone: for ever, in the stage.
    left = survivors(token)
    assert len(left) == 1 and _in_new_pid_namespace(left[0])
    os.close(release)
    after = _start(route, "accept.py", b"w", readable_folders())
    out, err = after.communicate(timeout=120)
    assert after.returncode == 0 and json.loads(out)["reason"] == "ok", err
    assert _wait_for(lambda: survivors(token) == [], 10), survivors(token)
