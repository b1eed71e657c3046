from __future__ import annotations

import pytest

from jigcli.verifiers.render import (
    Result,
    failure_line,
    mark,
    merge,
    merged_line,
    place,
    result_line,
)


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


def test_merge_puts_the_worst_status_first() -> None:
    results = [
        Result("lean", "proved", "paper.lean"),
        Result("lean", "pending", "paper.lean"),
        Result("lean", "conditional", "paper.lean"),
        Result("compile", "warning", "paper.log"),
        Result("compile", "error", "paper.log"),
    ]
    assert [r.status for r in merge(results)] == ["error", "warn", "conditional", "pending", "ok"]


def test_merge_breaks_a_tie_by_the_higher_glyph_rank() -> None:
    compile_error = Result("compile", "error", "paper.log")
    lean_error = Result("lean", "error", "paper.lean")
    assert merge([compile_error, lean_error]) == [lean_error, compile_error]


def test_a_merged_line_shows_the_winners_mark_and_every_results_words_and_evidence() -> None:
    line = merged_line(
        "paper.tex",
        7,
        [Result("lean", "proved", "paper.lean"), Result("compile", "error", "paper.log", "Oops")],
    )
    assert line.startswith("paper.tex:7: " + mark("error"))
    assert line.index("LaTeX errors · Oops") < line.index("Proved")
    assert "paper.log, paper.lean" in line


def test_an_unknown_verdict_renders_as_pending_with_shared_words() -> None:
    result = Result("lean", "looks-fine", "paper.lean")
    assert result.status == "pending"
    assert result.words == "Not checked yet"


def test_a_failure_is_a_hollow_mark_with_the_verifiers_words_not_a_verdict() -> None:
    line = failure_line("paper.tex", "compile", "not_set_up", detail="pdflatex is not on PATH")
    assert mark("pending") in line
    assert "TeX isn't set up here yet" in line and "pdflatex is not on PATH" in line
    assert ". (" not in line and "(pdflatex is not on PATH)." in line
