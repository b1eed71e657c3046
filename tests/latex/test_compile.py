"""`compile` against real TeX Live: each corpus paper's verdict, status and `file:line`s.

Every build runs on a copy of the paper (tmp), never on tests/data. Papers that are only read
are built once per module and shared across the assertions about them.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from jigcli.errors import UsageError
from jigcli.latex import state
from jigcli.latex.compile import (
    BuildResult,
    EngineChoice,
    build,
    check,
    choose_engine,
    describe,
)
from jigcli.latex.root import find_root
from jigcli.verifiers.registry import verifier_status

DATA = Path(__file__).resolve().parent.parent / "data" / "latex"

pytestmark = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="needs TeX Live (pdflatex); .ci/run installs it"
)


def copy_corpus(destination: Path) -> Path:
    shutil.copytree(DATA, destination)
    (destination / "jig.yaml").write_text("modules: []\n")  # the project's top
    return destination


def compile_file(path: Path, **options: float) -> BuildResult:
    root = find_root(path)
    return build(root, choose_engine(root, None).engine, **options)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_corpus(tmp_path_factory.mktemp("shared") / "corpus")


@pytest.fixture(scope="module")
def built(corpus: Path) -> Callable[[str], BuildResult]:
    """Build a corpus paper once per module; later asks get the same result."""
    results: dict[str, BuildResult] = {}

    def get(relative: str) -> BuildResult:
        if relative not in results:
            results[relative] = compile_file(corpus / relative)
        return results[relative]

    return get


@pytest.fixture
def fresh(tmp_path: Path) -> Path:
    """A private copy of the corpus, for tests that edit or break it."""
    return copy_corpus(tmp_path / "corpus")


def places(result: BuildResult) -> set[tuple[str, int | None, str]]:
    return {(d.file, d.line, d.severity) for d in result.diagnostics}


def message(result: BuildResult, file: str, line: int | None) -> str:
    return " | ".join(d.message for d in result.diagnostics if (d.file, d.line) == (file, line))


# -- verdicts on the corpus -------------------------------------------------------------------


def test_a_clean_paper_compiles_with_a_pdf_synctex_and_the_engines_real_version(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("clean/paper.tex")
    assert (result.verdict, verifier_status("compile", result.verdict)) == ("compiled", "ok")
    assert result.diagnostics == []
    assert result.pdf is not None and result.pdf.is_file()
    assert result.root.with_suffix(".synctex.gz").is_file()
    assert re.fullmatch(r"pdfTeX · TeX Live \d{4}", result.engine_words or "")


def test_errors_are_reported_at_their_real_lines(built: Callable[[str], BuildResult]) -> None:
    result = built("errors/paper.tex")
    assert (result.verdict, verifier_status("compile", result.verdict)) == ("error", "error")
    assert places(result) == {("paper.tex", 5, "error"), ("paper.tex", 7, "error")}
    assert "\\undefinedmacro" in message(result, "paper.tex", 5)
    # TeX notices the open list at \end{document} (line 9); the list began on line 7.
    assert "\\begin{itemize}" in message(result, "paper.tex", 7)


def test_a_misspelt_end_is_reported_at_that_end_not_at_its_begin(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("wrong-end/paper.tex")
    assert ("paper.tex", 11, "error") in places(result)
    assert ("paper.tex", 9, "error") not in places(result)
    assert "\\begin{proof} on input line 9 ended by \\end{prof}" in message(result, "paper.tex", 11)


def test_undefined_references_citations_and_labels_are_warnings_boxes_are_info(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("warnings/paper.tex")
    assert (result.verdict, verifier_status("compile", result.verdict)) == ("warning", "warn")
    assert places(result) == {
        ("paper.tex", 4, "warning"),
        ("paper.tex", 6, "warning"),
        ("paper.tex", 7, "info"),
    }
    assert "sec:missing" in message(result, "paper.tex", 4)
    assert "nobody2020" in message(result, "paper.tex", 4)
    assert "multiply defined" in message(result, "paper.tex", 6)
    assert "Overfull \\hbox" in message(result, "paper.tex", 7)


def test_a_multi_file_paper_is_built_from_its_root_with_diagnostics_per_file(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("multifile/sections/intro.tex")
    assert result.root.name == "main.tex"
    assert result.verdict == "error"
    assert ("sections/intro.tex", 3, "error") in places(result)
    assert "\\notdefinedanywhere" in message(result, "sections/intro.tex", 3)
    assert ("sections/results.tex", 2, "warning") in places(result)
    assert "sec:nowhere" in message(result, "sections/results.tex", 2)


def test_a_missing_package_is_an_error_on_its_usepackage_line(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("missing-package/paper.tex")
    assert result.verdict == "error"
    assert places(result) == {("paper.tex", 3, "error")}
    assert "jig-no-such-package.sty" in message(result, "paper.tex", 3)
    assert result.pdf is None


def test_a_paper_that_ends_before_end_document_stops_at_its_last_line(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("no-end/paper.tex")
    assert result.verdict == "error"
    assert places(result) == {("paper.tex", 5, "error")}
    assert "Emergency stop" in message(result, "paper.tex", 5)


def test_bibtex_citations_settle(built: Callable[[str], BuildResult]) -> None:
    result = built("cites-bibtex/paper.tex")
    assert result.verdict == "compiled", result.diagnostics


def test_a_file_with_no_documentclass_and_no_root_is_a_usage_error(corpus: Path) -> None:
    with pytest.raises(UsageError, match="no \\\\documentclass"):
        compile_file(corpus / "no-documentclass" / "chapter.tex")


# -- shell escape is off -----------------------------------------------------------------------


def no_pwned_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("pwned*"))


def test_write18_does_not_run_and_says_so(
    built: Callable[[str], BuildResult], corpus: Path
) -> None:
    result = built("shell-escape/write18.tex")
    assert no_pwned_files(corpus) == []
    assert result.verdict == "warning"
    assert places(result) == {("write18.tex", 3, "warning")}
    assert "did not run: touch pwned-write18" in message(result, "write18.tex", 3)


def test_piped_input_does_not_run(built: Callable[[str], BuildResult], corpus: Path) -> None:
    result = built("shell-escape/pipe-input.tex")
    assert no_pwned_files(corpus) == []
    assert result.verdict == "error"
    assert places(result) == {("pipe-input.tex", 4, "error")}


def test_neither_a_latexmkrc_nor_the_environment_turns_shell_escape_back_on(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = fresh / "shell-escape"
    (folder / "latexmkrc").write_text(
        "system('touch pwned-rc');\n$pdflatex = 'pdflatex -shell-escape %O %S';\n"
    )
    monkeypatch.setenv("shell_escape", "t")
    result = compile_file(folder / "write18.tex")
    assert result.verdict == "warning"
    assert no_pwned_files(fresh) == []


# -- what the last build read ------------------------------------------------------------------


def test_a_no_op_rebuild_starts_no_process(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paper = fresh / "clean" / "paper.tex"
    first = compile_file(paper)
    assert first.started_process and first.verdict == "compiled"
    monkeypatch.setenv("PATH", str(fresh / "no-programs-here"))  # nothing could start now
    again = compile_file(paper)
    assert (again.verdict, again.started_process) == ("compiled", False)
    assert again.pdf == first.pdf


def test_a_touched_but_unchanged_source_is_not_a_change(fresh: Path) -> None:
    paper = fresh / "clean" / "paper.tex"
    compile_file(paper)
    os.utime(paper, ns=(paper.stat().st_atime_ns, paper.stat().st_mtime_ns + 10**9))
    assert check(paper, "pdflatex").verdict == "compiled"
    assert compile_file(paper).started_process is False


def test_no_build_says_stale_once_a_source_changes(fresh: Path) -> None:
    paper = fresh / "multifile" / "main.tex"
    assert check(paper, "pdflatex").verdict == "stale"  # never built
    compile_file(paper)
    assert check(paper, "pdflatex").verdict == "error"  # the last build's own verdict
    intro = fresh / "multifile" / "sections" / "intro.tex"
    intro.write_text(intro.read_text().replace("\\notdefinedanywhere{}", "nothing"))
    stale = check(paper, "pdflatex")
    assert (stale.verdict, verifier_status("compile", stale.verdict)) == ("stale", "warn")
    assert stale.changed == ["sections/intro.tex"]
    assert stale.started_process is False


def test_an_edited_bib_file_is_a_change(fresh: Path) -> None:
    paper = fresh / "cites-bibtex" / "paper.tex"
    compile_file(paper)
    bib = paper.with_name("refs.bib")
    bib.write_text(bib.read_text().replace("1994", "1986"))
    assert check(paper, "pdflatex").changed == ["refs.bib"]


def test_a_deleted_pdf_is_rebuilt(fresh: Path) -> None:
    paper = fresh / "clean" / "paper.tex"
    compile_file(paper)
    paper.with_suffix(".pdf").unlink()
    rebuilt = compile_file(paper)
    assert rebuilt.started_process and rebuilt.pdf is not None and rebuilt.pdf.is_file()


def test_a_missing_input_is_rebuilt_once_it_exists(fresh: Path) -> None:
    paper = fresh / "missing-input" / "paper.tex"
    first = compile_file(paper)
    assert first.verdict == "error"
    assert places(first) == {("paper.tex", 4, "error")}
    assert "chapters/absent.tex" in message(first, "paper.tex", 4)
    (paper.parent / "chapters").mkdir()
    (paper.parent / "chapters" / "absent.tex").write_text("Now it exists.\n")
    assert compile_file(paper).verdict == "compiled"


def test_the_record_lives_in_jigs_cache_and_nothing_of_jigs_beside_the_paper(fresh: Path) -> None:
    paper = fresh / "clean" / "paper.tex"
    compile_file(paper)
    record = state.load(paper)
    assert record is not None and record.path == state.paper_folder(paper) / "state.json"
    assert not record.path.is_relative_to(paper.parent)
    assert "paper.tex" in record.project
    assert not any(name.endswith(".aux") for name in record.project)
    tex_outputs = {".tex", ".aux", ".log", ".pdf", ".fls", ".fdb_latexmk", ".gz"}
    assert {p.suffix for p in paper.parent.iterdir()} <= tex_outputs


# -- failures that are not verdicts ------------------------------------------------------------


def fake_bin(folder: Path, **scripts: str) -> Path:
    folder.mkdir()
    for name, body in scripts.items():
        path = folder / name
        path.write_text("#!/bin/sh\n" + body + "\n")
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return folder


def test_no_engine_on_path_is_not_set_up(fresh: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(fresh / "empty"))
    result = compile_file(fresh / "clean" / "paper.tex")
    assert result.verdict is None and result.failure is not None
    assert result.failure.why == "not_set_up"
    assert verifier_status("compile", result.verdict) == "pending"


def test_an_engine_that_is_killed_is_unreachable(
    fresh: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(fake_bin(tmp_path / "bin", pdflatex="kill -9 $$")))
    result = compile_file(fresh / "clean" / "paper.tex")
    assert result.failure is not None and result.failure.why == "unreachable"
    assert "signal 9" in result.failure.detail


def test_a_build_past_its_time_limit_is_too_big_and_leaves_no_record(fresh: Path) -> None:
    paper = fresh / "infinite-loop" / "paper.tex"
    result = compile_file(paper, timeout=1.0)
    assert result.verdict is None and result.failure is not None
    assert result.failure.why == "too_big"
    assert state.load(paper) is None


def test_without_latexmk_enough_engine_passes_and_bibtex_settle_references(
    fresh: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    programs = {name: f'exec {shutil.which(name)} "$@"' for name in ("pdflatex", "bibtex")}
    monkeypatch.setenv("PATH", str(fake_bin(tmp_path / "bin", **programs)))
    assert compile_file(fresh / "cites-bibtex" / "paper.tex").verdict == "compiled"
    assert compile_file(fresh / "clean" / "paper.tex").verdict == "compiled"


# -- choosing the engine -----------------------------------------------------------------------


def test_the_engine_is_a_magic_comment_then_the_latexmkrc_then_the_preamble_then_pdflatex(
    tmp_path: Path,
) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text("% !TEX program = lualatex\n\\documentclass{article}\n")
    assert choose_engine(paper, None) == EngineChoice("lualatex", "% !TEX program")
    paper.write_text("\\documentclass{article}\n\\input{preamble}\n\\begin{document}\n")
    assert choose_engine(paper, None) == EngineChoice("pdflatex", "the default")
    (tmp_path / "preamble.tex").write_text("\\usepackage[warnings-off={x}]{unicode-math}\n")
    assert choose_engine(paper, None) == EngineChoice("xelatex", "the paper uses unicode-math")
    (tmp_path / "latexmkrc").write_text("$pdf_mode = 1;\n$pdflatex = 'lualatex %O %S';\n")
    assert choose_engine(paper, None) == EngineChoice("lualatex", "latexmkrc")
    with pytest.raises(UsageError, match="Unknown engine"):
        choose_engine(paper, "tex")


def test_an_engine_asked_for_once_is_remembered_for_the_paper_until_asked_again(
    tmp_path: Path,
) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n\\usepackage{fontspec}\n")
    assert choose_engine(paper, None).engine == "xelatex"
    assert choose_engine(paper, "lualatex") == EngineChoice("lualatex", "--engine")
    assert choose_engine(paper, None) == EngineChoice(
        "lualatex", "remembered from an earlier --engine"
    )
    choose_engine(paper, "pdflatex")
    assert choose_engine(paper, None).engine == "pdflatex"
    assert choose_engine(tmp_path / "other.tex", None).engine == "pdflatex"


def test_a_magic_comment_added_after_engine_was_asked_for_wins(tmp_path: Path) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n")
    choose_engine(paper, "lualatex")
    paper.write_text("% !TEX program = xelatex\n\\documentclass{article}\n")
    assert choose_engine(paper, None) == EngineChoice("xelatex", "% !TEX program")
    # and the memory is gone: removing the line again does not bring lualatex back
    paper.write_text("\\documentclass{article}\n")
    assert choose_engine(paper, None) == EngineChoice("pdflatex", "the default")


def test_a_latexmkrc_engine_changed_after_engine_was_asked_for_wins(tmp_path: Path) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n")
    (tmp_path / "latexmkrc").write_text("$pdf_mode = 5;\n")  # xelatex
    choose_engine(paper, "pdflatex")
    assert choose_engine(paper, None).engine == "pdflatex"  # the rc is as it was: memory holds
    (tmp_path / "latexmkrc").write_text("$pdf_mode = 4;\n")  # lualatex
    assert choose_engine(paper, None) == EngineChoice("lualatex", "latexmkrc")


def test_engine_auto_forgets_the_remembered_engine(tmp_path: Path) -> None:
    paper = tmp_path / "paper.tex"
    paper.write_text("\\documentclass{article}\n\\usepackage{fontspec}\n")
    choose_engine(paper, "pdflatex")
    assert choose_engine(paper, "auto") == EngineChoice("xelatex", "the paper uses fontspec")
    assert choose_engine(paper, None) == EngineChoice("xelatex", "the paper uses fontspec")
    with pytest.raises(UsageError, match="or auto"):
        choose_engine(paper, "tex")


# -- what jig doctor reports -------------------------------------------------------------------


def test_describe_names_each_tex_program_found_with_its_version() -> None:
    found = describe()
    assert found["ready"] is True
    assert "TeX Live" in found["programs"]["pdflatex"]["version"]
    assert set(found["programs"]) == {"latexmk", "pdflatex", "xelatex", "lualatex", "bibtex"}


def test_describe_without_tex_is_not_ready(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    found = describe()
    assert (found["ready"], found["builder"]) == (False, "engine passes")
    assert found["programs"]["pdflatex"] == {"path": None, "version": None}


# -- what a hostile paper may not do -----------------------------------------------------------


def test_an_absolute_input_is_refused_and_said_to_be(fresh: Path) -> None:
    result = compile_file(fresh / "reads-outside" / "paper.tex")
    assert result.verdict == "error"
    assert (
        "paper.tex",
        3,
        "error",
        "TeX may not read /etc/hostname: jig lets a paper read only files in its own folder "
        "and TeX's own (no absolute path, no ..)",
    ) in {(d.file, d.line, d.severity, d.message) for d in result.diagnostics}


def test_a_write_out_of_the_folder_is_refused_and_nothing_lands_there(fresh: Path) -> None:
    result = compile_file(fresh / "writes-outside" / "paper.tex")
    assert result.verdict == "error"
    assert any(d.message.startswith("TeX may not write ../planted") for d in result.diagnostics)
    assert not (fresh / "planted.tex").exists()


def test_an_image_outside_the_folder_is_one_refusal_not_one_per_extension_tried(
    tmp_path: Path,
) -> None:
    # graphicx asks kpathsea for ../figs/pic.pdf, .png, .jpg, … (14 names), each refused.
    paper = tmp_path / "paper" / "paper.tex"
    paper.parent.mkdir()
    paper.write_text(
        "\\documentclass{article}\n\\usepackage{graphicx}\n\\begin{document}\nHi.\n"
        "\\includegraphics{../figs/pic}\n\\end{document}\n"
    )
    result = compile_file(paper)
    assert result.verdict == "error"
    (refusal,) = result.diagnostics
    assert (refusal.file, refusal.line, refusal.severity) == ("paper.tex", 5, "error")
    assert refusal.message.startswith(
        "TeX may not read ../figs/pic (nor as .pdf, .png, .jpg and 10 more: TeX tried each): "
    )


@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
def test_a_link_out_of_the_folder_is_refused_before_tex_reads_or_writes_through_it(
    tmp_path: Path, engine: str
) -> None:
    if shutil.which(engine) is None:
        pytest.skip(f"needs {engine}; .ci/run installs it")
    secret = tmp_path / "secret.txt"
    secret.write_text("a secret outside the paper\n")
    paper = tmp_path / "paper" / "paper.tex"
    paper.parent.mkdir()
    paper.write_text("\\documentclass{article}\\begin{document}\\input{leak}\\end{document}\n")
    (paper.parent / "leak.tex").symlink_to(secret)
    (paper.parent / "paper.log").symlink_to(secret)  # TeX would write its log through it
    result = build(paper, engine)
    assert result.failure is not None and result.failure.why == "refused"
    assert (
        "is a link to" in result.failure.detail
        and "outside the paper's folder" in result.failure.detail
    )
    assert secret.read_text() == "a secret outside the paper\n"
    assert not paper.with_suffix(".pdf").exists()


lualatex = pytest.mark.skipif(
    shutil.which("lualatex") is None or shutil.which("bwrap") is None,
    reason="needs lualatex and bubblewrap; .ci/run installs them",
)

PROBE = """
local here = lfs.currentdir()
local function report(what, ok)
  texio.write_nl("JIG-PROBE " .. what .. " " .. (ok and "allowed" or "denied"))
