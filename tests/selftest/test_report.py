import json
import os
from pathlib import Path

from jigcli.repo import Repo
from jigcli.selftest import report
from jigcli.selftest.discover import Case
from jigcli.selftest.judge import Result

HASH = "sha256:" + "ab12" * 16


def result(rel="Submissions/S001/A.json", verdict="green", reason="ok", cached=False, **kw):
    case = Case(Path("/repo") / rel, rel, {"kind": "lean", "expect": "green"}, b"")
    document = {"verdict": verdict, "reason": reason, "detail": "", "elaborated_term_hash": HASH}
    return Result(case, document, cached, **kw)


def test_counts_passed_failed_and_skipped():
    results = [result(), result(problems=["x"]), result(skipped=True)]
    assert report.counts(results) == {"passed": 1, "failed": 1, "skipped": 1}


def test_the_hash_prefix_drops_the_tag():
    assert report.hash_prefix(result()) == "ab12ab12ab12"


def test_the_summary_says_when_nothing_was_verified():
    line = report.summary_line([result(cached=True)], verified=0, scope="selftest")
    assert "0 verified, 1 from the cache" in line and "nothing was verified" in line
    assert "nothing" not in report.summary_line([result()], verified=1, scope="selftest")


def test_a_verdict_file_already_current_is_not_rewritten(tmp_path):
    repo = Repo(tmp_path)
    report.write_verdict_files(repo, [result()])
    path = tmp_path / ".jig/verdicts/Submissions/S001/A.json"
    os.utime(path, (1, 1))
    report.write_verdict_files(repo, [result()])
    assert path.stat().st_mtime == 1
    report.write_verdict_files(repo, [result(verdict="red", reason="sorry")])
    assert json.loads(path.read_text())["reason"] == "sorry"


def test_markdown_cells_cannot_break_the_table():
    text = report.markdown([result(problems=["a | b\nc"])], verified=1, scope="shard 1/2 (1 of 3)")
    assert "a \\| b\\nc" in text and "shard 1/2" in text
    assert all(
        line.count("|") - line.count("\\|") == 8
        for line in text.splitlines()
        if line.startswith("| `")
    )


def _shown(monkeypatch, results, *, width):
    import io

    from rich.console import Console

    screen = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
    monkeypatch.setattr("jigcli.console.out", lambda: screen)
    report.show(results, verified=len(results), scope="selftest")
    return screen.file.getvalue()


def test_a_narrow_terminal_still_names_every_manifest_in_full(monkeypatch):
    rel = "Certificates/C001/submissions/booker-sutherland.json"
    text = _shown(monkeypatch, [result(rel), result(verdict="red", reason="sorry")], width=80)
    assert rel in text and "Submissions/S001/A.json" in text
    assert all(len(line) <= 80 for line in text.splitlines())
    line = next(line for line in text.splitlines() if line.startswith(rel))
    assert "matched" in line and "green" in line


def test_a_wide_terminal_gets_the_table(monkeypatch):
    text = _shown(monkeypatch, [result()], width=200)
    assert "┃ verdict" in text or "verdict ┃" in text


def test_the_advice_for_a_skip_reads_as_sentences(monkeypatch):
    text = _shown(monkeypatch, [result(verdict="red", reason="toolchain_missing", skipped=True)],
                  width=200)  # fmt: skip
    line = next(line for line in text.splitlines() if "skipped (toolchain_missing)" in line)
    assert "; Install" not in line and "here. Install elan" in line
