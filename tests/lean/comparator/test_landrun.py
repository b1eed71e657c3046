"""jig's `$COMPARATOR_LANDRUN`: comparator's three call shapes at `v4.33.0` run in the sandbox,
every other call is refused before anything runs, and a step sees only what its call names."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jigcli.lean.comparator import landrun
from jigcli.lean.comparator.landrun import Refused

from .layout import ENV_BUILD, SYSTEM_PYTHON, Layout, lake, launch


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    return Layout(tmp_path)


@pytest.fixture(params=["this-user", "nobody"])
def user_layout(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Layout]:
    """A layout run by this user, and (from root) by the unprivileged nobody with the system
    interpreter, outside pytest's folders (which only their owner may enter)."""
    if request.param == "this-user":
        yield Layout(tmp_path)
        return
    if os.geteuid() != 0 or not SYSTEM_PYTHON.exists() or not shutil.which("setpriv"):
        pytest.skip("running a step as nobody needs root, setpriv and a system python3")
    site = request.getfixturevalue("nobody_site")
    root = Path(tempfile.mkdtemp(prefix="jig-landrun-"))
    root.chmod(0o755)
    try:
        found = Layout(root)
        found.as_nobody = site
        yield found
    finally:
        shutil.rmtree(root, ignore_errors=True)


# -- what is refused, before anything runs --------------------------------------------------


def test_comparators_three_shapes_are_read_as_build_and_export(layout):
    control = layout.control_file()
    assert landrun.kind(landrun.parse(layout.build_args()), control) == "build"
    assert landrun.kind(landrun.parse(layout.export_args()), control) == "export"
    ignoring = landrun.parse(layout.export_args("--ignore-missing"))
    assert landrun.kind(ignoring, control) == "export"


def test_nanoda_is_run_only_on_its_own_configuration_file(layout, tmp_path):
    nanoda = layout.toolchain / "bin" / "nanoda_bin"
    nanoda.write_text("#!/bin/sh\n")
    config = tmp_path / "nanoda.json"
    config.write_text("{}")
    control = layout.control_file(nanoda=str(nanoda))
    call = [*landrun.PREFIX, "--ro", str(config), "--", str(nanoda), str(config)]
    assert landrun.kind(landrun.parse(call), control) == "nanoda"
    other = [*landrun.PREFIX, "--ro", str(config), "--", str(nanoda), str(layout.home / "secret")]
    with pytest.raises(Refused, match="configuration file"):
        landrun.kind(landrun.parse(other), control)
    linked = tmp_path / "linked.json"
    linked.symlink_to(layout.home / "secret")
    call = [*landrun.PREFIX, "--ro", str(linked), "--", str(nanoda), str(linked)]
    with pytest.raises(Refused, match="regular file"):
        landrun.kind(landrun.parse(call), control)


@pytest.mark.parametrize(
    "prefix",
    [
        [],
        ["--ro", "/", "--rw", "/dev", "-ldd", "-add-exec"],  # no --best-effort
        ["--best-effort", "--rw", "/", "--rw", "/dev", "-ldd", "-add-exec"],
    ],
)
def test_a_call_without_comparators_prefix_is_refused(layout, prefix):
    args = [*prefix, *layout.build_args()[len(landrun.PREFIX) :]]
    with pytest.raises(Refused, match="does not begin"):
        landrun.parse(args)


@pytest.mark.parametrize(
    "extra",
    [
        ["--rw", "/"],  # landrun's read-write flag: comparator never passes it
        ["--unrestricted-network"],
        ["--ro"],  # a flag with no path
    ],
)
def test_a_flag_comparator_does_not_pass_is_refused(layout, extra):
    args = layout.build_args()
    at = args.index("--")
    with pytest.raises(Refused):
        landrun.parse([*args[:at], *extra, *args[at:]])


def test_a_relative_or_dotted_path_is_refused(layout):
    args = layout.build_args()
    for path in ("project", f"{layout.project}/../../home"):
        changed = list(args)
        changed[changed.index(str(layout.project))] = path
        with pytest.raises(Refused, match="absolute path"):
            landrun.parse(changed)


def test_a_build_asking_for_more_than_comparator_names_is_refused(layout):
    control = layout.control_file()
    cases = {
        "an unlisted module": layout.build_args("Submissions.S001.Other"),
        "the home folder": [
            *layout.build_args()[: layout.build_args().index("--")],
            "--rox",
            str(layout.home),
            *layout.build_args()[layout.build_args().index("--") :],
        ],
        "a passed secret": [
            *landrun.PREFIX,
            *ENV_BUILD,
            "--env",
            "GITHUB_TOKEN",
            *layout.build_args()[len(landrun.PREFIX) + len(ENV_BUILD) :],
        ],
        "a writable project": [
            arg if arg != str(layout.dot_lake) else str(layout.project)
            for arg in layout.build_args()
        ],
        "another program": [*layout.build_args()[:-3], "sh", "-c", "id"],
        "lake env": [*layout.build_args()[:-2], "env", "sh"],
    }
    for case, args in cases.items():
        with pytest.raises(Refused):
            landrun.kind(landrun.parse(args), control)
            pytest.fail(case)


def test_an_export_with_flags_or_an_unlisted_module_is_refused(layout):
    control = layout.control_file()
    for flags in (("--export-unsafe",), ("--ignore-missing", "--out", "/tmp/x")):
        with pytest.raises(Refused, match="flags"):
            landrun.kind(landrun.parse(layout.export_args(*flags)), control)
    other = [arg if arg != "JigChallenge" else "JigSolution" for arg in layout.export_args()]
    with pytest.raises(Refused, match="does not export"):
        landrun.kind(landrun.parse(other), control)
    dashed = [*layout.export_args(), "--dump"]
    with pytest.raises(Refused):
        landrun.kind(landrun.parse(dashed), control)


