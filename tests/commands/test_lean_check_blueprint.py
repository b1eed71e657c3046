"""`jig lean-check` on a leanblueprint project: names resolved across the Lake project's
libraries, the blueprint's own status as data, the dependency graph, missing inputs.

tests/data/blueprints/two-libs is a Lake project with two libraries (`Alpha`, whose glob takes
every `Alpha.*` module, and `Beta`, rooted at `Beta.Main` under `beta/`) and a blueprint under
`blueprint/src/` naming declarations in both, in Mathlib, and outside every statement.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from jigcli.commands import lean_check

DATA = Path(__file__).resolve().parent.parent / "data" / "blueprints" / "two-libs"

# What Lean 4.33 would say about each name once the two libraries are imported.
AXIOMS: dict[str, list[str]] = {
    "Alpha.double": [],
    "Alpha.double_even": ["propext"],
    "Nat.add_comm": [],
    "Beta.main": ["propext", "sorryAx"],
    "Beta.open_step": ["sorryAx"],
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(DATA, tmp_path / "two-libs")
    return tmp_path / "two-libs"


def _json(
    capsys: pytest.CaptureFixture[str], file: Path, **options: Any
) -> tuple[int, dict[str, Any]]:
    code = lean_check.run(file, as_json=True, watch=False, **options)
    return code, json.loads(capsys.readouterr().out)


def _rows(document: dict[str, Any]) -> dict[str, tuple[str | None, str, str]]:
    return {s["label"]: (s["number"], s["verdict"], s["words"]) for s in document["statements"]}


def test_names_in_both_libraries_are_checked_by_one_build_and_one_lean_run(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"axioms": AXIOMS})
    code, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    assert code == 1
    assert _rows(document) == {
        "def:double": ("1.1", "proved", "Proved"),
        "lem:double-even": ("1.2", "proved", "Proved"),
        "lem:add-comm": ("1.3", "proved", "Proved"),
        "thm:main": (
            "2.1",
            "conditional",
            "Proved modulo an open lemma: uses a declaration that is not proved yet",
        ),
        "lem:open": ("2.2", "sorry", "Not proved yet: Main.lean:5 has a sorry of its own"),
        "thm:later": (
            "2.3",
            "pending",
            "Not checked yet: not formalized yet (the blueprint marks it \\notready)",
        ),
    }
    assert standin.count("lake", "build") == 1 and standin.count("lake", "env") == 1
    build = next(c for c in standin.calls() if c["argv"][:1] == ["build"])
    # The roots (as checkdecls imports them), then the modules found declaring the names.
    assert build["argv"] == ["build", "Alpha", "Beta.Main", "Alpha.Basic"]
    names = (project / ".jig" / "lean-check" / "print.names.lean").read_text()
    assert "import Alpha\nimport Beta.Main\nimport Alpha.Basic\n" in names
    assert "#print axioms «Beta».«main»" in names
    assert document["project"] == {
        "root": document["project"]["root"],
        "libraries": ["Alpha", "Beta"],
        "defaults_assumed": [],
    }


def test_each_name_says_where_it_is_declared_and_how_it_fared(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"axioms": AXIOMS})
    _, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    main = next(s for s in document["statements"] if s["label"] == "thm:main")
    assert main["lean"] == ["Beta.main", "Alpha.double_even"]
    assert [(d["name"], Path(d["file"]).name, d["line"], d["verdict"]) for d in main["decls"]] == [
        ("Beta.main", "Main.lean", 8, "conditional"),
        ("Alpha.double_even", "Basic.lean", 6, "proved"),
    ]
    add_comm = next(s for s in document["statements"] if s["label"] == "lem:add-comm")
    assert add_comm["decls"][0]["file"] is None  # Mathlib's: no source in the project


def test_the_blueprint_s_own_marks_are_data(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"axioms": AXIOMS})
    _, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    marks = {s["label"]: s["blueprint"] for s in document["statements"]}
    uses = {s["label"]: s["uses"] for s in document["statements"]}
    assert marks["def:double"]["leanok"] and marks["def:double"]["proof"] is None
    assert marks["lem:double-even"]["proof"]["leanok"] is True
    assert marks["lem:add-comm"]["mathlibok"] and marks["lem:add-comm"]["leanok"]
    assert marks["thm:main"]["proof"]["uses"] == ["lem:open"]
    assert marks["thm:main"]["proof"]["leanok"] is False
    assert marks["lem:open"]["discussion"] == "7"
    assert marks["lem:open"]["proof"]["leanok"] is True  # the far proof that \proves it
    assert marks["thm:later"]["notready"] is True
    assert uses["thm:main"] == ["lem:double-even", "lem:add-comm"]


def test_dangling_uses_and_a_lean_outside_every_statement_are_listed(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"axioms": AXIOMS})
    _, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    assert [(d["label"], d["uses"]) for d in document["dangling_uses"]] == [
        ("thm:later", "lem:nowhere")
    ]
    (stray,) = document["stray_lean"]
    assert (Path(stray["file"]).name, stray["line"], stray["names"]) == (
        "two.tex", 25, ["Alpha.extra"]
    )  # fmt: skip
    lean_check.run(project / "blueprint" / "src" / "print.tex", as_json=False, watch=False)
    shown = capsys.readouterr().out
    assert (
        "two.tex:25: ● \\lean{Alpha.extra} is outside every statement: nothing checks it" in shown
    )
    assert "two.tex:21: ● Theorem 2.3 uses lem:nowhere, which no \\label defines" in shown


def test_a_chapter_file_is_checked_through_the_root_its_latexmkrc_names(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"axioms": AXIOMS})
    _, document = _json(capsys, project / "blueprint" / "src" / "chapter" / "one.tex")
    assert document["document"].endswith("blueprint/src/print.tex")
    assert len(document["statements"]) == 6


def test_without_lean_each_named_statement_is_formalized_not_checked_here(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.uninstall()
    code, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    words = {s["label"]: s["words"] for s in document["statements"]}
    assert code == 1
    assert words["thm:main"].startswith(
        "Not checked yet: formalized as Beta.main, Alpha.double_even, not checked here"
    )
    assert words["lem:add-comm"].startswith("Not checked yet: formalized as Nat.add_comm")
    assert not any("not formalized" in w for label, w in words.items() if label != "thm:later")
    assert document["summary"].startswith("Lean isn't set up here yet")


def test_a_name_no_library_declares_is_an_error_that_names_the_libraries(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    one = project / "blueprint" / "src" / "chapter" / "one.tex"
    one.write_text(one.read_text().replace("\\lean{Alpha.double}", "\\lean{Alpha.triple}"))
    standin.scenario({"axioms": AXIOMS, "unknown": ["Alpha.triple"]})
    _, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    _, verdict, words = _rows(document)["def:double"]
    assert verdict == "error"
    assert "Unknown constant `Alpha.triple`" in words
    assert "no module of Alpha, Beta (nor what they import) declares it" in words


def test_a_project_that_does_not_build_is_an_error_for_its_names(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"build": "error", "build_error": "Unknown identifier `omega'`"})
    code, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    assert code == 1
    verdicts = {s["label"]: s["verdict"] for s in document["statements"]}
    assert verdicts["thm:main"] == "error" and verdicts["thm:later"] == "pending"
    main = next(s for s in document["statements"] if s["label"] == "thm:main")
    assert main["words"] == (
        "Lean reports an error: the project does not build: Alpha.lean:3:3: "
        "Unknown identifier `omega'`"
    )
    assert standin.count("lake", "env") == 0


def test_the_graph_is_written_as_dot_or_as_the_same_json(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    standin.scenario({"axioms": AXIOMS})
    root = project / "blueprint" / "src" / "print.tex"
    lean_check.run(root, as_json=False, watch=False, graph=tmp_path / "deps.dot")
    said = capsys.readouterr().out.splitlines()[-1]
    assert said.startswith("Wrote the dependency graph to ") and said.endswith(
        "deps.dot (6 statements, 4 uses)."
    )
    dot = (tmp_path / "deps.dot").read_text()
    assert dot.startswith("digraph blueprint {")
    assert '"def:double" -> "lem:double-even" [style=dashed];' in dot
    assert '"lem:open" -> "thm:main" [style=solid];' in dot  # used by the proof
    assert "lem:nowhere" not in dot  # a dangling use draws nothing
    assert '"def:double" [label="Definition 1.1\\ndef:double", shape=box' in dot
    lean_check.run(root, as_json=True, watch=False, graph=tmp_path / "deps.json")
    printed = capsys.readouterr()
    document = json.loads(printed.out)  # stdout is the one document; where, on stderr
    assert printed.err.endswith("deps.json (6 statements, 4 uses).\n")
    graph = json.loads((tmp_path / "deps.json").read_text())
    assert [{k: v for k, v in n.items() if k != "id"} for n in graph["nodes"]] == document[
        "statements"
    ]
    assert {"from": "lem:add-comm", "to": "thm:main", "by": "statement"} in graph["edges"]


def test_the_graph_has_a_legend_and_borders_what_the_blueprint_marks(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    standin.uninstall()  # nothing is checked: the fill is grey, the border still the claim
    lean_check.run(project / "blueprint" / "src" / "print.tex", as_json=False, watch=False,
                   graph=tmp_path / "deps.dot")  # fmt: skip
    dot = (tmp_path / "deps.dot").read_text()
    node = {line.split('"')[1]: line for line in dot.splitlines() if "[label=" in line}
    green, dark, grey = 'color="#2E9E4F"', 'color="#1B5E20"', 'color="#606060"'
    assert green in node["lem:double-even"]  # \leanok on the statement
    assert dark in node["lem:add-comm"]  # \mathlibok
    assert grey in node["lem:open"] and 'fillcolor="#E8E8E8"' in node["lem:open"]
    assert "subgraph cluster_legend {" in dot
    for words in ("proved", "not proved yet (sorry)", "not checked yet", "proof uses it"):
        assert f'label="{words}"' in dot
    assert "border: \\\\leanok in the blueprint" in dot


def test_a_missing_input_is_an_error_with_its_place(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    content = project / "blueprint" / "src" / "content.tex"
    content.write_text(content.read_text() + "\\input{generated/decls}\n")
    standin.scenario({"axioms": AXIOMS})
    code, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    assert code == 1
    (missing,) = document["missing_inputs"]
    assert (Path(missing["file"]).name, missing["line"], missing["names"]) == (
        "content.tex", 3, ["generated/decls"]
    )  # fmt: skip
    assert document["summary"].startswith("1 LaTeX input(s) missing (generated/decls)")
    lean_check.run(project / "blueprint" / "src" / "print.tex", as_json=False, watch=False)
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("content.tex:3: ● \\input{generated/decls}: no such file beside the "
                          "paper or in TeX's own; generate it or fix the name")  # fmt: skip


CLOSURE = DATA.parent / "closure"


def test_names_in_modules_only_the_root_s_imports_reach_are_located_and_checked(
    tmp_path: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # tests/data/blueprints/closure: library Closure keeps Lake's default globs (its root
    # alone, a list of imports); the blueprint names declarations in the modules it imports,
    # in a module of the fetched package `dep`, and in modules Lake never builds.
    project = tmp_path / "closure"
    shutil.copytree(CLOSURE, project)
    standin.scenario({"axioms": {}, "unknown": ["Closure.orphan_fact", "Dep.unused"]})
    _, document = _json(capsys, project / "blueprint" / "src" / "print.tex")
    decls = {
        d["name"]: (d["found"], d["file"] and Path(d["file"]).relative_to(project).as_posix(),
                    d["line"])
        for s in document["statements"] for d in s["decls"]
    }  # fmt: skip
    assert decls == {
        "Closure.double": ("project", "Closure/Basic.lean", 6),
        "Closure.core_fact": ("project", "Closure/Deep/Core.lean", 3),
        "Closure.deep_lemma": ("project", "Closure/Deep/Lemma.lean", 9),
        "Extras.tool": ("project", "Extras/Tools.lean", 3),
        "Dep.algebra_fact": ("dependency", ".lake/packages/dep/Dep/Algebra.lean", 3),
        "Closure.orphan_fact": ("nowhere", None, None),
        "Dep.unused": ("nowhere", None, None),
        "Nat.add_comm": ("nowhere", None, None),
    }
    build = next(c for c in standin.calls() if c["argv"][:1] == ["build"])
    # The roots that exist, then each module found declaring a name.
    assert build["argv"] == [
        "build", "Closure", "Closure.Basic", "Closure.Deep.Core", "Closure.Deep.Lemma",
        "Extras.Tools", "Dep.Algebra",
    ]  # fmt: skip
    verdicts = {s["label"]: s["verdict"] for s in document["statements"]}
    assert verdicts == {
        "def:double": "proved", "lem:core": "proved", "lem:deep": "proved",
        "lem:tool": "proved", "lem:algebra": "proved", "thm:elsewhere": "error",
    }  # fmt: skip
    lean_check.run(project / "blueprint" / "src" / "print.tex", as_json=False, watch=False)
    assert (
        "Lean names: 4 in the project, 1 only in a package it requires, 3 in no source here "
        "(Closure.orphan_fact, Dep.unused, Nat.add_comm: Lean's core, a package not fetched, "
        "or a typo)"
    ) in " ".join(capsys.readouterr().out.split())


def test_the_graph_is_the_one_leanblueprint_draws_by_its_rules(
    tmp_path: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # tests/data/blueprints/rules, checked by hand against plastexdepgraph's depgraph.py:
    # nodes are the environments `thms=definition+lemma+theorem` (web.tex) names, so the
    # proposition and the remark are none and the edges through them go; `\uses{def:a-alias}`
    # reaches the definition by its second label; the proof never closed proves lem:b and the
    # proofs after it their own statements; `\proves{Rules.e_lean_name}` (no label) falls back
    # to thm:e; `\proves{chap:rules}` proves the chapter, no node.
    project = tmp_path / "rules"
    shutil.copytree(DATA.parent / "rules", project)
    standin.uninstall()
    lean_check.run(project / "print.tex", as_json=False, watch=False, graph=tmp_path / "g.json")
    shown = capsys.readouterr().out
    graph = json.loads((tmp_path / "g.json").read_text())
    assert graph["kinds"] == ["definition", "lemma", "theorem"]
    assert [n["id"] for n in graph["nodes"]] == ["def:a", "lem:b", "lem:c", "thm:e", "thm:g"]
    assert sorted((e["from"], e["to"], e["by"]) for e in graph["edges"]) == [
        ("def:a", "lem:b", "proof"),
        ("def:a", "lem:b", "statement"),
        ("def:a", "thm:e", "proof"),
        ("lem:b", "lem:c", "proof"),
        ("lem:b", "thm:g", "statement"),
        ("lem:c", "thm:e", "statement"),
    ]
    assert "content.tex:13: ● \\begin{proof} is never closed: read as ending at line 17" in shown
    _, document = _json(capsys, project / "print.tex")
    assert document["graph_kinds"]["kinds"] == ["definition", "lemma", "theorem"]
    assert (document["graph_kinds"]["from"]["file"], document["graph_kinds"]["from"]["line"]) == (
        str(project / "web.tex"), 3
    )  # fmt: skip
    assert [(Path(n["file"]).name, n["line"]) for n in document["notices"]] == [
        ("content.tex", 13), ("content.tex", 55)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("deps.txt", "name the file with one of .dot, .gv, .json, .svg, .png, .pdf"),
        ("nowhere/deps.dot", "the folder"),
    ],
)
def test_a_bad_graph_target_is_refused_before_anything_is_checked(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path, name, says
) -> None:
    from jigcli.errors import UsageError

    root = project / "blueprint" / "src" / "print.tex"
    with pytest.raises(UsageError, match=says.replace(".", r"\.")):
        lean_check.run(root, as_json=True, watch=False, graph=tmp_path / name)
    assert capsys.readouterr().out == ""  # no JSON document before the usage error
    assert standin.calls() == []


def test_an_image_graph_without_graphviz_is_refused_with_what_to_install(
    project: Path, standin: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jigcli.errors import UsageError

    monkeypatch.setenv("PATH", str(tmp_path))  # no `dot` here
    root = project / "blueprint" / "src" / "print.tex"
    with pytest.raises(UsageError, match="apt-get install graphviz"):
        lean_check.run(root, as_json=False, watch=False, graph=tmp_path / "deps.png")
    assert not (tmp_path / "deps.png").exists()


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize(("suffix", "magic"), [(".png", b"\x89PNG"), (".svg", b"<?xml")])
def test_an_image_graph_is_drawn_by_graphviz(
    project: Path,
    standin: Any,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    suffix: str,
    magic: bytes,
) -> None:
    standin.scenario({"axioms": AXIOMS})
    root = project / "blueprint" / "src" / "print.tex"
    lean_check.run(root, as_json=False, watch=False, graph=tmp_path / f"deps{suffix}")
    assert (tmp_path / f"deps{suffix}").read_bytes().startswith(magic)


def test_a_folder_names_the_document_latexmk_would_build_there_for_every_paper_command(
    project: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from jigcli.commands import audit
    from jigcli.errors import UsageError

    standin.scenario({"axioms": AXIOMS})
    src = project / "blueprint" / "src"
    _, document = _json(capsys, src)  # its latexmkrc's @default_files: print.tex
    assert document["document"].endswith("blueprint/src/print.tex")
    audit.run(src, review=False, reader=None, as_json=True)
    assert json.loads(capsys.readouterr().out)["ledger"].endswith("src/print.audit.json")
    (src / "latexmkrc").unlink()  # web.tex and print.tex, and nothing says which: exit 2
    for run in (
        lambda: lean_check.run(src, as_json=True, watch=False),
        lambda: audit.run(src, review=False, reader=None, as_json=True),
    ):
        with pytest.raises(UsageError, match=r"holds several documents \(print.tex, web.tex\)"):
            run()
