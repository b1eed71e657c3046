"""Real Lean 4.35 built through jig's `$COMPARATOR_LANDRUN`, in real bubblewrap, as comparator
calls it (`lake build M`, `--ro` the project, `--rwx` its `.lake`, `--rox` the toolchain): the
sandbox is tried on a real Lean (a 200 MB shared library, its own threads, `--json`), not only
on shell scripts. Lake is played by a script that does for one module what `lake build` does
once its imports are built; the imports are real `.olean` files in the read-only packages
folder, where Mathlib's are in a real run."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from jigcli.lean.comparator import landrun
from jigcli.lean.messages import parse_json_messages

from ..lean.comparator.layout import SYSTEM_PYTHON, Layout, launch
from .conftest import PRELUDE, RealLean

# `lake build M` for a module whose imports are built: Lean writes M's parts into the
# project's `.lake/build/lib/lean`, reading imports from the packages and from there.
LAKE = """\
#!/bin/sh
[ "$1" = build ] || exit 2
out=.lake/build/lib/lean
mkdir -p "$out"
export LEAN_PATH=.lake/packages/base:$out
exec {lean} --json -o "$out/$2.olean" -i "$out/$2.ilean" "$2.lean"
"""

MODULE_PARTS = {".olean", ".olean.private", ".olean.server", ".ir", ".ir.sig", ".ilean"}


def _place(source: Path, target: Path, *, copy: bool) -> None:
    """A toolchain file in the layout: linked (cheap) or, for a run by another user who is
    given ownership of the layout, copied so the test cache is never handed over."""
    if not copy:
        try:
            os.link(source, target)
            return
        except OSError:
            pass
    shutil.copy2(source, target)


def _base(real_lean: RealLean, packages: Path) -> None:
    """JigBase built twice into `packages/base`: as it is, and as a `module` (JigBaseM), which
    a `module` file must import."""
    base = packages / "base"
    base.mkdir(parents=True)
    text = (PRELUDE / "JigBase.lean").read_text()
    (base / "JigBase.lean").write_text(text)
    body = text.split("\n", 1)[1]  # after `prelude`
    (base / "JigBaseM.lean").write_text(f"module\nprelude\npublic section\n{body}\nend\n")
    for name in ("JigBase", "JigBaseM"):
        built = real_lean.run(base / f"{name}.lean", "-o", f"{name}.olean", cwd=base)
        assert built.returncode == 0, built.stdout + built.stderr


@pytest.fixture(params=["this-user", "nobody"])
def lean_layout(
    request: pytest.FixtureRequest, real_lean: RealLean, tmp_path: Path, confined: None
) -> Iterator[Layout]:
    as_nobody = request.param == "nobody"
    if as_nobody and (
        os.geteuid() != 0 or not SYSTEM_PYTHON.exists() or not shutil.which("setpriv")
    ):
        pytest.skip("running a step as nobody needs root, setpriv and a system python3")
    root = Path(tempfile.mkdtemp(prefix="jig-real-lean-")) if as_nobody else tmp_path
    root.chmod(0o755)
    try:
        layout = Layout(root)
        if as_nobody:
            layout.as_nobody = request.getfixturevalue("nobody_site")
        lib = layout.toolchain / "lib" / "lean"
        lib.mkdir(parents=True)
        for library in (real_lean.sysroot / "lib" / "lean").iterdir():
            _place(library, lib / library.name, copy=as_nobody)
        _place(real_lean.lean, layout.toolchain / "bin" / "lean", copy=as_nobody)
        lake = layout.toolchain / "bin" / "lake"
        lake.write_text(LAKE.format(lean=layout.toolchain / "bin" / "lean"))
        lake.chmod(0o755)
        _base(real_lean, layout.packages)
        yield layout
    finally:
        if as_nobody:
            shutil.rmtree(root, ignore_errors=True)


def _build(layout: Layout, source: str, **control: object) -> tuple[int, str, dict]:
    """`lake build JigChallenge` of `source` through the launcher: the exit comparator sees,
    Lean's stdout, and the launcher's log entry."""
    (layout.project / "JigChallenge.lean").write_text(source)
    layout.control_file(**control)
    done = launch(layout, layout.build_args())
    (entry,) = landrun.read_log(layout.control)
    return done.returncode, done.stdout, entry


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


def test_a_module_builds_every_part_into_its_own_lake(lean_layout: Layout) -> None:
    base_before = _digest(lean_layout.packages / "base")
    source = "module\nprelude\npublic import JigBaseM\n\npublic theorem t : True := True.intro\n"
    code, stdout, entry = _build(lean_layout, source)
    assert code == 0, stdout
    assert entry["ended"] == "exit" and entry["exit"] == 0 and entry["seccomp"] is True
    built = lean_layout.dot_lake / "build" / "lib" / "lean"
    assert {p.name.removeprefix("JigChallenge") for p in built.iterdir()} == MODULE_PARTS
    assert _digest(lean_layout.packages / "base") == base_before


def test_a_sorry_builds_and_says_so_in_lean_own_words(lean_layout: Layout) -> None:
    code, stdout, _ = _build(lean_layout, "prelude\nimport JigBase\ntheorem t : True := sorry\n")
    (message,) = parse_json_messages(stdout).messages
    assert code == 0
    assert (message.severity, message.line, message.data) == (
        "warning", 3, "declaration uses `sorry`"
    )  # fmt: skip


def test_a_type_error_fails_the_build_and_comparator_sees_lean_exit(lean_layout: Layout) -> None:
    source = "prelude\nimport JigBase\ntheorem t : True := True.intro True.intro\n"
    code, stdout, entry = _build(lean_layout, source)
    errors = parse_json_messages(stdout).errors
    assert code == 1 and entry["exit"] == 1
    assert errors and {m.line for m in errors} == {3}


def test_an_import_the_packages_do_not_hold_fails_the_build(lean_layout: Layout) -> None:
    code, stdout, _ = _build(lean_layout, "prelude\nimport Mathlib\ntheorem t : True := sorry\n")
    assert code == 1
    assert "Mathlib" in stdout


def test_a_build_past_the_deadline_is_stopped_and_logged_as_a_timeout(lean_layout: Layout) -> None:
    # Lean holds about 600 MB of this file after 3 s here and 1 GB after 6 s; a faster
    # machine gets further in 3 s, so the cap is set well past what the deadline allows and
    # the kill is the deadline's, not the memory cgroup's.
    slow = "".join(f"theorem t{i} : True := True.intro\n" for i in range(20_000))
    started = time.monotonic()
    code, _, entry = _build(
        lean_layout,
        "prelude\nimport JigBase\n" + slow,
        deadline=time.time() + 3,
        memory_mb=8192,
    )
    assert code == landrun.OUT_OF_TIME and entry["ended"] == "timeout", json.dumps(entry)
    assert time.monotonic() - started < 12  # the whole file takes about 16 s here


def _too_deep() -> str:
    """A file whose parse overflows Lean's stack, holding about 2 GB on the way (measured
    outside any sandbox: SIGABRT and "Stack overflow detected. Aborting." at 1.9 GB)."""
    depth = 2_000_000
    return f"prelude\nimport JigBase\ntheorem d : True := {'(' * depth}True.intro{')' * depth}\n"


def test_a_stack_overflow_reaches_comparator_as_sigabrt(lean_layout: Layout) -> None:
    code, stdout, entry = _build(lean_layout, _too_deep(), memory_mb=4096)
    assert code == 128 + 6 and entry["signal"] == 6, json.dumps(entry)
    assert stdout == ""


def test_a_build_over_its_memory_cap_is_killed_and_logged_so(lean_layout: Layout) -> None:
    code, _, entry = _build(lean_layout, _too_deep(), memory_mb=1024)
    if entry["memory_mb"] is None:
        pytest.skip("no memory cgroup is this user's here; the log says no cap was enforced")
    assert code == 128 + 9 and entry["signal"] == 9
    assert entry["out_of_memory"] is True and entry["memory_mb"] == 1024
