"""Reading a Lean file's declarations without Lean: names, scopes, lines, marks."""

from __future__ import annotations

from pathlib import Path

from jigcli.lean.declarations import read_lean

PAIRED = Path(__file__).resolve().parent.parent / "data" / "papers" / "paired"


def test_declarations_carry_names_namespaces_kinds_and_lines() -> None:
    lean = read_lean(PAIRED / "paper.lean")
    found = {d.full_name: (d.kind, d.line, d.end_line) for d in lean.decls}
    assert found["Paper.main_theorem"] == ("theorem", 7, 9)
    assert found["Paper.key_step"] == ("theorem", 12, 12)
    assert found["Paper.documented"] == ("lemma", 14, 15)
    assert found["Paper.double"] == ("def", 32, 32)
    assert found["Paper.choice_principle"][0] == "axiom"
    assert found["Outside.thing"] == ("theorem", 37, 37)
    assert "fake" not in " ".join(found)
    assert lean.open_scopes == ()


def test_docstrings_markers_and_privacy_are_read() -> None:
    lean = read_lean(PAIRED / "paper.lean")
    by_name = {d.name: d for d in lean.decls}
    assert by_name["main_theorem"].docstring == "The main theorem, said differently."
    assert by_name["key_step"].tex_labels == ("lem:key",)
    assert by_name["hidden"].private
    assert by_name["aux"].helper
    assert not by_name["stray"].helper


def test_a_theorem_is_judged_by_its_signature_and_a_definition_by_its_whole_source() -> None:
    by_name = {d.name: d for d in read_lean(PAIRED / "paper.lean").decls}
    assert by_name["main_theorem"].judged_text == "theorem main_theorem (n : ℕ) : n ≤ n ^ 2"
    assert by_name["double"].judged_text == "def double (n : ℕ) : ℕ := 2 * n"


def test_open_scopes_at_the_end_are_reported(tmp_path: Path) -> None:
    lean = tmp_path / "open.lean"
    lean.write_text("namespace A.B\nsection\ntheorem t : True := trivial\n")
    read = read_lean(lean)
    assert read.open_scopes == ("A.B", "")
    assert read.decls[0].full_name == "A.B.t"


def test_a_helper_mark_on_a_section_or_namespace_covers_everything_inside(tmp_path: Path) -> None:
    lean = tmp_path / "helpers.lean"
    lean.write_text(
        "namespace P\n"
        "theorem stated : True := trivial\n"
        "-- helper: the lemmas the proofs need, not the paper's\n"
        "section Lemmas\n"
        "theorem one : True := trivial\n"
        "namespace Deep\ntheorem two : True := trivial\nend Deep\n"
        "end Lemmas\n"
        "namespace Tools -- helper\ntheorem three : True := trivial\nend Tools\n"
        "theorem after : True := trivial\n"
        "end P\n"
    )
    decls = {d.full_name: d.helper for d in read_lean(lean).decls}
    assert decls == {
        "P.stated": False,
        "P.one": True,
        "P.Deep.two": True,
        "P.Tools.three": True,
        "P.after": False,
    }
