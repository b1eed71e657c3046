"""The GitHub job summary: what it says, and that nothing a checker prints renders as anything
but its own text (checked by rendering with cmark-gfm, GitHub's Markdown)."""

import html
import re

import pytest

from jigcli.summary import append_step_summary, cell, code, table, verdict_markdown
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
    assert "| `Submissions/S001/A.json` | `S001` | red | sorry | — |" in text
    assert "| manifest | ✅ ok | `conject.submission.v1, valid` |" in text
    assert "| axioms | ❌ failed | `sorryAx` … |" in text  # the first line only, and a mark
    assert "| kernel_replay | ⏭️ not run | `an earlier check failed` |" in text
    assert "long output" not in text and "**Why:** `the proof depends on sorryAx`" in text
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
    append_step_summary(lambda: "mine\n")
    assert target.read_text() == "earlier\nmine\n"


def test_without_github_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.chdir(tmp_path)
    append_step_summary(lambda: pytest.fail("rendered with no summary to write"))
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_summary_is_a_warning(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing" / "summary.md"))
    append_step_summary(lambda: "mine\n")
    said = capsys.readouterr().err
    assert said.startswith("jig: warning: could not append to GITHUB_STEP_SUMMARY")


# -- a checker's text renders as text --------------------------------------------------------

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<details open><summary>✅ green</summary></details>",
    "### ✅ green",
    "# jig verify — ✅ green",
    "![green](https://example.org/green.png)",
    "[click](https://example.org) and https://example.org and www.example.org",
    "**bold** _em_ ~~gone~~ :white_check_mark:",
    "ok`</code><b>green</b>`",
    "``` fenced ```",
    "`",
    "a | b | c",
    "a \\| b",
    "line one\n### ✅ green\n| forged | row |",
    "&lt;b&gt; &amp; &#60;",
    "\x1b[2K\r✅ green",
    " padded ",
    "- [x] done",
]


def render(markdown: str) -> str:
    """GitHub's rendering of `markdown` (cmark-gfm). The renderer is a test dependency: skipped
    where it is not installed, never in CI."""
    import os

    if os.environ.get("CI") == "true":
        import cmarkgfm  # type: ignore[import-untyped]
    else:
        cmarkgfm = pytest.importorskip("cmarkgfm")
    return str(cmarkgfm.github_flavored_markdown_to_html(markdown))


def cells_and_codes(rendered: str) -> list[str]:
    return [html.unescape(m) for m in re.findall(r"<code>(.*?)</code>", rendered, re.DOTALL)]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_code_span_renders_as_exactly_the_one_safe_line(text):
    from jigcli.display import one_line

    rendered = render(f"Why: {code(text)}\n")
    assert cells_and_codes(rendered) == [one_line(text)]
    assert rendered.count("<p>") == 1  # one paragraph: nothing began a block of its own
    for tag in ("<img", "<a ", "<h", "<script", "<details", "<strong>", "<em>", "<del>", "<b>"):
        assert tag not in rendered.replace("<code>", ""), (tag, rendered)


@pytest.mark.parametrize("text", HOSTILE)
def test_a_checkers_detail_in_the_verdict_summary_stays_inert(text):
    verdict = Verdict(kind="certificate", submission="Certificates/C001/submissions/w.json")
    verdict.statement_id = "C001"
    verdict.record("checker", False, text)
    verdict.fail("invalid_witness", text)
    rendered = render(verdict_markdown(verdict.finish().to_json()))
    # jig's own heading, and no other
    assert re.findall(r"<h\d>(.*?)</h\d>", rendered) == [
        "jig verify — ❌ red <code>invalid_witness</code>"
    ]
    assert rendered.count("<table>") == 2 and rendered.count("<tr>") == 4  # 2 headers, 2 rows
    for tag in ("<img", "<a ", "<script", "<details", "<del>", "<b>", "<input"):
        assert tag not in rendered, (tag, rendered)
    assert "<strong>" not in rendered.replace("<strong>Why:</strong>", "").replace(
        "<strong>Next:</strong>", ""
    )
    first_line = text.strip().split("\n")[0]
    from jigcli.display import one_line

    assert one_line(first_line) in cells_and_codes(rendered)


def test_a_forged_green_line_cannot_stand_outside_a_code_span():
    verdict = Verdict(submission="Submissions/S001/A.json", statement_id="S001")
    verdict.fail("build_failed", "x\n### jig verify — ✅ green")
    rendered = render(verdict_markdown(verdict.finish().to_json()))
    outside = re.sub(r"<code>.*?</code>", "", rendered)
    assert "✅ green" not in outside


def test_a_backtick_run_cannot_close_the_span_early():
    assert code("a`b") == "``a`b``"
    assert code("``") == "``` `` ```"
    assert code(None) == "" and code("") == ""
