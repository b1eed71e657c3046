"""Real sandboxes for the certificate tests: one runner per isolation route that works here.

A route that cannot run on this machine is skipped with the probe's reason, never faked.
`bubblewrap-as-nobody` runs bubblewrap from a helper started as nobody (with the system
interpreter, which nobody can read), so that each hostile test holds both as root and as an
unprivileged user. (There is no unshare route without root: `routes.NO_USERNS_ROUTE`.)
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyseccomp  # type: ignore[import-untyped]
import pytest

from jigcli.certificates import isolation
from jigcli.certificates.checker import check_witness
from jigcli.certificates.spec import CertLimits
from jigcli.sandbox import probe as probing
from jigcli.sandbox.routes import route_named

from ..conftest import run_as_nobody

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "data" / "certificates" / "hostile"
SYSTEM_PYTHON = Path("/usr/bin/python3")
# Small enough to keep the suite fast; each hostile test lowers what it needs to.
SMALL = CertLimits(wall_sec=10, cpu_sec=5, address_space_mb=512, output_bytes=65536)


@dataclasses.dataclass
class Runner:
    """Runs a hostile checker (a file under tests/data/certificates/hostile) on a witness."""

    route: str
    run: Callable[..., dict[str, Any]]
    # What caps a run's processes through this runner, as the route's probe verified; None
    # where nothing does (`processes_note` says why).
    processes_cap: str | None = None
    processes_note: str = ""

    def __call__(
        self, checker: str, witness: bytes = b"", limits: CertLimits = SMALL
    ) -> dict[str, Any]:
        return self.run(checker, witness, limits)


def _interpreters() -> list[Path]:
    found = [isolation.default_python()]
    if SYSTEM_PYTHON.exists():
        found.append(Path(os.path.realpath(SYSTEM_PYTHON)))
    return found


def _in_process(route: str, python: Path) -> Callable[..., dict[str, Any]]:
    def run(checker: str, witness: bytes = b"", limits: CertLimits = SMALL) -> dict[str, Any]:
        source = (HOSTILE / checker).read_bytes()
        outcome = check_witness(source, witness, limits, route=route, python=python)
        document = outcome._asdict()
        document["limits"] = outcome.applied_limits()
        return document

    return run


def _as_nobody(route: str, python: Path) -> Callable[..., dict[str, Any]]:
    def run(checker: str, witness: bytes = b"", limits: CertLimits = SMALL) -> dict[str, Any]:
        folder = Path(tempfile.mkdtemp(prefix="jig-nobody-"))
        try:
            folder.chmod(0o755)
            # The seccomp binding, for the system interpreter that cannot see this venv.
            shutil.copy(pyseccomp.__file__, folder / "pyseccomp.py")
            request = {
                "repo": str(REPO),
                "path": str(folder),
                "checker": str(HOSTILE / checker),
                "witness": str(folder / "witness"),
                "limits": limits.to_json(),
                "route": route,
                "python": str(python),
            }
            (folder / "witness").write_bytes(witness)
            (folder / "request.json").write_text(json.dumps(request))
            for name in ("witness", "request.json", "pyseccomp.py"):
                (folder / name).chmod(0o644)
            helper = Path(__file__).with_name("run_as_nobody.py")
            done = run_as_nobody(
                [str(python), str(helper), str(folder / "request.json")],
                env={"PATH": "/usr/bin:/bin"},
            )
            assert done.returncode == 0, done.stderr
            document: dict[str, Any] = json.loads(done.stdout)
            return document
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    return run


def _readable_by_everyone(path: Path) -> bool:
    return all(
        part.stat().st_mode & stat.S_IXOTH for part in (path, *path.parents) if part.is_dir()
    )


def _runner_for(param: str) -> Runner:
    """A runner through the route `param` names, or a skip with the reason it cannot run."""
    route = param.removesuffix(AS_NOBODY)
    if param.endswith(AS_NOBODY):
        if os.geteuid() != 0:
            pytest.skip(f"{param}: only root can start the helper as nobody")
        if shutil.which("setpriv") is None or not SYSTEM_PYTHON.exists():
            pytest.skip(f"{param} needs setpriv and a system python3")
        if not _readable_by_everyone(HOSTILE):
            pytest.skip(f"nobody cannot read {REPO}, so cannot run the helper")
        runner = Runner(route, _as_nobody(route, Path(os.path.realpath(SYSTEM_PYTHON))))
        probe = runner("accept.py", b"probe")
        if probe["reason"] == "sandbox_unavailable":
            pytest.skip(f"{param} cannot run here: {probe['detail']}")
        runner.processes_cap = probe["processes_cap"]
        runner.processes_note = probe["processes_note"]
        return runner
    chosen = route_named(route)
    reasons = []
    for python in _interpreters():
        why = probing.probe(chosen, isolation.probe_job(python))
        if why is None:
            cap = probing.process_cap(chosen, isolation.probe_job(python))
            return Runner(
                route,
                _in_process(route, python),
                processes_cap=cap.mechanism,
                processes_note=cap.why,
            )
        reasons.append(f"{python}: {why}")
    pytest.skip(f"{route} cannot run here: " + "; ".join(reasons))


AS_NOBODY = "-as-nobody"
ISOLATING = ("bubblewrap", f"bubblewrap{AS_NOBODY}", "unshare-root", "sandbox-exec")


@pytest.fixture(params=ISOLATING)
def through(request: pytest.FixtureRequest) -> Runner:
    """A runner through each isolating route in turn (skipped where it cannot run)."""
    return _runner_for(request.param)


@pytest.fixture
def through_bubblewrap() -> Runner:
    return _runner_for("bubblewrap")


@pytest.fixture
def protected_dir() -> Iterator[Path]:
    """A folder only root may enter, outside any scratch folder (under the host /tmp)."""
    folder = Path(tempfile.mkdtemp(prefix="jig-protected-"))
    folder.chmod(0o700)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


# -- the host's shared state, before and after a hostile run --------------------------------

SYSCTLS = (
    "kernel/core_pattern",
    "kernel/hostname",
    "kernel/domainname",
    "kernel/shm_rmid_forced",
    "kernel/randomize_va_space",
    "vm/overcommit_memory",
    "user/max_user_namespaces",
)


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError as error:
        return f"unreadable: {error.strerror}"


@dataclasses.dataclass(frozen=True)
class HostState:
    """What a checker must not change on the host: kernel settings, keys, System V IPC
    objects, jig's cgroups and stage folders, files in /dev/shm.

    Only what this test's own run could have left is compared, so that it holds while other
    jig runs are active on the machine (another suite, a shared CI runner): the IPC keys and
    /dev/shm names the hostile checkers use, and jig's cgroups and stages whose owner is this
    process or gone (a live foreign owner's are its own business). Keys cannot be told
    apart by run: they are compared only when no other jig run is active."""

    sysctls: tuple[tuple[str, str], ...]
    keys: dict[str, int]  # uid → keys it owns (/proc/key-users)
    ipc: tuple[str, ...]
    cgroups: tuple[str, ...]
    shm: tuple[str, ...]
    stages: tuple[str, ...]  # jig's own temporary folders
    others_active: bool = False  # a jig run of another live process was seen

    @classmethod
    def now(cls) -> HostState:
        from jigcli.sandbox import cgroups

        points = {
            point
            for c in (cgroups.PIDS, cgroups.MEMORY)
            if (point := cgroups.hierarchy(c)) is not None
        }
        runs = [path for point in points for path in point.glob("jig-sandbox-*")]
        stages = list(Path(tempfile.gettempdir()).glob("jig-sandbox-*"))
        return cls(
            sysctls=tuple((name, _read(f"/proc/sys/{name}")) for name in SYSCTLS),
            keys=_keys(),
            ipc=tuple(
                _hostile_ipc(_read(f"/proc/sysvipc/{kind}")) for kind in ("shm", "msg", "sem")
            ),
            cgroups=tuple(sorted(str(path) for path in runs if _ours_or_orphaned(path))),
            shm=tuple(sorted(name for name in _listdir("/dev/shm") if "jig-hostile-" in name)),
            stages=tuple(sorted(str(path) for path in stages if _ours_or_orphaned(path))),
            others_active=any(not _ours_or_orphaned(path) for path in (*runs, *stages)),
        )


NOBODY_UID = "65534"


def _keys() -> dict[str, int]:
    keys = {}
    for line in _read("/proc/key-users").splitlines():
        uid, _, counts = line.partition(":")
        if counts.split():
            keys[uid.strip()] = int(counts.split()[1].split("/")[0])
    return keys


def _listdir(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except OSError:
        return []


# The System V IPC keys the hostile checkers use (kernel_state.py: 0x4A160000 + pid % 4096).
_HOSTILE_IPC = range(0x4A160000, 0x4A161000)


def _hostile_ipc(table: str) -> str:
    lines = table.splitlines()[1:]
    return "\n".join(
        line for line in lines if line.split() and _int(line.split()[0]) in _HOSTILE_IPC
    )


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return -1


def _ours_or_orphaned(path: Path) -> bool:
    """Whether a jig-sandbox-… name belongs to this process or to a jig that is gone."""
    from jigcli.sandbox import owner

    # A name of another form is another jig's (an older one's, whose stages had no owner).
    return owner.owner_of(path.name) is not None and (
        owner.mine(path.name) or owner.gone(path.name)
    )


def available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return 0.0


def memory_back_to(floor_mb: float, within_sec: float = 5.0) -> bool:
    """Whether the host's available memory is above `floor_mb`, waiting up to `within_sec`
    for it: the kernel frees a killed process's pages (and a removed cgroup's) a moment
    after the process is reaped, and a loaded machine makes that moment longer."""
    deadline = time.monotonic() + within_sec
    while available_mb() <= floor_mb:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


@pytest.fixture
def host_unchanged() -> Iterator[Callable[[], None]]:
    """A check that the host's shared state is as it was when the test began (keys the
    kernel frees a moment after their namespace dies are given that moment)."""
    before = HostState.now()

    busy = [before.others_active]

    def held(after: HostState) -> bool:
        # The kernel frees a dead run's keyring asynchronously: `before` may still count one.
        # Every jig run as root makes a session keyring of uid 0, so only nobody's count,
        # which a checker's planted key would raise, is compared, and only on a quiet host.
        busy[0] = busy[0] or after.others_active
        keys = after.keys.get(NOBODY_UID, 0) <= before.keys.get(NOBODY_UID, 0) or busy[0]
        same = dataclasses.replace(after, keys=before.keys, others_active=before.others_active)
        return keys and same == before

    def check() -> None:
        deadline = time.monotonic() + 10
        while not held(after := HostState.now()) and time.monotonic() < deadline:
            time.sleep(0.2)
        changed = {
            name: (getattr(before, name), getattr(after, name))
            for name in ("sysctls", "ipc", "cgroups", "shm", "stages")
            if getattr(before, name) != getattr(after, name)
        }
        assert held(after), (changed, before.keys, after.keys, busy[0])

    yield check