def test_a_refused_call_exits_126_and_is_logged_with_its_reason(layout, capsys):
    layout.control_file()
    args = ["--control", str(layout.control), *layout.build_args("Evil")]
    assert landrun.main(args) == landrun.REFUSED
    assert "jig-landrun: refused:" in capsys.readouterr().err
    (entry,) = landrun.read_log(layout.control)
    assert entry["step"] == "refused" and "Evil" in str(entry["why"])


def test_a_missing_or_damaged_control_file_refuses_every_call(layout):
    assert landrun.main(["--control", str(layout.control), *layout.build_args()]) == 126
    (layout.control / landrun.CONTROL_NAME).write_text("{not json")
    assert landrun.main(["--control", str(layout.control), *layout.build_args()]) == 126


def test_a_call_after_the_deadline_is_a_timeout_and_runs_nothing(layout):
    layout.control_file(deadline=time.time() - 1)
    marker = layout.root / "ran"
    lake(layout, f"touch {marker}")
    status = landrun.main(["--control", str(layout.control), *layout.build_args()])
    assert status == landrun.OUT_OF_TIME and not marker.exists()
    assert landrun.read_log(layout.control)[-1]["ended"] == "timeout"


def test_the_control_file_is_written_once_and_private(layout):
    layout.control_file()
    path = layout.control / landrun.CONTROL_NAME
    assert path.stat().st_mode & 0o777 == 0o600
    with pytest.raises(FileExistsError):
        layout.control_file()


# -- what a step sees, with real bubblewrap -------------------------------------------------


PROBES = """
try() {{ if eval "$2" >/dev/null 2>&1; then echo "$1=yes"; else echo "$1=no"; fi; }}
try home_read "cat $HOME/secret"
try home_list "ls $HOME"
try git_read "cat {repo}/.git/config"
try control_read "cat {control}/landrun.json"
try project_read "cat {project}/JigChallenge.lean"
try project_write "echo x > {project}/new.lean"
try lake_write "mkdir -p {dot_lake}/build && echo x > {dot_lake}/build/out"
try packages_read "cat {dot_lake}/packages/mathlib/Mathlib.olean"
try packages_write "echo x > {dot_lake}/packages/mathlib/Mathlib.olean"
try tmp_write "echo x > /tmp/left"
try token "test -n \\"$GITHUB_TOKEN\\""
try network "exec 3<>/dev/tcp/1.1.1.1/53"
echo "panic=$LEAN_ABORT_ON_PANIC"
"""


def test_a_build_sees_its_project_and_writes_only_its_own_lake(user_layout, confined):
    layout = user_layout
    Path("/tmp/left").unlink(missing_ok=True)
    layout.control_file()
    probes = PROBES.format(
        repo=layout.repo, control=layout.control, project=layout.project, dot_lake=layout.dot_lake
    )
    script = layout.toolchain / "bin" / "probes.sh"
    script.write_text(probes)
    lake(layout, f"exec /bin/bash {script}")
    done = launch(layout, layout.build_args())
    assert done.returncode == 0, done.stderr
    seen = dict(line.split("=", 1) for line in done.stdout.split())
    assert seen == {
        "home_read": "no",
        "home_list": "no",
        "git_read": "no",
        "control_read": "no",
        "project_read": "yes",
        "project_write": "no",
        "lake_write": "yes",
        "packages_read": "yes",
        "packages_write": "no",
        "tmp_write": "no",
        "token": "no",
        "network": "no",
        "panic": "1",
    }
    assert (layout.dot_lake / "build" / "out").read_text() == "x\n"
    assert not (layout.project / "new.lean").exists()
    assert (layout.packages / "mathlib" / "Mathlib.olean").read_text() == "trusted\n"
    assert not Path("/tmp/left").exists()
    (entry,) = landrun.read_log(layout.control)
    assert entry["step"] == "build" and entry["exit"] == 0 and entry["ended"] == "exit"
    assert entry["seccomp"] is True


def test_an_export_cannot_write_even_its_lake(user_layout, confined):
    layout = user_layout
    layout.control_file()
    layout.lean4export.write_text(
        f"#!/bin/sh\necho x > {layout.dot_lake}/forged 2>/dev/null && echo wrote\necho read\n"
    )
    done = launch(layout, layout.export_args())
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["read"]
    assert not (layout.dot_lake / "forged").exists()
    assert landrun.read_log(layout.control)[0]["step"] == "export"


def test_the_steps_exit_status_and_a_signal_reach_comparator(layout, confined):
    layout.control_file()
    lake(layout, "exit 7")
    assert launch(layout, layout.build_args()).returncode == 7
    lake(layout, "kill -9 $$")
    assert launch(layout, layout.build_args()).returncode == 128 + 9
    entries = landrun.read_log(layout.control)
    assert [entry["exit"] for entry in entries] == [7, None]
    assert entries[1]["signal"] == 9


def test_a_refused_call_through_the_launcher_runs_nothing(layout):
    layout.control_file()
    marker = layout.root / "ran"
    lake(layout, f"touch {marker}")
    done = launch(layout, layout.build_args("Other"))
    assert done.returncode == 126 and "refused" in done.stderr
    assert not marker.exists()


def test_the_launcher_ignores_python_files_in_the_project_folder(layout):
    """The launcher runs with the project as its working folder, where the submission's files
    are: a `jigcli` package planted there must not be what it imports."""
    planted = layout.project / "jigcli"
    planted.mkdir()
    (planted / "__init__.py").write_text("raise SystemExit(0)\n")
    layout.control_file()
    done = launch(layout, layout.build_args("Other"))
    assert done.returncode == 126
    assert os.path.isdir(planted)
