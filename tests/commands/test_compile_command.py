"""`jig compile` as a user runs it: the JSON document, the human lines, exit codes, --watch."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from jigcli.commands import compile as command
from jigcli.errors import UsageError

DATA = Path(__file__).resolve().parent.parent / "data" / "latex"

pytestmark = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="needs TeX Live (pdflatex); .ci/run installs it"
)


@pytest.fixture
def papers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("clean", "warnings", "multifile"):
        shutil.copytree(DATA / name, tmp_path / name)
    (tmp_path / "jig.yaml").write_text("modules: []\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run_json(capsys: pytest.CaptureFixture[str], file: str, **options: Any) -> tuple[int, Any]:
    settings = {"watch": False, "no_build": False, "engine": None, **options}
    code = command.run(Path(file), as_json=True, **settings)
    return code, json.loads(capsys.readouterr().out)


def test_json_has_exactly_the_documented_fields_and_exit_0_for_compiled(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, document = run_json(capsys, "clean/paper.tex")
    assert code == 0
    assert document == {
        "verifier": "compile",
        "document": "clean/paper.tex",
        "verdict": "compiled",
        "status": "ok",
        "diagnostics": [],
        "engine": document["engine"],
        "engine_from": {"engine": "pdflatex", "from": "the default"},
        "pdf": "clean/paper.pdf",
        "log": "clean/paper.log",
        "evidence": "clean/paper.log",
    }
    assert document["engine"].startswith("pdfTeX · TeX Live ")


def test_a_warning_exits_1_and_lists_file_line_diagnostics(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, document = run_json(capsys, "warnings/paper.tex")
    assert (code, document["verdict"], document["status"]) == (1, "warning", "warn")
    assert {"file": "paper.tex", "line": 6, "severity": "warning"}.items() <= next(
        d for d in document["diagnostics"] if "multiply defined" in d["message"]
    ).items()


def test_no_build_reports_stale_with_what_changed(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_json(capsys, "multifile/main.tex")
    intro = papers / "multifile" / "sections" / "intro.tex"
    intro.write_text(intro.read_text() + "\nOne more line.\n")
    code, document = run_json(capsys, "multifile/sections/intro.tex", no_build=True)
    assert (code, document["verdict"], document["status"]) == (1, "stale", "warn")
    assert document["changed"] == ["sections/intro.tex"]
    assert document["evidence"].endswith("state.json")  # the record of the last build


def test_a_missing_engine_is_a_failure_not_a_verdict(
    papers: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(papers / "no-programs"))
    code, document = run_json(capsys, "clean/paper.tex")
    assert (code, document["verdict"], document["status"]) == (1, None, "pending")
    assert document["failure"]["why"] == "not_set_up"
    assert "TeX isn't set up here yet" in document["failure"]["words"]


def test_human_output_is_one_path_line_per_diagnostic_then_the_verdict(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = command.run(
        Path("multifile/main.tex"), as_json=False, watch=False, no_build=False, engine=None
    )
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    first = (
        "multifile/sections/intro.tex:3: ● error: Undefined control sequence \\notdefinedanywhere"
    )
    assert lines[0] == first
    assert lines[-1].startswith("multifile/main.tex: ● LaTeX errors · 1 error")
    assert lines[-1].endswith("(see multifile/main.log)")


def test_watch_and_no_build_together_are_refused(papers: Path) -> None:
    with pytest.raises(UsageError, match="--watch"):
        command.run(Path("clean/paper.tex"), as_json=True, watch=True, no_build=True, engine=None)


def read_json_line(process: subprocess.Popen[str], timeout: float) -> dict[str, Any]:
    assert process.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    if not selector.select(timeout):
        raise AssertionError("jig compile --watch printed nothing in time")
    return json.loads(process.stdout.readline())  # type: ignore[no-any-return]


def test_watch_rebuilds_after_an_edit_and_ctrl_c_ends_it_cleanly(papers: Path) -> None:
    paper = papers / "clean" / "paper.tex"
    process = subprocess.Popen(
        [sys.executable, "-m", "jigcli", "compile", "--watch", "--json", str(paper)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        first = read_json_line(process, 30)
        assert (first["verdict"], first["engine_from"]["from"]) == ("compiling", "the default")
        built = read_json_line(process, 30)
        assert (built["verdict"], built["engine_from"]["from"]) == ("compiled", "the default")
        time.sleep(0.5)  # let the watcher start
        paper.write_text(paper.read_text().replace("n + 0 = n", "n + 0 = n = 0 + n\\undefinedhere"))
        assert read_json_line(process, 30)["verdict"] == "compiling"
        rebuilt = read_json_line(process, 30)
        assert (rebuilt["verdict"], rebuilt["diagnostics"][0]["line"]) == ("error", 11)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 1  # the last result's exit code
        assert process.stderr is not None
        said = process.stderr.read()
        assert "Traceback" not in said
        assert "file(s) for edits; Ctrl-C stops" in said and " · rebuilding" in said
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_warning_line_says_warning_in_words_not_only_in_colour(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command.run(Path("warnings/paper.tex"), as_json=False, watch=False, no_build=False, engine=None)
    lines = capsys.readouterr().out.splitlines()
    assert any(
        line.startswith("warnings/paper.tex:6: ● warning: ") and "multiply defined" in line
        for line in lines
    )


def test_format_github_annotates_each_diagnostic_at_its_file_and_line(
    papers: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = command.run(
        Path("multifile/main.tex"),
        as_json=False,
        watch=False,
        no_build=False,
        engine=None,
        output_format="github",
    )
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    token = lines[0].removeprefix("::stop-commands::")
    after = lines[lines.index(f"::{token}::") + 1 :]
    assert after[0] == (
        "::error file=multifile/sections/intro.tex,line=3,title=jig compile::Undefined control "
        "sequence \\notdefinedanywhere"
    )