end
local function write(what, path)
  local f = io.open(path, "w")
  if f then f:write("planted by a paper") f:close() end
  report(what, f ~= nil)
end
local function read(what, path)
  local f = io.open(path, "r")
  if f then f:close() end
  report(what, f ~= nil)
end
write("write-latexmkrc", here .. "/latexmkrc")
write("write-parent", "{parent}/planted.txt")
write("write-home", "{home}/jig-planted.txt")
read("read-secret", "{parent}/secret.txt")
read("read-home", "{home}")
report("rename-own-source", os.rename(here .. "/paper.tex", here .. "/moved.tex"))
report("mkdir-parent", lfs.mkdir("{parent}/planted-dir"))
report("execute", os.execute("touch {parent}/executed.txt") == true)
"""


@lualatex
def test_lualatex_s_lua_reads_and_writes_nothing_outside_its_build_folder(
    fresh: Path, tmp_path: Path
) -> None:
    folder = fresh / "lualatex-writes"
    secret = fresh / "secret.txt"
    secret.write_text("outside\n")
    home = tmp_path / "home"
    home.mkdir()
    probe = PROBE.replace("{parent}", str(fresh)).replace("{home}", str(home))
    (folder / "probe.lua").write_text(probe)
    before = {p.name for p in folder.iterdir()}
    result = build(folder / "paper.tex", "lualatex")
    log = (folder / "paper.log").read_text()
    probes = dict(line.split()[1:3] for line in log.splitlines() if line.startswith("JIG-PROBE"))
    # Inside the sandbox the folders above the paper's are an empty scratch tree, so a write
    # there may "succeed": what counts is that nothing reaches the host.
    assert {k: v for k, v in probes.items() if not k.startswith(("write-parent", "mkdir"))} == {
        "write-latexmkrc": "denied",  # the paper's folder is read-only to the build
        "write-home": "denied",
        "read-secret": "denied",  # nothing of the host but TeX and the paper exists in there
        "read-home": "denied",
        "rename-own-source": "denied",
        "execute": "denied",
    }
    assert {p.name for p in fresh.iterdir()} == {p.name for p in DATA.iterdir()} | {
        "jig.yaml",
        "secret.txt",
    }
    assert not (home / "jig-planted.txt").exists()
    made = {p.name for p in folder.iterdir()} - before
    assert made <= {"paper.aux", "paper.log", "paper.pdf", "paper.synctex.gz"}
    assert any(
        d.message.startswith("TeX may not write ../planted-by-tex") for d in result.diagnostics
    )


@lualatex
def test_lualatex_copies_back_regular_files_and_replaces_a_planted_link(fresh: Path) -> None:
    folder = fresh / "lualatex-writes"
    (folder / "probe.lua").write_text("")
    paper = folder / "paper.tex"
    paper.write_text(paper.read_text().replace("\\immediate\\openout", "%"))
    victim = fresh / "victim.txt"
    victim.write_text("untouched\n")
    (folder / "paper.pdf").symlink_to("../victim.txt")  # inside the corpus: not a link out
    result = build(paper, "lualatex")
    assert result.verdict in ("compiled", "warning")
    assert victim.read_text() == "untouched\n"
    assert not (folder / "paper.pdf").is_symlink()
    assert (folder / "paper.pdf").read_bytes().startswith(b"%PDF")
    assert state.load(paper) is not None and "paper.tex" in state.load(paper).project  # type: ignore[union-attr]


@lualatex
def test_lualatex_is_refused_when_its_view_would_show_a_home_folder(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = fresh / "clean"
    monkeypatch.setenv("HOME", str(folder))  # its Lua could read ~/.ssh, ~/.netrc, tokens
    result = build(folder / "paper.tex", "lualatex")
    assert result.failure is not None and result.failure.why == "refused"
    assert "which holds the home folder" in result.failure.detail
    assert "move the paper into a folder of its own" in result.failure.detail
    assert not (folder / "paper.pdf").exists()


@lualatex
def test_lualatex_s_lua_cannot_take_more_memory_than_its_ceiling(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("jigcli.latex.confine._ADDRESS_SPACE_MB", 1024)  # cheap to reach here
    paper = fresh / "clean" / "paper.tex"
    hog = '\\directlua{local t = {} for i = 1, 100000 do t[i] = string.rep("x", 1048576) .. i end}'
    paper.write_text(paper.read_text().replace("\\begin{document}", "\\begin{document}\n" + hog))
    result = build(paper, "lualatex")
    assert result.failure is None and result.verdict == "error"
    assert any("not enough memory" in d.message for d in result.diagnostics)


@lualatex
def test_the_engine_asked_for_builds_the_pdf_even_after_a_confined_build_of_another(
    fresh: Path,
) -> None:
    """pdflatex, then lualatex (confined, its PDF copied back beside latexmk's pdflatex
    record), then pdflatex again: the last PDF is pdfTeX's, built, not 'nothing changed'."""
    paper = fresh / "clean" / "paper.tex"
    for engine, producer in (
        ("pdflatex", b"pdfTeX"),
        ("lualatex", b"LuaTeX"),
        ("pdflatex", b"pdfTeX"),
    ):
        result = build(paper, engine)
        assert result.started_process and result.verdict == "compiled"
        assert producer in paper.with_suffix(".pdf").read_bytes()
        assert (result.engine_words or "").startswith(producer.decode().replace("LuaTeX", "LuaHB"))


