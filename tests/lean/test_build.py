"""A hostile submission's build, contained by the real sandbox: the submission's code runs at
build time (the stand-in `lean`'s `build_script`, a shell script standing for a macro or an
`initialize` of the submission), through `jig`'s whole Lean pipeline, as the user running the
tests (root on the machines jig is developed on) and as nobody; the host is checked after each
run. Where a way of running cannot work here, its tests are skipped, saying why."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import socket
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from jigcli.lean import backend, build
from jigcli.repo import Repo
from jigcli.sandbox.cgroups import memory_cap
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

from ..conftest import LEAN_CONTENT, NOBODY, PINS, REPO, STANDIN_BIN, run_as_nobody

ALICE = "Submissions/S001/AliceDirect.json"
MODULE = "Submissions.S001.AliceDirect"
SYSTEM_PYTHON = Path("/usr/bin/python3")
MATHLIB_OLEAN = ".lake/packages/mathlib/.lake/build/lib/lean/Mathlib/Logic/Basic.olean"


@dataclass
class Built:
    """One verification whose build ran the scenario's code: the verdict, the stand-in's log."""

    verdict: dict[str, Any]
    calls: list[dict[str, Any]]

    @property
    def said(self) -> str:
        """What the build printed (the submission's code prints what it managed to do)."""
        return str(self.verdict["checks"]["build"].get("output") or "")


@dataclass
class Builder:
    """Verifies `Submissions/S001/AliceDirect.json` in `root` (a copy of this repo's Lean
    content) with a scenario, as `user`."""

    user: str
    root: Path
    run: Callable[[dict[str, Any], dict[str, int]], Built]

    def __call__(self, scenario: dict[str, Any], limits: dict[str, int] | None = None) -> Built:
        return self.run(scenario, limits or {})


def _seed(root: Path) -> None:
    """What a real repo has besides its sources: Mathlib's cache, a verdict from CI."""
    olean = root / MATHLIB_OLEAN
    olean.parent.mkdir(parents=True)
    olean.write_text(json.dumps({"standin": "olean", "module": "Mathlib.Logic.Basic"}))
    (root / "verdicts").mkdir()
    (root / "verdicts" / "verdict.json").write_text('{"verdict": "red"}')


def _as_invoker(standin: Any, root: Path, monkeypatch: pytest.MonkeyPatch) -> Builder:
    def run(scenario: dict[str, Any], limits: dict[str, int]) -> Built:
        standin.scenario(scenario)
        for name, value in limits.items():
            monkeypatch.setattr(build, name, value)
        repo = Repo(root)
        verdict = verify(root / ALICE, repo, VerifyOptions(timeout=60)).to_json()
        return Built(verdict, standin.calls())

    return Builder("root" if os.geteuid() == 0 else "invoker", root, run)


def _as_nobody(base: Path, site: Path) -> Builder:
    root = base / "repo"
    scenario_path, log = base / "standin-scenario.json", base / "standin-log.jsonl"

    def run(scenario: dict[str, Any], limits: dict[str, int]) -> Built:
        scenario_path.write_text(json.dumps(scenario))
        log.unlink(missing_ok=True)
        request = {
            "path": [str(REPO), str(site)],
            "root": str(root),
            "manifest": ALICE,
            "timeout": 60,
            "limits": limits,
        }
        (base / "request.json").write_text(json.dumps(request))
        for path in (scenario_path, base / "request.json"):
            os.chown(path, NOBODY, NOBODY)
        helper = Path(__file__).with_name("verify_as_nobody.py")
        done = run_as_nobody(
            [str(SYSTEM_PYTHON), str(helper), str(base / "request.json")],
            env={
                "PATH": f"{STANDIN_BIN}:/usr/bin:/bin",
                "JIG_STANDIN_SCENARIO": str(scenario_path),
                "JIG_STANDIN_LOG": str(log),
                "ELAN_HOME": str(base / "no-elan"),
                "HOME": str(base),
            },
        )
        assert done.returncode == 0, done.stderr
        lines = log.read_text().splitlines() if log.exists() else []
        return Built(json.loads(done.stdout), [json.loads(line) for line in lines])

    return Builder("nobody", root, run)


def _readable_by_everyone(path: Path) -> bool:
    return all(part.stat().st_mode & 0o005 == 0o005 for part in (path, *path.parents))


@pytest.fixture(params=["invoker", "nobody"])
def builder(
    request: pytest.FixtureRequest,
    confined: None,
    standin: Any,
    lean_repo: Repo,
    monkeypatch: pytest.MonkeyPatch,
    nobody_site: Path,
) -> Iterator[Builder]:
    if request.param == "invoker":
        _seed(lean_repo.root)
        yield _as_invoker(standin, lean_repo.root, monkeypatch)
        return
    if os.geteuid() != 0:
        pytest.skip("only root can start the verification as nobody")
    if shutil.which("setpriv") is None or not SYSTEM_PYTHON.exists():
        pytest.skip("running as nobody needs setpriv and a system python3")
    if not _readable_by_everyone(REPO / "jigcli") or not _readable_by_everyone(STANDIN_BIN):
        pytest.skip(f"nobody cannot read {REPO}, so cannot run jig")
    base = Path(tempfile.mkdtemp(prefix="jig-nobody-lean-"))
    try:
        base.chmod(0o755)
        root = base / "repo"
        root.mkdir()
        for name in PINS:
            shutil.copy2(REPO / name, root / name)
        for folder in LEAN_CONTENT:
            ignore = shutil.ignore_patterns(".lake", "__pycache__")
            shutil.copytree(REPO / folder, root / folder, ignore=ignore)
        _seed(root)
        for path in (base, *base.rglob("*")):  # nobody's own repo: only the sandbox protects it
            os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
        yield _as_nobody(base, nobody_site)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _token() -> str:
    return f"jig-hostile-build-{secrets.token_hex(6)}"


def _protected(root: Path) -> list[Path]:
    """What a build must never write: the trusted .olean files the judge imports, Mathlib's,
    the judge, a verdict, jig's own folder, and the repo's sources and pins."""
    return [
        root / ".lake/build/lib/lean/Statements/S001.olean",
        root / ".lake/build/lib/lean/Commons/Basic.olean",
        root / MATHLIB_OLEAN,
        root / ".lake/build/bin/jig_judge",
        root / "verdicts/verdict.json",
        root / ".jig/verdicts/Submissions/S001/AliceDirect.json",
        root / "Submissions/S001/AliceDirect.lean",
        root / "Statements/S001.lean",
        root / "lakefile.toml",
    ]


def _try_writing(paths: list[Path | str]) -> str:
    """A script that writes `forged` into each path (its folders made first), saying which."""
    lines = []
    for path in map(str, paths):
        quoted = shlex.quote(path)
        lines.append(
            f'if mkdir -p "$(dirname {quoted})" 2>/dev/null && echo forged > {quoted}; '
            f"then echo 'WROTE {path}'; else echo 'REFUSED {path}'; fi"
        )
    return "\n".join(lines)


# -- files ------------------------------------------------------------------------------------


def test_a_build_writes_nothing_of_the_host_but_its_own_folder(builder):
    root = builder.root
    tmp = Path("/tmp") / _token()
    targets = [*_protected(root), tmp, f"{root}/.jig/work/planted.json", "/escape.txt"]
    built = builder({"build_script": _try_writing(targets)})
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    assert "WROTE" not in built.said and built.said.count("REFUSED") == len(targets)
    for path in _protected(root):
        assert not path.exists() or "forged" not in path.read_text(errors="replace"), path
    assert not tmp.exists() and not (root / ".jig/work/planted.json").exists()


def test_a_build_cannot_plant_the_folder_the_export_is_written_to(builder):
    # `$OUT/..` holds, once the build is over, the folder the export step writes.
    script = (
        'if mkdir "$OUT/../export" && echo forged > "$OUT/../export/export.ndjson"; '
        "then echo WROTE; else echo REFUSED; fi"
    )
    built = builder({"build_script": script})
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    assert "REFUSED" in built.said and "WROTE" not in built.said


def test_what_a_build_plants_in_its_own_folder_never_reaches_the_judges_search_path(builder):
    planted = ["Statements/S001.olean", "Mathlib/Logic/Basic.olean", "Commons/Basic.olean"]
    script = "\n".join(
        f'mkdir -p "$OUT/$(dirname {p})" && echo forged > "$OUT/{p}" && echo "PLANTED {p}"'
        for p in planted
    )
    built = builder({"build_script": script})
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    assert built.said.count("PLANTED") == len(planted)  # its own folder is its to write
    (judge,) = [call for call in built.calls if call["tool"] == "jig_judge"]
    assert "--olean" not in judge["argv"]
    export = Path(judge["argv"][judge["argv"].index("--export") + 1])
    assert export.name == "export.ndjson" and not export.is_relative_to(builder.root)
    search = [Path(folder) for folder in judge["lean_path"].split(os.pathsep)]
    assert all(folder.is_relative_to(builder.root) for folder in search)
    assert "/tmp/" not in judge["lean_path"].replace(str(builder.root), "")


# -- what a build's code can make of the export ---------------------------------------------------

ATTACKS = REPO / "tests" / "data" / "lean" / "attacks" / "build"


def _attack(name: str) -> str:
    """The hostile build `name` (tests/data/lean/attacks/build/), after its planting helper."""
    return (ATTACKS / "_plant.sh").read_text() + (ATTACKS / f"{name}.sh").read_text()


@pytest.mark.parametrize(
    ("attack", "said"),
    [
        ("crafted-export", "line 2 of the export refers to an expression not defined before it"),
        ("huge-export", "is 300000000 bytes; at most 268435456 are read"),
        ("other-module-export", "the export is of module 'Submissions.S001.BobParity'"),
        ("truncated-export", "the export is truncated"),
        ("linked-export", "lies behind, a symbolic link"),
        ("planted-fifo-part", "jig_export exited 1"),
    ],
)
def test_an_export_a_build_made_unusable_is_a_verifier_error_and_no_judge_runs(
    builder, attack, said
):
    built = builder({"build_script": _attack(attack)})
    assert "PLANTED" in built.said
    assert built.verdict["reason"] == "verifier_error", built.verdict["detail"]
    assert built.verdict["verdict"] == "red"
    export = built.verdict["checks"]["export"]
    assert export["ok"] is False and said in export["detail"], export["detail"]
    assert built.verdict["checks"]["build"]["ok"] is True
    assert not [c for c in built.calls if c["tool"] == "jig_judge"]


def test_a_planted_part_linking_a_trusted_module_is_judged_as_the_modules_own_constants(builder):
    # The exporter follows the link as Lean's importer does; what it read is exported as the
    # module's own, and the judge finds the statement redeclared, never a green.
    built = builder({"build_script": _attack("planted-statement-part")})
    assert "PLANTED link" in built.said
    assert built.verdict["reason"] == "shadowed_statement", built.verdict["detail"]
    (judge,) = [call for call in built.calls if call["tool"] == "jig_judge"]
    assert "--olean" not in judge["argv"]


def test_a_build_sees_neither_the_judge_nor_jigs_folder_nor_a_home(builder):
    root = builder.root
    looks = [
        root / ".lake/build/bin/jig_judge",
        root / ".jig",
        root / "Submissions/S001/AliceDirect.lean",
        Path("/root"),
        Path("/home"),
        Path("/tmp"),
    ]
    (root / ".jig").mkdir(exist_ok=True)
    os.chown(root / ".jig", root.stat().st_uid, root.stat().st_gid)  # the repo's owner's
    script = "\n".join(
        f"if [ -e {shlex.quote(str(p))} ]; then echo 'SEEN {p}'; else echo 'UNSEEN {p}'; fi"
        for p in looks
    )
    built = builder({"build_script": script + "\nls -a /"})
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    for path in looks:
        if path == Path("/tmp") and root.is_relative_to("/tmp"):
            continue  # a view under /tmp makes /tmp a read-only folder of the sandbox's own
        assert f"UNSEEN {path}" in built.said, built.said


# -- network, privileges, processes -----------------------------------------------------------


def test_a_build_cannot_reach_the_network(builder):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        script = (
            'python3 -c "import socket\n'
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n"
            "    print('CONNECTED')\n"
            "except OSError as e:\n"
            "    print('NO NETWORK', type(e).__name__)\""
        )
        built = builder({"build_script": script})
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    assert "NO NETWORK" in built.said and "CONNECTED" not in built.said


def test_a_build_holds_no_capability_and_is_not_root_inside(builder):
    built = builder({"build_script": "grep -E '^(CapEff|NoNewPrivs)' /proc/self/status; id -u"})
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    assert "CapEff:\t0000000000000000" in built.said
    assert "NoNewPrivs:\t1" in built.said
    assert f"\n{NOBODY}" in built.said


def test_nothing_a_build_started_survives_it(builder, survivors):
    marker = _token()
    script = (
        f"setsid /bin/sh -c 'sleep 300; : {marker}' </dev/null >/dev/null 2>&1 &\n"
        f"( /bin/sh -c 'sleep 300; : {marker}' & ) </dev/null >/dev/null 2>&1\n"
        "echo STARTED"
    )
    built = builder({"build_script": script})
    assert built.verdict["reason"] == "ok", built.verdict["detail"]
    assert "STARTED" in built.said
    assert survivors(marker) == []


def test_a_fork_storm_is_held_at_the_builds_process_cap(builder, survivors):
    marker = _token()
    # The storm runs in a subshell forked before it starts, and the shell then uses only
    # builtins: dash gives up on a failed fork of its own, and once the cap is reached no
    # process is left for a `sort` or a `cat`.
    script = (
        "( i=0; while [ $i -lt 80 ]; do "
        f"/bin/sh -c 'sleep 30; : {marker}' & i=$((i + 1)); done ) >/dev/shm/storm 2>&1\n"
        'read -r said </dev/shm/storm; echo "$said"\n'
        "echo STORMED"
    )
    built = builder({"build_script": script}, {"PROCESSES": 24})
    assert "Cannot fork" in built.said and "STORMED" in built.said
    assert built.verdict["reason"] == "ok", built.verdict["detail"]  # Lean itself went on
    assert survivors(marker) == []


def test_a_build_past_its_memory_budget_fails_without_touching_the_host(builder):
    if not memory_cap().capped or builder.user == "nobody":
        pytest.skip("no memory cgroup for this user here: " + memory_cap().why)
    script = "python3 -c 'x = bytearray(400 * 1024 * 1024); print(\"ALLOCATED\", len(x))'"
    built = builder({"build_script": script}, {"MEMORY_MB": 128})
    assert built.verdict["reason"] == "build_failed"
    assert "killed at its memory limit of 128 MB" in built.verdict["detail"]
    assert "ALLOCATED" not in built.said


# -- the view, without running anything -------------------------------------------------------


def test_the_view_hides_jigs_folder_and_the_judge_should_the_search_path_hold_them(lean_repo):
    root = lean_repo.root
    (root / ".jig").mkdir()
    (root / ".lake/build/bin").mkdir(parents=True)
    paths = backend.LeanPaths(Path("/opt/lean"), (root / ".lake/build/lib/lean", root))
    view = build.view(paths, lean_repo)
    assert view.read_only == (Path("/opt/lean"), root / ".lake/build/lib/lean", root)
    assert set(view.hidden) == {root / ".jig", root / ".lake/build/bin"}
    assert view.writable == ()
    usual = backend.LeanPaths(Path("/opt/lean"), (root / ".lake/build/lib/lean",))
    assert build.view(usual, lean_repo).hidden == ()


def test_the_builds_limits_leave_address_space_to_the_memory_cgroup():
    limits = build.limits(900)
    assert limits.address_space_mb is None and limits.memory_mb == build.MEMORY_MB
    assert limits.processes == build.PROCESSES and limits.wall_sec == 900
    assert limits.cpu_sec > 900  # the wall clock, not RLIMIT_CPU, bounds a many-threaded Lean
