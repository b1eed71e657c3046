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
    # the problem is a list item's code span: one line, its pipe harmless outside a table
    assert "- `Submissions/S001/A.json`: `a | b\\nc`" in text and "shard 1/2" in text
    assert all(
        line.count("|") - line.count("\\|") == 8
        for line in text.splitlines()
        if line.startswith("| `")
    )


def test_the_summary_heading_names_the_run_once():
    whole = report.markdown([result()], verified=1, scope="selftest").splitlines()[0]
    assert whole.startswith("### jig selftest: 1 matched, 0 failed")
    shard = report.markdown([result()], verified=1, scope="shard 1/2 (1 of 3)").splitlines()[0]
    assert shard.startswith("### jig selftest, shard 1/2 (1 of 3): 1 matched")
