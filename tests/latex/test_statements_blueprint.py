"""Reading a blueprint by leanblueprint's rules, and past what LaTeX would stop at.

tests/data/blueprints/rules: `print.tex` (what LaTeX reads) and `web.tex` (what plasTeX reads,
with `\\usepackage[…, thms=definition+lemma+theorem]{blueprint}`) share `content.tex`: a
definition with two labels, a proof never closed, a `\\proves` naming a Lean declaration, a
`\\proves` naming a chapter's label, a proposition and a remark (kinds `thms=` leaves out), and
a statement with a brace never closed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from jigcli.latex.statements import read_statements
from jigcli.latex.statements.model import DEFAULT_GRAPH_KINDS, Statement

RULES = Path(__file__).resolve().parent.parent / "data" / "blueprints" / "rules"


@pytest.fixture
def rules(tmp_path: Path) -> Path:
    shutil.copytree(RULES, tmp_path / "rules")
    return tmp_path / "rules"


def _by_label(root: Path) -> dict[str | None, Statement]:
    return {s.label: s for s in read_statements(root).statements}


def _proof_line(statement: Statement) -> int | None:
    proof = statement.blueprint.proof
    return proof.line if proof else None


def test_a_proof_never_closed_ends_where_the_next_theorem_like_environment_begins(
    rules: Path,
) -> None:
    document = read_statements(rules / "print.tex")
    found = {s.label: s for s in document.statements}
    # The unclosed proof (content.tex:13) proves the lemma before it, with only its own
    # \uses; every later proof still finds its statement.
    assert _proof_line(found["lem:b"]) == 13
    assert found["lem:b"].blueprint.proof.uses == ("def:a",)  # type: ignore[union-attr]
    assert _proof_line(found["lem:c"]) == 21 and _proof_line(found["thm:e"]) == 36
    notice = next(n for n in document.notices if n.line == 13)
    assert notice.file.name == "content.tex"
    assert notice.message == "\\begin{proof} is never closed: read as ending at line 17"


def test_a_proof_never_closed_with_nothing_after_it_ends_at_the_end_of_its_file(
    tmp_path: Path,
) -> None:
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\newtheorem{lemma}{Lemma}\\begin{document}\n"
        "\\begin{lemma}\\label{a}A.\\end{lemma}\n\\begin{proof}\\uses{b}\\leanok\nEasy.\n"
    )
    document = read_statements(tmp_path / "paper.tex")
    (lemma,) = document.statements
    assert lemma.blueprint.proof is not None and lemma.blueprint.proof.uses == ("b",)
    assert [(n.line, n.message) for n in document.notices] == [
        (3, "\\begin{proof} is never closed: read as ending at the end of the file")
    ]


def test_a_numbered_claim_inside_a_proof_does_not_take_the_proof(tmp_path: Path) -> None:
    (tmp_path / "paper.tex").write_text(
        "\\documentclass{article}\\newtheorem{theorem}{Theorem}\\newtheorem{claim}{Claim}\n"
        "\\begin{document}\n\\begin{theorem}\\label{t}T.\\end{theorem}\n"
        "\\begin{proof}\\uses{x}\n\\begin{claim}\\label{c}C.\\end{claim}\n"
        "\\begin{proof}\\uses{y}Of the claim.\\end{proof}\nSo T.\n\\end{proof}\n"
        "\\end{document}\n"
    )
    document = read_statements(tmp_path / "paper.tex")
    found = {s.label: s for s in document.statements}
    assert found["t"].blueprint.proof.uses == ("x",)  # type: ignore[union-attr]
    assert found["c"].blueprint.proof.uses == ("y",)  # type: ignore[union-attr]
    assert document.notices == ()  # nothing was left open


def test_a_proves_naming_no_label_proves_the_statement_before_it(rules: Path) -> None:
    # plastexdepgraph: `\proves{X}` sets nothing when X is no label, then `find_proved_thm`
    # takes the statement before the proof.
    theorem = _by_label(rules / "print.tex")["thm:e"]
    assert theorem.blueprint.proof is not None and theorem.blueprint.proof.leanok


def test_a_proves_naming_a_chapter_s_label_proves_no_statement(rules: Path) -> None:
    # `\proves{chap:rules}` resolves to the chapter (plasTeX's labels map), which is no node:
    # the remark before the proof does not get it.
    assert _by_label(rules / "print.tex")["rem:f"].blueprint.proof is None


def test_every_label_of_a_statement_names_it(rules: Path) -> None:
    definition = _by_label(rules / "print.tex")["def:a"]
    assert definition.labels == ("def:a", "def:a-alias")


def test_a_brace_never_closed_in_a_statement_is_a_notice_at_its_line(rules: Path) -> None:
    document = read_statements(rules / "print.tex")
    assert _by_label(rules / "print.tex")["thm:g"].uses == ("lem:b",)  # still read
    (brace,) = [n for n in document.notices if n.line == 55]
    assert brace.message.startswith("a { in this theorem is never closed before \\end{theorem}")
    (tmp := rules / "stray.tex").write_text(
        "\\documentclass{article}\\newtheorem{lemma}{Lemma}\\begin{document}\n"
        "\\begin{lemma}\\label{a}\nA } too many, \\{ and \\} are text.\n\\end{lemma}\n"
    )
    assert [(n.line, n.message) for n in read_statements(tmp).notices] == [
        (3, "a } in this lemma closes nothing: LaTeX stops with an error here")
    ]


def test_the_graph_kinds_come_from_web_tex_beside_print_tex(rules: Path) -> None:
    for root in ("print.tex", "web.tex"):
        document = read_statements(rules / root)
        assert document.graph_kinds == ("definition", "lemma", "theorem")
        place = document.graph_kinds_place
        assert place is not None and (place.file.name, place.line) == ("web.tex", 3)


def test_without_thms_the_graph_shows_plastexdepgraph_s_default_kinds(rules: Path) -> None:
    web = rules / "web.tex"
    web.write_text(web.read_text().replace(", thms=definition+lemma+theorem", ""))
    document = read_statements(rules / "print.tex")
    assert document.graph_kinds == DEFAULT_GRAPH_KINDS
    assert document.graph_kinds_place is None
