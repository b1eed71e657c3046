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

import pyseccomp  # type: ignore[import-untyped]
import pytest

from jigcli.sandbox import cgroups

from .conftest import HOSTILE, REPO, SMALL, SYSTEM_PYTHON

ROUTES = ("bubblewrap", "unshare-root", "bubblewrap-as-nobody")
HELPER = Path(__file__).with_name("run_as_nobody.py")


def _start(route: str, checker: str, witness: bytes, folder: Path) -> subprocess.Popen[str]:
    """The helper, as root or as nobody, running `checker` through `route` (not waited)."""
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
        env={"PATH": "/usr/bin:/bin", "TMPDIR": tempfile.gettempdir()},
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
