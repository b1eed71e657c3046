"""`jig lean-check`: per-statement verdicts from one Lean run through the stand-in toolchain."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from jigcli.commands import lean_check
from jigcli.paper.ledger import JIG, Judge, Judgement, Ledger, ledger_path, now, pair_hashes, save
from jigcli.paper.pairing import open_paper

DATA = Path(__file__).resolve().parent.parent / "data" / "papers" / "leancheck"
ROOT = Path(__file__).resolve().parents[2]

# What Lean 4.33 says about tests/data/papers/leancheck/paper.lean, line by line.
SCENARIO: dict[str, Any] = {
    "messages": [
        {"line": 7, "column": 6, "severity": "warning", "kind": "hasSorry",
         "data": "declaration uses `sorry`"},
        {"line": 13, "column": 8, "severity": "error",
         "data": "Function expected at\n  rfl\nbut this term has type\n  ?a = ?a"},
    ],
    "axioms": {
        "Check.proved": [],
        "Check.open": ["sorryAx"],
        "Check.conditional": ["sorryAx"],
        "Check.broken": ["sorryAx"],
        "Check.assumed": ["Check.choice_principle"],
    },
}  # fmt: skip


@pytest.fixture
def paper(tmp_path: Path) -> Path:
    """The paper inside a Lake project pinned like this repo."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("lean-toolchain", "lakefile.toml", "lake-manifest.json"):
        shutil.copy(ROOT / name, project / name)
    for name in ("paper.tex", "paper.lean"):
        shutil.copy(DATA / name, project / name)
    return project / "paper.tex"


def _json(capsys: pytest.CaptureFixture[str], file: Path) -> tuple[int, dict[str, Any]]:
    code = lean_check.run(file, as_json=True, watch=False)
    return code, json.loads(capsys.readouterr().out)


def _verdicts(document: dict[str, Any]) -> dict[str, tuple[str, str]]:
    return {s["label"]: (s["verdict"], s["status"]) for s in document["statements"]}


