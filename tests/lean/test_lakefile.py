"""Reading a Lake project's libraries from its lakefile, as data."""

from __future__ import annotations

from pathlib import Path

import pytest

from jigcli.errors import UsageError
from jigcli.lean.lakefile import Glob, LeanLib, find_project, read_project

TWO_LIBS = Path(__file__).resolve().parent.parent / "data" / "blueprints" / "two-libs"


def test_a_lean_lakefile_gives_each_library_its_roots_globs_and_source_folder() -> None:
    project = read_project(TWO_LIBS)
    alpha, beta = project.libs
    assert (alpha.name, alpha.roots, alpha.globs) == (
        "Alpha", ("Alpha",), (Glob("andSubmodules", "Alpha"),)
    )  # fmt: skip
    assert (beta.name, beta.roots, beta.globs) == (
        "Beta",
        ("Beta.Main",),
        (Glob("one", "Beta.Main"),),
    )
    assert beta.src_dir == TWO_LIBS / "beta"
    assert project.roots == ("Alpha", "Beta.Main")
    assert project.guessed == ()


def test_a_library_s_modules_are_what_its_globs_build(tmp_path: Path) -> None:
    alpha, beta = read_project(TWO_LIBS).libs
    assert [m for m, _ in alpha.modules()] == ["Alpha", "Alpha.Basic", "Alpha.Extra"]
    for name in ("A.lean", "A/B.lean", "A/C/D.lean", "AB.lean"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "lakefile.toml").write_text(
        '[[lean_lib]]\nname = "Strict"\nglobs = ["A.+"]\n'
        '[[lean_lib]]\nname = "Both"\nglobs = ["A.*"]\n'
    )
    strict, both = read_project(tmp_path).libs
    assert [m for m, _ in strict.modules()] == ["A.B", "A.C.D"]
    assert [m for m, _ in both.modules()] == ["A", "A.B", "A.C.D"]
    assert [(m, p.relative_to(TWO_LIBS).as_posix()) for m, p in beta.modules()] == [
        ("Beta.Main", "beta/Beta/Main.lean")
    ]


def test_the_project_is_found_above_the_blueprint() -> None:
    project = find_project(TWO_LIBS / "blueprint" / "src")
    assert project is not None and project.root == TWO_LIBS.resolve()


def test_a_toml_lakefile_reads_globs_as_lake_does(tmp_path: Path) -> None:
    (tmp_path / "lakefile.toml").write_text(
        'name = "p"\nsrcDir = "src"\n'
        '[[lean_lib]]\nname = "A"\nglobs = ["A.+", "B", "C.*"]\n'
        '[[lean_lib]]\nname = "D"\nroots = "D.Root"\n'
        '[[lean_lib]]\nname = "E"\n'
    )
    a, d, e = read_project(tmp_path).libs
    assert a.globs == (Glob("submodules", "A"), Glob("one", "B"), Glob("andSubmodules", "C"))
    assert a.roots == ("A",) and a.src_dir == tmp_path / "src"
    assert (d.roots, d.globs) == (("D.Root",), (Glob("one", "D.Root"),))
    assert (e.roots, e.globs) == (("E",), (Glob("one", "E"),))


def test_a_field_computed_by_code_is_read_as_its_default_and_said_to_be_guessed(
    tmp_path: Path,
) -> None:
    (tmp_path / "lakefile.lean").write_text(
        "import Lake\nopen Lake DSL\ndef myRoots := #[`X]\n"
        "lean_lib Lib where\n  roots := myRoots\n  -- a comment: globs := #[`Y]\n"
    )
    project = read_project(tmp_path)
    (lib,) = project.libs
    assert lib.roots == ("Lib",) and lib.globs == (Glob("one", "Lib"),)
    assert project.guessed == ("Lib.roots",)


def test_lake_reads_the_lean_lakefile_when_both_exist(tmp_path: Path) -> None:
    (tmp_path / "lakefile.toml").write_text('name = "p"\n[[lean_lib]]\nname = "Toml"\n')
    (tmp_path / "lakefile.lean").write_text("lean_lib Lean\n")
    assert [lib.name for lib in read_project(tmp_path).libs] == ["Lean"]


def test_a_broken_toml_lakefile_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "lakefile.toml").write_text("[[lean_lib]\n")
    with pytest.raises(UsageError, match="not readable TOML"):
        read_project(tmp_path)


def test_lake_s_glob_macros_in_a_lean_lakefile_are_read_as_lake_expands_them(
    tmp_path: Path,
) -> None:
    # `Lake/Config/Glob.lean`: `name noWs ".*"` is `Glob.andSubmodules`, `".+"` is
    # `Glob.submodules`; with a space between they are no glob macro.
    (tmp_path / "lakefile.lean").write_text(
        "import Lake\nopen Lake DSL\nlean_lib Lib where\n"
        "  globs := #[`A.*, `«B».+, .one `C, Glob.submodules `D, `E]\n"
    )
    (lib,) = read_project(tmp_path).libs
    assert lib.globs == (
        Glob("andSubmodules", "A"), Glob("submodules", "B"), Glob("one", "C"),
        Glob("submodules", "D"), Glob("one", "E"),
    )  # fmt: skip


def test_a_module_is_local_to_a_library_as_lake_decides_it() -> None:
    # `LeanLibConfig.isLocalModule`: a root is a prefix of it (by components) or a glob matches.
    lib = LeanLib("L", ("Root",), (Glob("submodules", "Sub"), Glob("one", "One")), Path("/src"))
    assert lib.owns("Root") and lib.owns("Root.Deep.Down") and not lib.owns("RootX")
    assert lib.owns("Sub.A") and not lib.owns("Sub") and lib.owns("One")
    assert not lib.owns("One.Below")
    assert lib.module_file("Root.«a.b».C") == Path("/src/Root/a.b/C.lean")
