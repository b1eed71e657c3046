"""The log reader on hand-written logs in pdfTeX's shapes (the real ones are in test_compile)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.latex.diagnostic import Diagnostic
from jigcli.latex.log import engine_words, parse_log

BANNER = (
    "This is pdfTeX, Version 3.141592653-2.6-1.40.24 (TeX Live 2022/Debian) "
    "(preloaded format=pdflatex 2023.1.1)  1 JAN 2024 12:00\n"
)
SYSTEM = "/usr/share/texlive/texmf-dist/tex/latex"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "paper.tex").write_text(
        "\\documentclass{article}\n\\usepackage{broken}\n\\begin{document}\n"
        "\\input{intro}\n\\label{a}\n\\label{a}\n\\end{document}\n"
    )
    (paper / "intro.tex").write_text("One.\nTwo (with a paren.\nThree.\n")
    return paper


def parse(folder: Path, body: str) -> list[tuple[str, int | None, str, str]]:
    report = parse_log(BANNER + body, folder)
    return [(d.file, d.line, d.severity, d.message) for d in report.diagnostics]


@pytest.mark.parametrize(
    ("banner", "words"),
    [
        (BANNER, "pdfTeX · TeX Live 2022"),
        (
            "This is LuaHBTeX, Version 1.15.0 (TeX Live 2022/Debian)  (format=lualatex 2023.1.1)",
            "LuaHBTeX · TeX Live 2022",
        ),
        (
            "This is XeTeX, Version 3.141592653-2.6-0.999994 (TeX Live 2022) (format=xe)",
            "XeTeX · TeX Live 2022",
        ),
        ("Something else entirely", None),
    ],
)
def test_the_engine_is_read_from_the_banner(banner: str, words: str | None) -> None:
    assert engine_words(banner + "\n**paper.tex\n") == words


def test_a_warning_is_placed_in_the_file_open_at_that_point(folder: Path) -> None:
    body = (
        "(./paper.tex (./intro.tex\n"
        "LaTeX Warning: Reference `x' on page 1 undefined on input line 2.\n\n"
        ")\nLaTeX Warning: Citation `y' on page 1 undefined on input line 4.\n\n)\n"
    )
    assert parse(folder, body) == [
        ("intro.tex", 2, "warning", "Reference `x' on page 1 undefined."),
        ("paper.tex", 4, "warning", "Citation `y' on page 1 undefined."),
    ]


def test_a_bang_error_takes_its_line_from_the_context_and_names_the_control_sequence(
    folder: Path,
) -> None:
    body = (
        "(./paper.tex (./intro.tex\n"
        "! Undefined control sequence.\n"
        "l.2 Two (with \\oops\n"
        "                   a paren.\n"
        "The control sequence at the end of the top line\n"
        "of your error message was never \\def'ed.\n\n"
        ")\nLaTeX Warning: Reference `z' on page 1 undefined on input line 5.\n\n)\n"
    )
    assert parse(folder, body) == [
        ("intro.tex", 2, "error", "Undefined control sequence \\oops"),
        ("paper.tex", 5, "warning", "Reference `z' on page 1 undefined."),
    ]


def test_the_source_text_in_a_box_warning_does_not_confuse_the_file_tracking(
    folder: Path,
) -> None:
    body = (
        "(./paper.tex (./intro.tex\n"
        "Overfull \\hbox (12.0pt too wide) in paragraph at lines 2--3\n"
        "[]\\OT1/cmr/m/n/10 Two (with a paren.\n\n"
        ")\nLaTeX Warning: Reference `w' on page 1 undefined on input line 5.\n\n)\n"
    )
    assert parse(folder, body) == [
        ("intro.tex", 2, "info", "Overfull \\hbox (12.0pt too wide)"),
        ("paper.tex", 5, "warning", "Reference `w' on page 1 undefined."),
    ]


def test_a_package_warning_joins_its_continuation_lines(folder: Path) -> None:
    body = (
        "(./paper.tex\n"
        "Package hyperref Warning: Token not allowed in a PDF string (Unicode):\n"
        "(hyperref)                removing `math shift' on input line 4.\n\n)\n"
    )
    assert parse(folder, body) == [
        (
            "paper.tex",
            4,
            "warning",
            "Package hyperref: Token not allowed in a PDF string (Unicode): removing `math shift'.",
        )
    ]


def test_an_error_inside_a_package_lands_on_the_usepackage_line(folder: Path) -> None:
    sty = folder.parent / "texmf" / "broken.sty"  # outside the paper's folder: a system file
    sty.parent.mkdir()
    sty.write_text("% a package\n")
    body = (
        f"(./paper.tex ({sty}\n"
        f"{sty}:12: Package broken Error: Something went wrong.\n\n"
        "See the broken package documentation for explanation.\n\n"
        "l.12 \\broken@fail\n\n"
        "))\n"
    )
    assert parse(folder, body) == [
        ("paper.tex", 2, "error", "Package broken Error: Something went wrong.")
    ]


def test_a_duplicate_label_is_placed_on_its_second_definition(folder: Path) -> None:
    body = "(./paper.tex (./paper.aux\n\nLaTeX Warning: Label `a' multiply defined.\n\n))\n"
    assert parse(folder, body) == [("paper.tex", 6, "warning", "Label `a' multiply defined.")]


def test_summary_warnings_are_not_repeated(folder: Path) -> None:
    body = "(./paper.tex\nLaTeX Warning: There were undefined references.\n\n)\n"
    assert parse(folder, body) == []


def test_font_substitutions_are_info(folder: Path) -> None:
    body = (
        "(./paper.tex\n"
        "LaTeX Font Warning: Font shape `OT1/cmr/bx/sc' undefined\n"
        "(Font)              using `OT1/cmr/bx/n' instead on input line 3.\n\n)\n"
    )
    [(file, line, severity, _)] = parse(folder, body)
    assert (file, line, severity) == ("paper.tex", 3, "info")


def test_a_lone_emergency_stop_at_the_end_is_placed_at_the_last_line(folder: Path) -> None:
    body = (
        "(./paper.tex\n)\n! Emergency stop.\n<*> paper.tex\n\n"
        "*** (job aborted, no legal \\end found)\n\n"
    )
    assert parse(folder, body) == [
        (
            "paper.tex",
            7,
            "error",
            "Emergency stop: job aborted, no legal \\end found "
            "(the file ended before \\end{document})",
        )
    ]


def test_a_missing_file_is_remembered_and_placed_where_it_is_named(folder: Path) -> None:
    body = (
        "(./paper.tex\n\n! LaTeX Error: File `broken.sty' not found.\n\n"
        "Type X to quit or <RETURN> to proceed,\nor enter new name. (Default extension: sty)\n\n"
        "Enter file name: \n./paper.tex:3: Emergency stop.\n<read *> \n         \n"
        "l.3 \\begin\n          {document}^^M\n*** (cannot \\read from terminal in nonstop modes)\n"
    )
    report = parse_log(BANNER + body, folder)
    assert report.missing_files == ["broken.sty"]
    assert report.diagnostics == [
        Diagnostic("paper.tex", 2, "error", "LaTeX Error: File `broken.sty' not found.")
    ]


@given(st.text(alphabet="()!l.:0123456789 \n./paper.tex LaTeX Warning:", max_size=400))
def test_any_log_reads_without_crashing(text: str) -> None:
    folder = Path(__file__).resolve().parent.parent / "data" / "latex" / "clean"
    report = parse_log(text, folder)
    assert all(d.severity in ("error", "warning", "info") for d in report.diagnostics)


def test_a_line_the_tracked_file_lacks_is_placed_in_the_file_that_has_it(folder: Path) -> None:
    # A stray `)` in the log's own text closes chapter.tex early: the warning's line 9519 is
    # not in paper.tex (7 lines) but in chapter.tex, where the reference is.
    chapter = ["Text."] * 9600
    chapter[9518] = "See \\ref{far}."
    (folder / "chapter.tex").write_text("\n".join(chapter) + "\n")
    body = (
        "(./paper.tex (./chapter.tex\n"
        "a typeout with a stray ) paren\n"
        "LaTeX Warning: Reference `far' on page 88 undefined on input line 9519.\n\n"
        "))\n"
    )
    assert parse(folder, body) == [
        ("chapter.tex", 9519, "warning", "Reference `far' on page 88 undefined.")
    ]


def test_a_line_no_file_read_has_is_no_line(folder: Path) -> None:
    body = (
        "(./paper.tex\nLaTeX Warning: Reference `x' on page 1 undefined on input line 500.\n\n)\n"
    )
    assert parse(folder, body) == [
        ("paper.tex", None, "warning", "Reference `x' on page 1 undefined.")
    ]


def test_an_environment_ended_by_the_wrong_end_is_placed_at_that_end(folder: Path) -> None:
    """The log's `l.8` names the misspelt `\\end{prof}`; the `\\begin` (line 6) stays in the
    words, so an editor jumps to what must be fixed."""
    body = (
        "(./paper.tex\n"
        "! LaTeX Error: \\begin{proof} on input line 6 ended by \\end{prof}.\n\n"
        "See the LaTeX manual or LaTeX Companion for explanation.\n"
        "Type  H <return>  for immediate help.\n"
        " ...                                              \n"
        "                                                  \n"
        "l.8 \\end{prof}\n\n)\n"
    )
    [(file, line, severity, message)] = parse(folder, body)
    assert (file, line, severity) == ("paper.tex", 8, "error")
    assert "\\begin{proof} on input line 6 ended by \\end{prof}" in message
