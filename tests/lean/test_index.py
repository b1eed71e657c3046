"""Locating declarations in a Lake project's import closure (`jigcli.lean.index`).

tests/data/blueprints/closure: library `Closure` has Lake's defaults (root `Closure`, glob
`Closure` alone), and `Closure.lean` is only imports, reaching `Closure.Basic`,
`Closure.Deep.Lemma` (a module-system header) and through it `Closure.Deep.Core`; library
`Extras` is `globs := #[`Extras.+]`; `Closure.Orphan` is built by nothing. The fetched package
`dep` (`.lake/packages/dep`, listed in `lake-manifest.json`) has `Dep.Algebra`, imported by
`Closure.Basic`, and `Dep.Unused`, imported by nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jigcli.lean import declarations
from jigcli.lean import index as index_module
from jigcli.lean.index import header_imports, index_project
from jigcli.lean.lakefile import read_project

CLOSURE = Path(__file__).resolve().parent.parent / "data" / "blueprints" / "closure"
NAMES = [
    "Closure.double",
    "Closure.core_fact",
    "Closure.deep_lemma",
    "Extras.tool",
    "Dep.algebra_fact",
    "Closure.orphan_fact",
    "Dep.unused",
    "Nat.add_comm",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(CLOSURE, tmp_path / "closure")
    return tmp_path / "closure"


def _places(root: Path, cache: Path) -> dict[str, tuple[str, int, bool]]:
    found = index_project(read_project(root), cache_dir=cache).locate(NAMES)
    return {
        name: (hit.module.path.relative_to(root).as_posix(), hit.decl.keyword_line,
               hit.module.in_project)
        for name, hit in found.items()
    }  # fmt: skip


def test_names_are_found_in_every_module_the_roots_import_not_only_the_globs(
    project: Path, tmp_path: Path
) -> None:
    places = _places(project, tmp_path / "cache")
    assert places["Closure.double"] == ("Closure/Basic.lean", 6, True)
    assert places["Closure.deep_lemma"] == ("Closure/Deep/Lemma.lean", 9, True)
    assert places["Closure.core_fact"] == ("Closure/Deep/Core.lean", 3, True)
    assert places["Extras.tool"] == ("Extras/Tools.lean", 3, True)  # by `Extras.+`


def test_a_name_only_in_a_required_package_is_found_there_and_said_to_be_a_dependency(
    project: Path, tmp_path: Path
) -> None:
    places = _places(project, tmp_path / "cache")
    assert places["Dep.algebra_fact"] == (".lake/packages/dep/Dep/Algebra.lean", 3, False)
    found = index_project(read_project(project), cache_dir=tmp_path / "c").locate(NAMES)
    assert found["Dep.algebra_fact"].module.package == "dep"


def test_modules_lake_would_not_build_are_not_searched(project: Path, tmp_path: Path) -> None:
    places = _places(project, tmp_path / "cache")
    # Declared in a module no glob names and nothing imports, in a package module nothing
    # imports, and in Lean's core: nowhere in the closure.
    assert not {"Closure.orphan_fact", "Dep.unused", "Nat.add_comm"} & places.keys()
    index = index_project(read_project(project), cache_dir=tmp_path / "cache")
    assert list(index.modules) == [
        "Closure", "Extras.Tools", "Closure.Basic", "Closure.Deep.Lemma", "Dep.Algebra",
        "Closure.Deep.Core",
    ]  # fmt: skip


def test_without_the_fetched_package_its_names_are_nowhere(project: Path, tmp_path: Path) -> None:
    shutil.rmtree(project / ".lake")
    places = _places(project, tmp_path / "cache")
    assert "Dep.algebra_fact" not in places
    assert places["Closure.double"] == ("Closure/Basic.lean", 6, True)


def test_a_name_declared_in_the_project_and_a_package_is_the_project_s(
    project: Path, tmp_path: Path
) -> None:
    basic = project / "Closure" / "Basic.lean"
    basic.write_text(basic.read_text() + "\ntheorem Dep.algebra_fact : True := trivial\n")
    places = _places(project, tmp_path / "cache")
    assert places["Dep.algebra_fact"] == ("Closure/Basic.lean", 14, True)


def test_the_header_is_read_as_lean_reads_it() -> None:
    text = (
        "/- a comment -/\nmodule\n\nprelude\npublic import A.B -- why\npublic meta import C\n"
        "import all «D».E\nmeta import F\n\ntheorem x : True := trivial\nimport G\n"
    )
    assert header_imports(text) == ["A.B", "C", "D.E", "F"]
    # The header ends at the first command: an `import` after it is no import.
    assert header_imports("import A\nnamespace X\nimport B\n") == ["A"]
    assert header_imports("") == []


def test_an_import_climbing_out_of_the_library_folder_is_not_followed(
    project: Path, tmp_path: Path
) -> None:
    (tmp_path / "Secret.lean").write_text("theorem Closure.secret : True := trivial\n")
    root = project / "Closure.lean"
    # `Closure` is a root of library Closure, so Lake would look for this one at
    # <srcDir>/Closure/../../Secret.lean, beside the project.
    root.write_text("import Closure.«..».«..».Secret\n" + root.read_text())
    index = index_project(read_project(project), cache_dir=tmp_path / "cache")
    assert not any(".." in module for module in index.modules)
    assert index.locate(["Closure.secret"]) == {}


def test_a_second_run_on_an_unchanged_project_reads_no_lean(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    read: list[str] = []
    real = declarations.parse_lean

    def counting(path: Path, text: str) -> object:
        read.append(path.name)
        return real(path, text)

    monkeypatch.setattr(index_module, "parse_lean", counting)
    first = _places(project, tmp_path / "cache")
    assert read  # the first run reads the files that mention a sought name
    read.clear()
    assert _places(project, tmp_path / "cache") == first
    assert read == []
    core = project / "Closure" / "Deep" / "Core.lean"
    core.write_text("\n\n" + core.read_text())  # an edit: only that file is read again
    assert _places(project, tmp_path / "cache")["Closure.core_fact"][1] == 5
    assert read == ["Core.lean"]


def test_a_cache_jig_did_not_write_is_an_empty_one(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _places(project, cache)
    (file,) = (cache / "lean-index").iterdir()
    data = json.loads(file.read_text())
    for entry in data["files"].values():
        entry["decls"] = [{"kind": 3}] if entry.get("decls") else entry.get("decls")
    file.write_text(json.dumps(data))
    assert _places(project, cache) == first  # a record that is no declaration: read again
    file.write_text("{not json")
    assert _places(project, cache) == first


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files read through `Path.read_bytes` from now on, by name."""
    read: list[str] = []
    real = Path.read_bytes

    def recording(path: Path) -> bytes:
        read.append(path.name)
        return real(path)

    monkeypatch.setattr(Path, "read_bytes", recording)
    return read


def test_a_second_run_reads_no_file_of_an_unchanged_package_for_a_name_found_nowhere(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def nowhere() -> dict[str, object]:
        index = index_project(read_project(project), cache_dir=tmp_path / "cache")
        return dict(index.locate(["Nat.add_comm", "Dep.unused"]))

    read = _reads(monkeypatch)
    assert nowhere() == {}
    assert "Algebra.lean" in read  # sought there: its text does not mention them
    read.clear()
    assert nowhere() == {}
    assert "Algebra.lean" not in read  # same size and time, and the parts are known absent
    assert {"Closure.lean", "Basic.lean", "Core.lean"} <= set(read)  # the project's: hashed


def test_a_package_file_that_changed_is_read_again(project: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _places(project, cache)
    algebra = project / ".lake" / "packages" / "dep" / "Dep" / "Algebra.lean"
    algebra.write_text("-- moved down\n\n" + algebra.read_text())
    assert _places(project, cache)["Dep.algebra_fact"][1] == 5
