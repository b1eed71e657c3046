"""The statements a paper's PDF shows: detection, numbering, text, metadata."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.latex.statements import Statement, mask, read_statements

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
