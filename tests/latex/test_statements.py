"""The statements a paper's PDF shows: detection, numbering, text, metadata."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.latex.statements import read_statements
from jigcli.latex.statements.masking import mask
from jigcli.latex.statements.model import Statement

PAPERS = Path(__file__).resolve().parent.parent / "data" / "papers"


def _numbers(path: Path) -> dict[str | None, str | None]:
    return {s.label: s.number for s in read_statements(path).statements}


def test_numbering_within_section_with_a_shared_counter_and_unnumbered_starred() -> None:
    statements = read_statements(PAPERS / "numbering" / "numbering.tex").statements
    assert [(s.kind, s.number, s.label) for s in statements] == [
        ("theorem", "1.1", "thm:main"),
        ("lemma", "1.2", "lem:helper"),
        ("definition", "1", "def:even"),
        ("lemma", "2.1", "lem:two"),
        ("theorem", "2.2", None),
        ("definition", "2", "def:odd"),
        ("theorem", "A.1", "thm:appendix"),
    ]


def test_a_statement_carries_its_title_file_lines_and_text() -> None:
    main = read_statements(PAPERS / "numbering" / "numbering.tex").statements[0]
    assert main.title == "Main result"
    assert main.file == PAPERS / "numbering" / "numbering.tex"
    assert (main.line, main.end_line) == (9, 11)
    assert main.text == "Every $n$ is even."


def test_book_numbering_by_chapter_and_section_and_lettered_appendix_chapters() -> None:
    assert _numbers(PAPERS / "book" / "book.tex") == {
        "thm:a": "1.1.1",
        "prop:b": "1.1",
        "prop:c": "2.1",
        "thm:d": "2.2.1",
        "thm:e": "A.1.1",
    }


def test_comments_iffalse_and_verbatim_blocks_hide_statements() -> None:
    statements = read_statements(PAPERS / "traps" / "traps.tex").statements
    assert [(s.label, s.number) for s in statements] == [
        ("thm:first", "1"),
        ("thm:else", "2"),
        ("thm:url", "3"),
    ]


def test_percent_in_url_is_text_and_a_trailing_comment_is_not() -> None:
    statements = read_statements(PAPERS / "traps" / "traps.tex").statements
    first, _, with_url = statements
    assert first.text == "Counted first: $1 + 1 = 2$."
    assert "https://example.org/%7E} inside; $x \\iff y$." in with_url.text


def test_percent_inside_url_href_and_verb_is_not_a_comment() -> None:
    source = "\\url{a%b} \\href{c%d}{e} \\verb|f%g| 1\\% h % gone\n"
    masked = mask(source)
    assert masked.visible == "\\url{a%b} \\href{c%d}{e} \\verb|f%g| 1\\% h       \n"
    assert "a%b" not in masked.structural and "f%g" not in masked.structural


def test_a_double_backslash_before_percent_still_starts_a_comment() -> None:
    assert mask("a \\\\% gone\nb").visible == "a \\\\" + " " * 6 + "\nb"


def test_items_are_parts_of_their_theorem_and_loose_items_are_never_statements() -> None:
    statements = read_statements(PAPERS / "items" / "items.tex").statements
    assert [(s.kind, s.number, s.label) for s in statements] == [("theorem", "1", "thm:parts")]
    assert "\\item[(b)] $n^2 \\ge n$." in statements[0].text


def test_inputs_and_includes_are_read_in_order_with_local_package_declarations() -> None:
    statements = read_statements(PAPERS / "inputs" / "main.tex").statements
    assert [(s.label, s.number, s.file.name) for s in statements] == [
        ("thm:one", "1.1", "one.tex"),
        ("cor:two", "2.1", "two.tex"),
        ("thm:three", "2.2", "three.tex"),
    ]
    assert statements[1].title == "Second"
    assert statements[1].line == 2


def _copy_aux_paper(tmp_path: Path) -> Path:
    folder = tmp_path / "aux"
    shutil.copytree(PAPERS / "aux", folder)
    return folder / "paper.tex"


def test_an_up_to_date_aux_gives_the_numbers(tmp_path: Path) -> None:
    tex = _copy_aux_paper(tmp_path)
    os.utime(tex, ns=(1_000_000_000, 1_000_000_000))
    document = read_statements(tex)
    assert document.numbered_by_aux
    assert [s.number for s in document.statements] == ["7", "3.2", "2"]


def test_a_stale_aux_is_ignored(tmp_path: Path) -> None:
    tex = _copy_aux_paper(tmp_path)
    aux = tex.with_suffix(".aux")
    os.utime(aux, ns=(1_000_000_000, 1_000_000_000))
    document = read_statements(tex)
    assert not document.numbered_by_aux
    assert [s.number for s in document.statements] == ["1", "1", "2"]


def test_without_an_aux_numbers_are_computed(tmp_path: Path) -> None:
    tex = _copy_aux_paper(tmp_path)
    tex.with_suffix(".aux").unlink()
    assert [s.number for s in read_statements(tex).statements] == ["1", "1", "2"]


def test_blueprint_lean_and_uses_are_read_and_kept_out_of_the_text(tmp_path: Path) -> None:
    tex = tmp_path / "bp.tex"
    tex.write_text(
        "\\newtheorem{theorem}{Theorem}\n"
        "\\begin{theorem}\\label{thm:x}\\lean{Foo.bar, Foo.baz}\\leanok\n"
        "  \\uses{lem:a,lem:b} Statement $x$.\n"
        "\\end{theorem}\n"
    )
    (statement,) = read_statements(tex).statements
    assert statement.lean == ("Foo.bar", "Foo.baz")
    assert statement.uses == ("lem:a", "lem:b")
    assert statement.text == "Statement $x$."


def test_setcounter_and_numberwithin_are_followed(tmp_path: Path) -> None:
    tex = tmp_path / "counters.tex"
    tex.write_text(
        "\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n\\numberwithin{theorem}{section}\n"
        "\\section{A}\\setcounter{theorem}{4}\n"
        "\\begin{theorem}\\label{t}x\\end{theorem}\n"
    )
    assert _numbers(tex) == {"t": "1.5"}


def test_declaretheorem_siblings_and_unnumbered(tmp_path: Path) -> None:
    tex = tmp_path / "thmtools.tex"
    tex.write_text(
        "\\declaretheorem[numberwithin=section]{theorem}\n"
        "\\declaretheorem[sibling=theorem]{lemma}\n\\declaretheorem[numbered=no]{claim}\n"
        "\\section{S}\\begin{theorem}\\label{a}x\\end{theorem}\n"
        "\\begin{lemma}\\label{b}y\\end{lemma}\\begin{claim}\\label{c}z\\end{claim}\n"
    )
    assert _numbers(tex) == {"a": "1.1", "b": "1.2"}


def test_a_missing_input_is_skipped_and_a_self_input_does_not_loop(tmp_path: Path) -> None:
    tex = tmp_path / "self.tex"
    tex.write_text(
        "\\newtheorem{theorem}{Theorem}\\input{self}\\input{nowhere}\n"
        "\\begin{theorem}\\label{t}x\\end{theorem}\n"
    )
    assert _numbers(tex) == {"t": "1"}


@given(st.text(alphabet="ab%\\{}\n$ |verb", max_size=60))
def test_masking_keeps_length_and_line_breaks(source: str) -> None:
    masked = mask(source)
    for version in (masked.visible, masked.structural):
        assert len(version) == len(source)
        assert [i for i, c in enumerate(version) if c == "\n"] == [
            i for i, c in enumerate(source) if c == "\n"
        ]


def test_statement_is_frozen() -> None:
    statement = read_statements(PAPERS / "numbering" / "numbering.tex").statements[0]
    assert isinstance(statement, Statement)
    with pytest.raises(AttributeError):
        statement.number = "9"  # type: ignore[misc]


# -- what real papers and blueprints do ------------------------------------------------------


def test_theorems_declared_through_the_paper_s_own_macros_are_numbered_as_latex_does() -> None:
    # The numbers pdflatex writes to the .aux for this paper (TeX Live 2022).
    assert _numbers(PAPERS / "macros" / "macros.tex") == {
        "thm:a": "1.1",
        "lem:b": "1.2",
        "cl:c": "1.5",  # shares `equation`: one display, then two numbered rows and the
        "cl:d": "1.7",  # empty one after a final \\; a subequations block counts once
        "st:e": "1",  # \newcounter{stepno}[section]: reset by the section, numbered alone
        "st:f": "1",
        "lem:g": "2.1",
    }


def test_environments_that_wrap_a_theorem_are_statements_numbered_as_latex_does() -> None:
    # The numbers pdflatex writes to the .aux for this paper (TeX Live 2022).
    assert _numbers(PAPERS / "wrappers" / "wrappers.tex") == {
        "thm:plain": "1.1",
        "thm:main": "1.2",
        "thm:untitled": "1.3",
        "lem:key": "1.4",
        "lem:named": "2.1",
        "lem:last": "2.2",
    }
    statements = {
        s.label: s for s in read_statements(PAPERS / "wrappers" / "wrappers.tex").statements
    }
    main = statements["thm:main"]
    assert (main.kind, main.title, main.text) == ("theorem", "Main result", "The main theorem.")
    assert main.blueprint.proof is not None  # `myproof` wraps `proof`
    assert (statements["lem:named"].kind, statements["lem:named"].title) == ("lemma", "Named")
    assert statements["thm:untitled"].title is None
    assert "Not a statement." not in {s.text for s in statements.values()}
    # `namedlemma`'s label is its first argument, given to `\\label{#1}` in its opening code
    assert statements["lem:named"].text == "A named lemma."
    assert read_statements(PAPERS / "wrappers" / "wrappers.tex").dangling_uses() == []


def test_a_wrapper_redefined_to_open_nothing_is_no_longer_a_statement(tmp_path: Path) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text(
        "\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n"
        "\\newenvironment{thm}{\\begin{theorem}}{\\end{theorem}}\n"
        "\\renewenvironment{thm}{\\itshape}{}\n"
        "\\begin{document}\n\\begin{thm}Plain text.\\end{thm}\n\\end{document}\n"
    )
    assert read_statements(paper).statements == ()


@pytest.mark.parametrize("count", ["99999999999999999999", "9" * 5000, "-1", "x", ""])
def test_a_wrapper_with_a_hostile_argument_count_reads_no_arguments(
    tmp_path: Path, count: str
) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text(
        "\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n"
        f"\\newenvironment{{thm}}[{count}]{{\\begin{{theorem}}}}{{\\end{{theorem}}}}\n"
        "\\begin{document}\n\\begin{thm}\\label{t}Text.\\end{thm}\n\\end{document}\n"
    )
    (statement,) = read_statements(paper).statements
    assert (statement.kind, statement.number, statement.label) == ("theorem", "1", "t")


def test_a_wrapper_of_a_wrapper_is_followed_and_one_naming_itself_ends(tmp_path: Path) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text(
        "\\documentclass{article}\n\\newtheorem{theorem}{Theorem}\n"
        "\\newenvironment{thm}[1][]{\\begin{theorem}[#1]}{\\end{theorem}}\n"
        "\\newenvironment{bigthm}{\\begin{thm}}{\\end{thm}}\n"
        "\\newenvironment{loop}{\\begin{loop}}{\\end{loop}}\n"
        "\\begin{document}\n\\begin{bigthm}\\label{a}A.\\end{bigthm}\n"
        "\\begin{loop}\\label{b}B.\\end{loop}\n"
        "\\begin{thm}[T]\\label{c}C.\\end{thm}\n\\end{document}\n"
    )
    found = [(s.kind, s.number, s.label, s.title) for s in read_statements(paper).statements]
    assert found == [("theorem", "1", "a", None), ("theorem", "2", "c", "T")]


def test_a_macro_that_only_typesets_a_theorem_is_not_a_statement() -> None:
    statements = read_statements(PAPERS / "macros" / "macros.tex").statements
    assert "#1" not in {s.text for s in statements}


def test_a_root_without_documentclass_of_its_own_and_front_and_back_matter() -> None:
    # online.tex inputs main.tex (a book); \frontmatter and \backmatter chapters step nothing.
    assert _numbers(PAPERS / "hott" / "online.tex") == {
        "thm:preface": "0.1",
        "lem:first": "1.1",
        "thm:second": "2.1",
        "thm:back": "2.2",
    }


def test_a_macro_that_calls_itself_cannot_stall_the_reader(tmp_path: Path) -> None:
    tex = tmp_path / "bomb.tex"
    tex.write_text(
        "\\newcommand{\\bomb}[1]{\\newtheorem{t#1}{T}\\bomb{#1a}\\bomb{#1b}}\n\\bomb{x}\n"
        "\\newtheorem{theorem}{Theorem}\\begin{theorem}\\label{t}x\\end{theorem}\n"
    )
    assert _numbers(tex) == {"t": "1"}


def test_a_multi_line_label_reads_as_tex_reads_it_and_titles_as_the_pdf_shows_them(
    tmp_path: Path,
) -> None:
    tex = tmp_path / "labels.tex"
    tex.write_text(
        "\\newtheorem{theorem}{Theorem}\n"
        "\\begin{theorem}[On \\texorpdfstring{$\\mathbb{R}$}{R} and {\\em more}]\\label{thm:\n"
        "    long-name}\nx\\end{theorem}\n"
    )
    (statement,) = read_statements(tex).statements
    assert statement.label == "thm: long-name"  # TeX reads the line break as one space
    assert statement.title == "On $\\mathbb{R}$ and {\\em more}"


def test_a_proof_belongs_to_the_statement_before_it_or_to_the_one_it_proves(
    tmp_path: Path,
) -> None:
    tex = tmp_path / "proofs.tex"
    tex.write_text(
        "\\newtheorem{lemma}{Lemma}\n"
        "\\begin{lemma}\\label{a}\\lean{A}\\leanok A.\\end{lemma}\n"
        "Some words between.\n"
        "\\begin{proof}\\leanok\\uses{b} By b.\\end{proof}\n"
        "\\begin{lemma}\\label{b}\\mathlibok B.\\end{lemma}\n"
        "\\begin{lemma}\\label{c}\\notready\\discussion{#12} C.\\end{lemma}\n"
        "\\begin{proof}\\proves{b}\\uses{a, c} Proves b, not c.\\end{proof}\n"
    )
    a, b, c = read_statements(tex).statements
    assert a.blueprint.proof is not None and a.blueprint.proof.uses == ("b",)
    assert a.blueprint.leanok and a.blueprint.proof.leanok
    assert b.blueprint.mathlibok and b.blueprint.leanok  # leanblueprint: mathlibok is leanok
    assert b.blueprint.proof is not None and b.blueprint.proof.uses == ("a", "c")
    assert not b.blueprint.proof.leanok
    assert c.blueprint.proof is None
    assert (c.blueprint.notready, c.blueprint.discussion) == (True, "12")
    assert a.all_uses == ("b",)


def test_dangling_uses_and_lean_outside_statements_are_kept_with_their_places(
    tmp_path: Path,
) -> None:
    tex = tmp_path / "loose.tex"
    tex.write_text(
        "\\newcommand{\\lean}[1]{}\n\\newtheorem{lemma}{Lemma}\n\\section{S}\\label{sec:s}\n"
        "\\begin{lemma}\\label{a}\n  \\uses{sec:s, b:gone}\nA.\\end{lemma}\n"
        "Prose naming \\lean{Loose.name, Other.name}.\n"
        "\\newtheorem*{remark}{Remark}\\begin{remark}\\lean{In.remark}\\end{remark}\n"
        "\\begin{proof}\\lean{In.proof}\\end{proof}\n"
    )
    document = read_statements(tex)
    ((statement, label, place),) = document.dangling_uses()
    assert (statement.label, label, place.line) == ("a", "b:gone", 5)
    assert [(p.line, p.names) for p in document.stray_lean] == [
        (7, ("Loose.name", "Other.name")),
        (8, ("In.remark",)),  # an unnumbered environment is not a statement the PDF numbers
        (9, ("In.proof",)),
    ]


def test_a_missing_input_is_kept_and_tex_s_own_files_are_not_missing(tmp_path: Path) -> None:
    tex = tmp_path / "inputs.tex"
    tex.write_text(
        "\\input{glyphtounicode}\n\\input{generated/names}\n\\input{\\jobname-extra}\n"
        "\\IfFileExists{optional.tex}{\\input{optional}}{}\n"
    )
    places = [(p.line, p.command, p.names) for p in read_statements(tex).missing]
    assert places == [(2, "input", ("generated/names",))]


def test_if_file_exists_takes_the_branch_tex_takes(tmp_path: Path) -> None:
    tex = tmp_path / "branches.tex"
    (tmp_path / "present.tex").write_text("\\begin{theorem}\\label{in}x\\end{theorem}\n")
    tex.write_text(
        "\\newtheorem{theorem}{Theorem}\n"
        "\\IfFileExists{present.tex}{\\input{present}}{\\begin{theorem}\\label{no}\\end{theorem}}\n"
        "\\IfFileExists{absent.tex}{\\begin{theorem}\\label{no2}\\end{theorem}}{}\n"
        "\\begin{theorem}\\label{last}y\\end{theorem}\n"
    )
    assert _numbers(tex) == {"in": "1", "last": "2"}


def test_an_input_outside_the_paper_s_folder_is_never_read_and_is_missing(tmp_path: Path) -> None:
    from jigcli.latex.statements.model import missing_words

    (tmp_path / "outside.tex").write_text("\\begin{theorem}\\label{planted}x\\end{theorem}\n")
    paper = tmp_path / "paper" / "paper.tex"
    paper.parent.mkdir()
    paper.write_text(
        "\\newtheorem{theorem}{Theorem}\n\\input{../outside}\n\\input{/etc/hostname}\n"
        "\\begin{theorem}\\label{own}y\\end{theorem}\n"
    )
    document = read_statements(paper)
    assert [s.label for s in document.statements] == ["own"]
    assert [(p.line, p.names) for p in document.missing] == [
        (2, ("../outside",)),
        (3, ("/etc/hostname",)),
    ]
    assert missing_words(document.missing[0]) == (
        "\\input{../outside}: outside the paper's folder, which TeX may not read under jig"
    )
