"""Pairing a paper's statements with the declarations of its .lean and its Lake project."""

from __future__ import annotations

from pathlib import Path

from jigcli.latex.statements import read_statements
from jigcli.lean.declarations import read_lean
from jigcli.paper.pairing import open_paper, pair_statements

PAIRED = Path(__file__).resolve().parent.parent / "data" / "papers" / "paired"
TWO_LIBS = Path(__file__).resolve().parent.parent / "data" / "blueprints" / "two-libs"


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
