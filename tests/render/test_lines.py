from __future__ import annotations

import pytest

from jigcli.render.lines import failure_line, mark, place, result_line


def test_place_is_path_line_colon_for_editors() -> None:
    assert place("paper.tex", 12) == "paper.tex:12:"
    assert place("paper.tex", None) == "paper.tex:"


@pytest.mark.parametrize(
    ("status", "glyph"),
    [("ok", "●"), ("warn", "●"), ("error", "●"), ("conditional", "○"), ("pending", "○")],
)
def test_marks_are_filled_for_ok_warn_error_and_hollow_otherwise(status: str, glyph: str) -> None:
    assert glyph in mark(status)


def test_result_line_escapes_the_words_and_names_the_evidence() -> None:
    line = result_line(
        "paper.tex", 3, "error", "Undefined control sequence \\foo[x]", evidence="paper.log"
    )
    assert line.startswith("paper.tex:3: ")
    assert "\\foo\\[x]" in line  # rich markup escaped, so the words print as written
    assert "(see paper.log)" in line


def test_a_failure_is_a_hollow_mark_with_the_verifiers_words_not_a_verdict() -> None:
    line = failure_line("paper.tex", "compile", "not_set_up", detail="pdflatex is not on PATH")
    assert mark("pending") in line
    assert "TeX isn't set up here yet" in line and "pdflatex is not on PATH" in line
    assert ". (" not in line and "(pdflatex is not on PATH)." in line


def test_a_refusal_is_a_filled_error_mark_not_a_hollow_one() -> None:
    line = failure_line("paper.tex", "compile", "refused", detail="it reads a file outside")
    assert mark("error") in line and mark("pending") not in line
    assert "TeX refused to build this document" in line
