"""Reading a paper's .lean and pairing its statements with the declarations."""

from __future__ import annotations

from pathlib import Path

from jigcli.audit.pairing import open_paper, pair_statements, read_lean
from jigcli.latex.statements import read_statements

PAIRED = Path(__file__).resolve().parent.parent / "data" / "papers" / "paired"
TWO_LIBS = Path(__file__).resolve().parent.parent / "data" / "blueprints" / "two-libs"


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


def test_each_pairing_rule_in_order() -> None:
    statements = read_statements(PAIRED / "paper.tex").statements
    pairing = pair_statements(statements, read_lean(PAIRED / "paper.lean"))
    pairs = [(p.statement.label, p.decl_name, p.rule) for p in pairing.pairs]
    assert pairs == [
        ("thm:main", "Paper.main_theorem", "blueprint"),
        ("lem:key", "Paper.key_step", "tex-comment"),
        ("lem:doc", "Paper.documented", "docstring"),
        ("thm:square", "Paper.square", "name"),
        ("cor:comm", "Nat.add_comm", "blueprint"),
        ("cor:comm", "Paper.also", "blueprint"),
    ]
    assert next(p for p in pairing.pairs if p.decl_name == "Nat.add_comm").decl is None


def test_an_ambiguous_label_is_not_guessed_and_says_why() -> None:
    statements = read_statements(PAIRED / "paper.tex").statements
    pairing = pair_statements(statements, read_lean(PAIRED / "paper.lean"))
    assert [s.label for s in pairing.unpaired] == ["lem:two-ways", "thm:missing"]
    two_ways = pairing.unpaired[0]
    assert "Paper.two_ways, Paper.lem_two_ways" in pairing.why_unpaired[two_ways]


def test_unpaired_public_theorems_are_unstated_and_helpers_are_exempt() -> None:
    statements = read_statements(PAIRED / "paper.tex").statements
    pairing = pair_statements(statements, read_lean(PAIRED / "paper.lean"))
    assert [d.full_name for d in pairing.unstated] == [
        "Paper.two_ways",
        "Paper.lem_two_ways",
        "Paper.stray",
        "Outside.thing",
    ]


def test_without_a_lean_file_nothing_pairs(tmp_path: Path) -> None:
    statements = read_statements(PAIRED / "paper.tex").statements
    pairing = pair_statements(statements, None)
    assert len(pairing.unpaired) == 5 and not pairing.unstated
    assert [p.decl_name for p in pairing.pairs] == [
        "Paper.main_theorem",
        "Nat.add_comm",
        "Paper.also",
    ]


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


def test_blueprint_names_the_sibling_lacks_are_found_in_the_lake_project() -> None:
    paper = open_paper(TWO_LIBS / "blueprint" / "src" / "print.tex")
    where = {
        p.decl_name: (p.where.path.name if p.where else None, p.decl.kind if p.decl else None)
        for p in paper.pairing.pairs
    }
    assert where == {
        "Alpha.double": ("Basic.lean", "def"),
        "Alpha.double_even": ("Basic.lean", "theorem"),
        "Nat.add_comm": (None, None),
        "Beta.main": ("Main.lean", "theorem"),
        "Beta.open_step": ("Main.lean", "theorem"),
    }
    assert not paper.pairing.unstated  # a project's lemmas are never unstated
