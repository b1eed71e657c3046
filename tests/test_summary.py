from jigcli.summary import append_step_summary, cell, table, verdict_markdown
from jigcli.verdict import Verdict

HASH = "sha256:" + "ab12" * 16


def red_verdict() -> dict:
    verdict = Verdict(submission="Submissions/S001/A.json", statement_id="S001")
    verdict.record("manifest", True, "conject.submission.v1, valid")
    verdict.record("axioms", False, "sorryAx\nand more on a second line", output="long output")
    verdict.skip("kernel_replay", "an earlier check failed")
    verdict.fail("sorry", "the proof depends on sorryAx")
    return verdict.finish().to_json()


def test_a_cell_cannot_break_its_table():
    assert cell("a | b\nc\x1b[2K") == "a \\| b\\nc\\x1b[2K"


def test_a_table_has_a_header_a_rule_and_one_row_each():
    lines = table(("x", "y"), [("1", "2|3")])
    assert lines == ["| x | y |", "|---|---|", "| 1 | 2\\|3 |"]


def test_a_verdict_says_what_how_it_ended_and_each_check():
    text = verdict_markdown(red_verdict())
    assert "| submission | statement | verdict | reason | term hash |" in text
    assert "| `Submissions/S001/A.json` | S001 | red | sorry | — |" in text
    assert "| manifest | ✅ ok | conject.submission.v1, valid |" in text
    assert "| axioms | ❌ failed | sorryAx … |" in text  # the first line only, and a mark
    assert "| kernel_replay | ⏭️ not run | an earlier check failed |" in text
    assert "long output" not in text and "**Why:** the proof depends on sorryAx" in text
    assert "**Next:**" in text


def test_a_green_verdict_shows_its_term_hash_and_no_advice():
    verdict = Verdict(submission="Submissions/S001/A.json", statement_id="S001")
    verdict.record("manifest", True, "valid")
    verdict.elaborated_term_hash = HASH
    text = verdict_markdown(verdict.finish().to_json())
    assert f"| green | ok | `{HASH}` |" in text and "Next" not in text


def test_appending_keeps_what_earlier_steps_wrote(tmp_path, monkeypatch):
    target = tmp_path / "summary.md"
    target.write_text("earlier\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(target))
    append_step_summary("mine\n")
    assert target.read_text() == "earlier\nmine\n"


def test_without_github_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.chdir(tmp_path)
    append_step_summary("mine\n")
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_summary_is_a_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing" / "summary.md"))
    append_step_summary("mine\n")
    said = capsys.readouterr().err
    assert said.startswith("jig: warning: could not append to GITHUB_STEP_SUMMARY")
