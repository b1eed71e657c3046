"""`--format github`: annotations in the runner's own format, and nothing jig quotes can act as
a workflow command (checked against a small model of the runner's command processing)."""

from __future__ import annotations

import re

import pytest

from jigcli.errors import UsageError
from jigcli.render.github import GITHUB, TEXT, Annotation, annotating, chosen


def runner_commands(log: str) -> list[str]:
    """The workflow commands a runner would act on in `log`: every line starting with `::`,
    except while `::stop-commands::TOKEN` is in force, until the line `::TOKEN::`."""
    acted, stopped_by = [], None
    for line in log.splitlines():
        if stopped_by is not None:
            if line == f"::{stopped_by}::":
                stopped_by = None
            continue
        if line.startswith("::stop-commands::"):
            stopped_by = line.removeprefix("::stop-commands::")
        elif line.startswith("::"):
            acted.append(line)
    return acted


HOSTILE_OUTPUT = [
    "::error file=Statements/S001.lean,line=1::the statement is fine, merge it",
    "::add-mask::secret",
    "::set-output name=verdict::green",
    "::stop-commands::other",
    "::notice::✅ green",
]


def test_what_jig_quotes_while_annotating_is_never_a_command(capsys):
    with annotating(GITHUB) as annotations:
        for line in HOSTILE_OUTPUT:  # a checker's words, shown as jig shows them
            print(line)
        annotations.append(Annotation("Submissions/S001/A.json", None, "red sorry"))
    log = capsys.readouterr().out
    assert runner_commands(log) == ["::error file=Submissions/S001/A.json,title=jig::red sorry"]


def test_the_stop_token_is_fresh_each_run(capsys):
    for _ in range(2):
        with annotating(GITHUB):
            pass
    tokens = re.findall(r"^::stop-commands::(\w+)$", capsys.readouterr().out, re.MULTILINE)
    assert len(tokens) == 2 and tokens[0] != tokens[1] and len(tokens[0]) >= 32


def test_commands_come_back_even_when_the_command_fails(capsys):
    with pytest.raises(RuntimeError), annotating(GITHUB) as annotations:
        annotations.append(Annotation("a.lean", 3, "found before the crash"))
        raise RuntimeError("boom")
    assert runner_commands(capsys.readouterr().out) == [
        "::error file=a.lean,line=3,title=jig::found before the crash"
    ]


@pytest.mark.parametrize(
    ("annotation", "line"),
    [
        (Annotation("a.lean", 5, "sorry — x"), "::error file=a.lean,line=5,title=jig::sorry — x"),
        (Annotation(None, None, "m", level="warning"), "::warning title=jig::m"),
        (
            Annotation("a.lean", None, "m", title="jig policy"),
            "::error file=a.lean,title=jig policy::m",
        ),
        # the message cannot end the command or start a line: %, CR and LF are escaped
        (
            Annotation("a", 1, "50% done\n::error::forged"),
            "::error file=a,line=1,title=jig::50%25 done\\n::error::forged",
        ),
        # a property cannot add another property or end the properties
        (
            Annotation("x,line=9::y.lean", 1, "m"),
            "::error file=x%2Cline=9%3A%3Ay.lean,line=1,title=jig::m",
        ),
        (Annotation("a\rb", 0, "m"), "::error file=a\\rb,title=jig::m"),
    ],
)
def test_an_annotation_is_one_escaped_line(annotation, line):
    assert annotation.command() == line
    assert "\n" not in annotation.command() and "\r" not in annotation.command()


def test_text_and_json_print_no_command(capsys):
    with annotating(TEXT) as annotations:
        annotations.append(Annotation("a", 1, "m"))
    with annotating(GITHUB, as_json=True) as annotations:
        annotations.append(Annotation("a", 1, "m"))
    assert capsys.readouterr().out == ""


def test_github_is_the_default_under_github_actions_only(monkeypatch):
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert chosen(None) == TEXT
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert chosen(None) == GITHUB
    assert chosen("text") == TEXT  # asked for, it wins


def test_an_unknown_format_is_a_usage_error():
    with pytest.raises(UsageError, match="use text or github"):
        chosen("sarif")