def test_lualatex_is_refused_where_it_cannot_be_confined(
    fresh: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shutil.which("lualatex") is None:
        pytest.skip("needs lualatex; .ci/run installs it")
    monkeypatch.setattr("jigcli.latex.confine.unavailable", lambda: "bwrap is not installed")
    result = build(fresh / "clean" / "paper.tex", "lualatex")
    assert result.failure is not None and result.failure.why == "refused"
    assert "only inside bubblewrap, and bwrap is not installed" in result.failure.detail
    assert not (fresh / "clean" / "paper.pdf").exists()


def test_a_blueprint_builds_with_the_engine_its_latexmkrc_names(tmp_path: Path) -> None:
    if shutil.which("xelatex") is None:
        pytest.skip("needs xelatex; .ci/run installs it")
    project = tmp_path / "two-libs"
    shutil.copytree(DATA.parent / "blueprints" / "two-libs", project)
    chosen = choose_engine(project / "blueprint" / "src" / "print.tex", None)
    assert chosen == EngineChoice("xelatex", "latexmkrc")
    result = compile_file(project / "blueprint" / "src" / "chapter" / "two.tex")
    assert result.root.name == "print.tex"
    assert result.verdict == "compiled" and (result.engine_words or "").startswith("XeTeX")


def test_diagnostics_about_an_included_file_name_that_file(
    built: Callable[[str], BuildResult],
) -> None:
    result = built("spanning/main.tex")
    assert ("sections/a.tex", 4, "error") in places(result)  # \begin{proof} never closed
    assert ("sections/c.tex", 2, "info") in places(result)  # its paragraph ran past its end
    assert ("sections/a.tex", 2, "warning") in places(result)
