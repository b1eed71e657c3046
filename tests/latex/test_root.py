from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from jigcli.errors import UsageError
from jigcli.latex.root import (
    declares_document,
    find_root,
    inclusions,
    source_files,
    strip_comments,
    tex_finds,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "latex"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "jig.yaml").write_text("modules: []\n")  # the project's top: the search stops here
    return tmp_path


def test_a_file_with_documentclass_is_its_own_root() -> None:
    paper = DATA / "clean" / "paper.tex"
    assert find_root(paper) == paper.resolve()


def test_a_name_without_tex_is_read_as_the_tex_file() -> None:
    assert find_root(DATA / "clean" / "paper") == (DATA / "clean" / "paper.tex").resolve()


def test_an_included_file_resolves_to_the_document_that_inputs_it() -> None:
    root = DATA / "multifile" / "main.tex"
    assert find_root(DATA / "multifile" / "sections" / "results.tex") == root.resolve()


def test_the_root_is_found_through_a_chain_of_inputs(project: Path) -> None:
    write(project / "paper.tex", "\\documentclass{article}\n\\input{parts/all}\n")
    write(project / "parts" / "all.tex", "\\input parts/deep/one\n")
    deepest = write(project / "parts" / "deep" / "one.tex", "Hello.\n")
    assert find_root(deepest) == (project / "paper.tex").resolve()


def test_documentclass_in_a_comment_or_verb_does_not_make_a_root(project: Path) -> None:
    chapter = DATA / "no-documentclass" / "chapter.tex"
    assert not declares_document(chapter)
    with pytest.raises(UsageError, match="no \\\\documentclass"):
        find_root(write(project / "chapter.tex", chapter.read_text()))


def test_an_input_inside_a_comment_or_verbatim_is_not_an_input(project: Path) -> None:
    write(
        project / "paper.tex",
        "\\documentclass{article}\n% \\input{orphan}\n"
        "\\begin{verbatim}\n\\input{orphan}\n\\end{verbatim}\n",
    )
    orphan = write(project / "orphan.tex", "Orphan.\n")
    with pytest.raises(UsageError):
        find_root(orphan)


def test_a_missing_file_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="No such file"):
        find_root(DATA / "clean" / "absent.tex")


def test_a_folder_names_its_only_document(project: Path) -> None:
    paper = write(project / "paper.tex", "\\documentclass{article}\n")
    write(project / "chapter.tex", "No document here.\n")
    assert find_root(project) == paper.resolve()


def test_a_folder_with_several_documents_names_them_and_asks_for_one(project: Path) -> None:
    write(project / "print.tex", "\\documentclass{report}\n")
    write(project / "web.tex", "\\documentclass{report}\n")
    with pytest.raises(UsageError, match=r"several documents \(print\.tex, web\.tex\)"):
        find_root(project)


def test_a_folder_s_latexmkrc_default_file_is_its_document(project: Path) -> None:
    write(project / "print.tex", "\\documentclass{report}\n")
    web = write(project / "web.tex", "\\documentclass{report}\n")
    write(project / "latexmkrc", "$pdf_mode = 1;\n@default_files = ('web.tex');\n")
    assert find_root(project) == web.resolve()


def test_a_folder_without_a_document_is_a_usage_error(project: Path) -> None:
    with pytest.raises(UsageError, match="holds no LaTeX document"):
        find_root(project)


def test_inclusions_name_their_line_command_and_file() -> None:
    root = DATA / "multifile" / "main.tex"
    found = inclusions(root, root.parent)
    assert [(i.line, i.command, i.name) for i in found] == [
        (3, "input", "sections/intro"),
        (4, "include", "sections/results"),
    ]
    assert found[0].target == (root.parent / "sections" / "intro.tex").resolve()


def test_includegraphics_and_inputencoding_are_not_inclusions(project: Path) -> None:
    paper = write(
        project / "paper.tex",
        "\\documentclass{article}\n\\inputencoding{utf8}\n\\includegraphics{fig}\n"
        "\\input{missing}\n",
    )
    found = inclusions(paper, project)
    assert [(i.name, i.target) for i in found] == [("missing", None)]


def test_source_files_lists_the_root_then_what_it_reads_in_order() -> None:
    root = DATA / "multifile" / "main.tex"
    assert [p.relative_to(root.parent.resolve()).as_posix() for p in source_files(root)] == [
        "main.tex",
        "sections/intro.tex",
        "sections/results.tex",
    ]


def test_a_percent_after_a_backslash_is_text() -> None:
    assert strip_comments("50\\% done % gone\nnext") == "50\\% done \nnext"


@given(st.text(alphabet="ab%\\{}\n verbatim", max_size=200))
def test_strip_comments_keeps_every_newline(text: str) -> None:
    assert strip_comments(text).count("\n") == text.count("\n")


PAPERS = DATA.parent / "papers"


def test_a_file_that_inputs_its_documentclass_is_its_own_root() -> None:
    online = PAPERS / "hott" / "online.tex"
    assert declares_document(online)
    assert find_root(online) == online.resolve()
    assert find_root(PAPERS / "hott" / "opt-color.tex") == online.resolve()


def test_a_chapter_s_root_is_the_latexmkrc_s_default_file_before_the_others(project: Path) -> None:
    chapter = write(project / "chapter.tex", "\\begin{theorem}x\\end{theorem}\n")
    write(project / "a-draft.tex", "\\documentclass{article}\\begin{document}\\input{chapter}\n")
    printed = write(
        project / "print.tex", "\\documentclass{report}\\begin{document}\\input{chapter}\n"
    )
    assert find_root(chapter).name == "a-draft.tex"
    write(project / "latexmkrc", "@default_files = ('print.tex');  # the one latexmk builds\n")
    assert find_root(chapter) == printed.resolve()


def test_tex_finds_its_own_files_through_kpsewhich_and_not_the_papers() -> None:
    assert tex_finds("article.cls")
    assert not tex_finds("no-such-file-anywhere-jig")


def test_a_latexmkrc_naming_a_file_outside_its_folder_is_not_followed(project: Path) -> None:
    inner = project / "paper"
    write(project / "elsewhere.tex", "\\documentclass{article}\\input{paper/chapter}\n")
    chapter = write(inner / "chapter.tex", "Chapter.\n")
    own = write(inner / "own.tex", "\\documentclass{article}\\input{chapter}\n")
    write(inner / "latexmkrc", "@default_files = ('../elsewhere.tex');\n")
    assert find_root(chapter) == own.resolve()