def test_each_verdict_from_one_lean_run(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario(SCENARIO)
    code, document = _json(capsys, paper)
    assert code == 1
    assert _verdicts(document) == {
        "thm:proved": ("proved", "ok"),
        "lem:open": ("sorry", "warn"),
        "thm:conditional": ("conditional", "conditional"),
        "thm:broken": ("error", "error"),
        "thm:assumed": ("assumed", "ok"),
        "thm:unformalized": ("pending", "pending"),
    }
    assert standin.count("lake", "env") == 1
    assert standin.count("lake", "build") == 0


def test_the_json_names_each_statement_and_its_declaration(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario(SCENARIO)
    code, document = _json(capsys, paper)
    assert document["verifier"] == "lean"
    assert (document["status"], document["exit_code"]) == ("error", code)  # thm:broken's
    assert document["document"].endswith("paper.tex")
    assert document["lean_file"].endswith("paper.lean")
    first = document["statements"][0]
    assert first == {
        "label": "thm:proved",
        "labels": ["thm:proved"],
        "kind": "theorem",
        "number": "1",
        "title": None,
        "file": first["file"],
        "line": 5,
        "decl": "Check.proved",
        "verdict": "proved",
        "status": "ok",
        "words": "Proved",
        "lean": [],
        "uses": [],
        "decls": [
            {
                "name": "Check.proved",
                "file": first["decls"][0]["file"],
                "line": 5,
                "found": "sibling",
                "verdict": "proved",
                "status": "ok",
                "detail": "",
            }
        ],
        "blueprint": {
            "leanok": False,
            "mathlibok": False,
            "notready": False,
            "discussion": None,
            "proof": None,
        },
    }
    assert first["decls"][0]["file"].endswith("paper.lean")
    words = {s["label"]: s["words"] for s in document["statements"]}
    assert (
        words["thm:conditional"] == "Proved modulo an open lemma: uses Check.open, not proved yet"
    )
    assert words["thm:broken"].startswith("Lean reports an error: paper.lean:13: Function expected")
    assert words["thm:unformalized"].startswith("Not checked yet: not formalized yet")
    assert document["summary"] == "Lean reports an error · 1 of 6"
    assert document["engine"] == "Checked by Lean 4.33.0 · Mathlib v4.33.0"


def test_the_engine_line_is_the_toolchain_s_own_version(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (paper.parent / "lean-toolchain").write_text("leanprover/lean4:v4.34.1\n")
    standin.scenario({"version": "4.34.1", "axioms": []})
    paper.with_suffix(".lean").write_text(
        "namespace Check\ntheorem proved : 0 = 0 := rfl\nend Check\n"
    )
    paper.write_text(
        "\\documentclass{article}\\newtheorem{theorem}{Theorem}\\begin{theorem}\\label{thm:proved}x\\end{theorem}\n"
    )
    code, document = _json(capsys, paper)
    assert code == 0
    assert document["summary"] == "Proved · 1 checked"
    assert document["engine"] == "Checked by Lean 4.34.1 · Mathlib v4.33.0"


def test_the_check_file_is_the_paper_then_one_print_axioms_per_declaration(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario(SCENARIO)
    _json(capsys, paper)
    check = paper.parent / ".jig" / "lean-check" / "paper.check.lean"
    text = check.read_text()
    assert text.startswith(paper.with_suffix(".lean").read_text())
    prints = [line for line in text.splitlines() if line.startswith("#print axioms")]
    assert prints == [
        "#print axioms «Check».«proved»",
        "#print axioms «Check».«open»",
        "#print axioms «Check».«conditional»",
        "#print axioms «Check».«broken»",
        "#print axioms «Check».«assumed»",
    ]
    assert check.with_suffix(".out").is_file()


def test_an_axiom_the_file_does_not_declare_is_not_proved(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario({"axioms": {"Check.proved": ["Lean.ofReduceBool"]}})
    _, document = _json(capsys, paper)
    proved = document["statements"][0]
    assert proved["verdict"] == "error"
    assert "native computation (Lean.ofReduceBool)" in proved["words"]


def test_a_private_declaration_is_read_under_the_name_lean_prints(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    lean = paper.with_suffix(".lean")
    lean.write_text(lean.read_text().replace("theorem proved", "private theorem proved"))
    standin.scenario({**SCENARIO, "private": ["Check.proved"]})
    _, document = _json(capsys, paper)
    assert _verdicts(document)["thm:proved"] == ("proved", "ok")


def test_an_unknown_blueprint_name_is_an_error(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    paper.write_text(
        "\\documentclass{article}\\newtheorem{theorem}{Theorem}\n"
        "\\begin{theorem}\\label{thm:x}\\lean{Nat.no_such_lemma}x\\end{theorem}\n"
    )
    standin.scenario({"unknown": ["Nat.no_such_lemma"]})
    code, document = _json(capsys, paper)
    (statement,) = document["statements"]
    assert code == 1
    assert (statement["decl"], statement["verdict"]) == ("Nat.no_such_lemma", "error")
    assert "Unknown constant" in statement["words"]


def test_without_a_toolchain_everything_is_pending_and_says_how_to_set_up(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.uninstall()
    code, document = _json(capsys, paper)
    assert code == 1  # Theorem 6 is not formalized: wrong whatever this machine has
    assert {s["verdict"] for s in document["statements"]} == {"pending"}
    summary = document["summary"]
    assert summary.startswith("Lean isn't set up here yet: lake and lean not found on PATH")
    assert summary.endswith(f"install elan, then run lake exe cache get in {paper.parent}.")
    assert "put the paper in" not in summary  # it is in a Lake project already
    assert document["engine"] is None


def test_without_a_toolchain_a_fully_formalized_paper_is_not_checked_here_exit_four(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    text = paper.read_text()
    start = text.index("\\begin{theorem}\\label{thm:unformalized}")
    end = text.index("\\end{theorem}", start) + len("\\end{theorem}")
    paper.write_text(text[:start] + text[end:])
    standin.uninstall()
    code, document = _json(capsys, paper)
    assert code == 4
    assert {s["verdict"] for s in document["statements"]} == {"pending"}


def test_without_lean_a_sorry_in_the_text_and_a_proof_without_one_stay_apart(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.uninstall()
    code, document = _json(capsys, paper)
    words = {s["label"]: (s["verdict"], s["words"]) for s in document["statements"]}
    assert words["thm:proved"] == (
        "pending", "Not checked yet: formalized as Check.proved, not checked here; "
        "no sorry in its text",
    )  # fmt: skip
    assert words["lem:open"] == (
        "pending", "Not checked yet: formalized as Check.open, not checked here, "
        "but its text has a sorry",
    )  # fmt: skip
    # A sorry used through another lemma is Lean's to find: the text alone has none.
    assert words["thm:conditional"][1].endswith("no sorry in its text")
    assert code == 1  # Theorem 6 is not formalized


def test_outside_a_lake_project_lean_is_not_set_up(
    tmp_path: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("paper.tex", "paper.lean"):
        shutil.copy(DATA / name, tmp_path / name)
    code, document = _json(capsys, tmp_path / "paper.tex")
    assert code == 1
    assert "not inside a Lake project" in document["summary"]
    assert standin.count("lake") == 0


def test_a_current_refutation_leaves_the_lean_goal_and_a_stale_one_does_not(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario(SCENARIO)
    opened = open_paper(paper)
    pair = opened.pairing.pairs[0]
    hashes = pair_hashes(pair.statement.text, pair.judged(opened.project))
    judgement = Judgement(
        "thm:proved", "Check.proved", "refuted", "n = 0 is a counterexample",
        Judge("person", "ada"), now(), *hashes,
    )  # fmt: skip
    save(Ledger(None, None, [judgement]), ledger_path(paper))
    _, document = _json(capsys, paper)
    assert document["statements"][0]["verdict"] == "refuted"
    assert document["statements"][0]["words"] == "It's false: n = 0 is a counterexample"
    check = (paper.parent / ".jig" / "lean-check" / "paper.check.lean").read_text()
    assert "«Check».«proved»" not in check

    paper.write_text(paper.read_text().replace("Zero is a natural number.", "Zero is zero."))
    _, document = _json(capsys, paper)
    assert document["statements"][0]["verdict"] == "proved"
    assert JIG.kind == "jig"


def test_a_lean_file_argument_checks_its_paper(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario(SCENARIO)
    _, document = _json(capsys, paper.with_suffix(".lean"))
    assert document["document"].endswith("paper.tex")
    assert len(document["statements"]) == 6


def test_human_output_is_one_place_line_per_statement_then_the_summary(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.scenario(SCENARIO)
    code = lean_check.run(paper, as_json=False, watch=False)
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[0].endswith("paper.tex:5: ● Theorem 1 · Proved")
    assert lines[2].endswith(
        "paper.tex:11: ○ Theorem 3 · Proved modulo an open lemma: uses Check.open, not proved yet"
    )
    assert lines[6] == "● Lean reports an error · 1 of 6"
    assert lines[7].startswith("Checked by Lean 4.33.0 · Mathlib v4.33.0 (see ")


def test_watch_rechecks_when_the_lean_file_settles(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    standin.scenario(SCENARIO)
    lean = paper.with_suffix(".lean").resolve()

    def one_edit(*folders: Path, **options: Any) -> Any:
        assert lean.parent in folders
        yield {(2, str(paper.parent / "unrelated.txt"))}
        yield {(2, str(lean))}

    monkeypatch.setattr("watchfiles.watch", one_edit)
    code = lean_check.run(paper, as_json=False, watch=True)
    assert code == 1
    assert standin.count("lake", "env") == 2
    said = capsys.readouterr().err  # the same words as jig compile --watch
    assert "file(s) for edits; Ctrl-C stops" in said and " · re-checking" in said


def test_watch_and_json_together_are_refused(paper: Path) -> None:
    from jigcli.errors import UsageError

    with pytest.raises(UsageError):
        lean_check.run(paper, as_json=True, watch=True)


def test_without_a_sibling_a_named_declaration_is_checked_in_the_project(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    paper.with_suffix(".lean").unlink()
    module = paper.parent / "Commons" / "Extra.lean"  # built by the lakefile's `Commons.+`
    module.parent.mkdir()
    module.write_text(
        "namespace Commons\ntheorem le (n : Nat) : n ≤ n := Nat.le_refl n\nend Commons\n"
    )
    paper.write_text(
        paper.read_text().replace("\\label{thm:proved}", "\\label{thm:proved}\\lean{Commons.le}")
    )
    standin.scenario({"axioms": []})
    code, document = _json(capsys, paper)
    assert code == 1
    assert document["lean_file"] is None
    words = {s["label"]: (s["verdict"], s["words"]) for s in document["statements"]}
    assert words["thm:proved"] == ("proved", "Proved")
    assert words["lem:open"] == ("pending", "Not checked yet: not formalized yet")
    assert standin.count("lake", "build") == 1 and standin.count("lake", "env") == 1
    names = (paper.parent / ".jig" / "lean-check" / "paper.names.lean").read_text()
    assert "import Commons.Extra\n" in names  # the library has no root: its module, found


def test_without_lean_a_named_declaration_is_formalized_not_checked_here(
    paper: Path, standin: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    standin.uninstall()
    paper.with_suffix(".lean").unlink()
    paper.write_text(
        paper.read_text().replace("\\label{thm:proved}", "\\label{thm:proved}\\lean{A.b, C.d}")
    )
    _, document = _json(capsys, paper)
    words = {s["label"]: s["words"] for s in document["statements"]}
    assert words["thm:proved"].startswith(
        "Not checked yet: formalized as A.b, C.d, not checked here"
    )
    assert words["lem:open"] == "Not checked yet: not formalized yet"


def test_the_cli_runs_lean_check_end_to_end(paper: Path, standin: Any) -> None:
    import os
    import subprocess
    import sys

    standin.scenario(SCENARIO)
    done = subprocess.run(
        [sys.executable, "-m", "jigcli", "lean-check", "paper.tex"],
        cwd=paper.parent,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "paper.tex:5: ● Theorem 1 · Proved" in done.stdout
    assert "Checked by Lean 4.33.0 · Mathlib v4.33.0" in done.stdout
