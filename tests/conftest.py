"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def _jig_cache_in_a_temporary_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """jig's cache (build records, remembered engines, confined builds) for this test session
    only, never the user's own; a test that sets `JIG_CACHE_DIR` itself still wins."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JIG_CACHE_DIR", str(tmp_path_factory.mktemp("jig-cache")))
        yield


@pytest.fixture(autouse=True, scope="session")
def _not_under_github_actions() -> Iterator[None]:
    """The tests see no GITHUB_* variable, so a run under GitHub Actions behaves as a run
    anywhere else (no step summary written, no `--format github` chosen for them); a test
    that sets one itself still wins."""
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("GITHUB_")]:
            patch.delenv(name)
        yield


def _pid_alive(pid: int) -> bool:
    """True while `pid` runs. A zombie is dead: PID 1 here may never reap orphans."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((line for line in status.splitlines() if line.startswith("State:")), "")
    return "Z" not in state.split(":", 1)[-1].split()[:1]


NOBODY = 65534


def git_repo(folder: Path) -> Any:
    """A new git repository (GitPython's `Repo`) at `folder` that commits as a poser of its
    own, so no test depends on the machine's git identity."""
    import git

    repo = git.Repo.init(folder)
    with repo.config_writer() as config:
        config.set_value("user", "name", "Poser")
        config.set_value("user", "email", "poser@example.org")
    return repo


def seeded_git_repo(folder: Path, files: tuple[str, ...]) -> Any:
    """`git_repo(folder)` holding `files` (paths relative to this repo's root, copied from
    it), committed once as "Seed"."""
    for rel in files:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, folder / rel)
    repo = git_repo(folder)
    repo.git.add("--all")
    repo.git.commit("-m", "Seed")
    return repo


def run_as_nobody(argv: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `argv` as the host's nobody (needs root and setpriv): how the tests check what holds
    for an unprivileged user on a machine where they run as root."""
    drop = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.run(
        [*drop, *argv], capture_output=True, text=True, timeout=120, env=env, check=False
    )


def _requirement_closure(name: str, seen: set[str]) -> set[str]:
    """The distributions `name` needs at run time, itself included (extras left out)."""
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in seen:
        return seen
    seen.add(key)
    try:
        requires = metadata.distribution(name).requires or []
    except metadata.PackageNotFoundError:
        return seen
    for requirement in requires:
        if "extra ==" not in requirement:
            _requirement_closure(re.split(r"[\s;<>=!~\[(]", requirement, maxsplit=1)[0], seen)
    return seen


@pytest.fixture(scope="session")
def nobody_site() -> Iterator[Path]:
    """A folder the host's nobody can import jig's dependencies from: a copy of each one's
    top-level packages (this interpreter's site-packages may sit in a home nobody cannot
    enter, as pyenv's does under /root). Outside pytest's own temporary folders, which only
    their owner may enter."""
    folder = Path(tempfile.mkdtemp(prefix="jig-nobody-site-"))
    needed = _requirement_closure("jig", set())
    for top, distributions in metadata.packages_distributions().items():
        wanted = any(re.sub(r"[-_.]+", "-", name).lower() in needed for name in distributions)
        spec = importlib.util.find_spec(top) if wanted and top != "jigcli" else None
        if spec is None or spec.origin is None:
            continue
        origin = Path(spec.origin)
        if origin.name == "__init__.py":
            shutil.copytree(origin.parent, folder / top, ignore=shutil.ignore_patterns("*.pyc"))
        else:
            shutil.copy2(origin, folder / origin.name)
    for path in (folder, *folder.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


PINS = ("lean-toolchain", "lakefile.toml", "lake-manifest.json")
LEAN_CONTENT = ("Commons", "Statements", "Submissions")


@pytest.fixture
def confined() -> None:
    """Skip, saying why, where no sandbox here can confine a Lean step's files (bubblewrap)."""
    from jigcli.lean.comparator.sandbox import describe_for

    found = describe_for(None)
    if found["route"] is None:
        pytest.skip(f"no sandbox here confines a Lean step: {found['why']}")


@pytest.fixture
def sandboxed() -> None:
    """Skip, with each route's reason, where no isolation route can run a checker here."""
    from jigcli.certificates import isolation

    python = isolation.default_python()
    if isolation.choose(python) is None:
        pytest.skip("no isolation route works here: " + isolation.refusal(python))


@pytest.fixture
def copy_repo(tmp_path: Path) -> Callable[..., Path]:
    """`copy_repo(*folders)`: this repo's pins and `folders` (default: the Lean content) in a
    temporary folder, so a test can write evidence and verdicts without touching the tree."""

    def copy(*folders: str) -> Path:
        root = tmp_path / "repo"
        root.mkdir(exist_ok=True)
        for name in PINS:
            shutil.copy2(REPO / name, root / name)
        for folder in folders or LEAN_CONTENT:
            ignore = shutil.ignore_patterns(".lake", "__pycache__")
            shutil.copytree(REPO / folder, root / folder, ignore=ignore)
        return root

    return copy


@pytest.fixture
def pid_alive() -> Callable[[int], bool]:
    return _pid_alive


def _gone_within(pid: int, seconds: float = 5.0) -> bool:
    """Whether `pid` is dead by `seconds` from now (a SIGKILL sent needs the kernel a moment)."""
    deadline = time.monotonic() + seconds
    while _pid_alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def gone_within() -> Callable[..., bool]:
    return _gone_within


@pytest.fixture
def survivors(pid_alive: Callable[[int], bool]) -> Callable[[str], list[int]]:
    """Live host processes whose command line carries `token`."""

    def find(token: str) -> list[int]:
        alive = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmdline and pid_alive(int(entry.name)):
                alive.append(int(entry.name))
        return alive

    return find


# -- the stand-in Lean toolchain (tests/standin/) ---------------------------------------------

STANDIN_BIN = Path(__file__).resolve().parent / "standin" / "bin"
# Everything a stand-in needs besides itself (python3, sleep), and no real Lean.
_BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


class Standin:
    """Puts the stand-in `lake`/`lean` first on PATH for one test, with a
    scenario it answers from and a log of every invocation (see tests/standin/standin.py)."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self.scenario_path = tmp_path / "standin-scenario.json"
        self.log_path = tmp_path / "standin-log.jsonl"
        self.monkeypatch = monkeypatch
        self.scenario({})
        monkeypatch.setenv("JIG_STANDIN_SCENARIO", str(self.scenario_path))
        monkeypatch.setenv("JIG_STANDIN_LOG", str(self.log_path))
        monkeypatch.setenv("ELAN_HOME", str(tmp_path / "no-elan"))
        self.install()

    def install(self) -> None:
        self.monkeypatch.setenv("PATH", f"{STANDIN_BIN}{os.pathsep}{_BASE_PATH}")

    def uninstall(self) -> None:
        """No Lean at all on PATH (and no ~/.elan/bin)."""
        self.monkeypatch.setenv("PATH", _BASE_PATH)

    def scenario(self, data: dict[str, object]) -> None:
        self.scenario_path.write_text(json.dumps(data), encoding="utf-8")

    def calls(self) -> list[dict[str, object]]:
        if not self.log_path.exists():
            return []
        lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines if line.strip()]

    def count(self, tool: str, first_arg: str | None = None) -> int:
        return len(
            [
                call
                for call in self.calls()
                if call["tool"] == tool
                and (first_arg is None or (call["argv"] or [None])[0] == first_arg)  # type: ignore[index]
            ]
        )


@pytest.fixture
def standin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Standin:
    return Standin(tmp_path, monkeypatch)
