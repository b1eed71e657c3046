"""Scanning files (jigcli/lean/policy/scan.py): unreadable sources, and properties that hold
for any input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jigcli.lean.lexer import ID_FIRST, ID_REST, KEYWORDS, Lexer
from jigcli.lean.policy import (
    ALLOWED_ATTRIBUTES,
    FORBIDDEN_ROOTS,
    SourceUnreadable,
    Violation,
    _Scan,
    scan,
    scan_file,
    tables,
)
from jigcli.lean.policy.scan import _ESCAPABLE_KEYWORDS
from jigcli.pose.statement import statement_problems

from .conftest import DATA, REPO, found

# -- files -----------------------------------------------------------------------------------


def test_scan_file_reports_a_file_that_is_not_utf8(tmp_path: Path):
    path = tmp_path / "latin1.lean"
    path.write_bytes(b"import Mathlib\n-- caf\xe9\n")
    assert scan_file(path) == [
        Violation(2, "encoding", "not valid UTF-8, and Lean reads only UTF-8 sources")
    ]


def test_scan_file_refuses_what_it_cannot_read(tmp_path: Path):
    with pytest.raises(SourceUnreadable, match="cannot read"):
        scan_file(tmp_path)


def _submissions_by_expectation() -> dict[bool, list[Path]]:
    """The repo's example submissions, by whether their manifest expects `forbidden_syntax`."""
    by: dict[bool, list[Path]] = {True: [], False: []}
    for manifest in sorted((REPO / "Submissions").rglob("*.json")):
        reason = json.loads(manifest.read_text(encoding="utf-8")).get("expect_reason")
        by[reason == "forbidden_syntax"].append(manifest.with_suffix(".lean"))
    return by


# The Lean under tests/data that tests expect the policy to pass (the papers' sources are read
# by the paper verifiers, never by the policy, and hold `sorry` on purpose).
CLEAN_TEST_DATA = [
    DATA / "lean" / "policy" / "traps.lean",
    *(DATA / "pose" / "lean" / f"{name}.lean" for name in ("EvenSquare", "Elsewhere", "Weakened")),
]


def test_the_repos_own_lean_stays_clean():
    clean = [
        *_submissions_by_expectation()[False],
        *sorted((REPO / "Commons").rglob("*.lean")),
        *CLEAN_TEST_DATA,
    ]
    assert {path.relative_to(REPO).as_posix(): scan_file(path) for path in clean} == {
        path.relative_to(REPO).as_posix(): [] for path in clean
    }
    for statement in sorted((REPO / "Statements").glob("*.lean")):
        assert statement_problems(statement.stem, statement.read_text(encoding="utf-8")) == []


def test_every_forbidden_syntax_example_in_the_repo_is_refused():
    refused = _submissions_by_expectation()[True]
    assert refused
    assert all(scan_file(path) for path in refused)


# -- properties -------------------------------------------------------------------------------


def scan_every_token(text: str) -> list[Violation]:
    """The scan without its bulk skipping: every token goes through the rules one by one."""
    state = _Scan(text)
    state.unseen()
    lexer = Lexer(text)
    pos = state.header()
    while pos < len(text):
        kind, end = lexer.at(pos)
        pos = end if kind == "ws" else state.token(kind, pos, end)
    return sorted(state.found.values(), key=lambda v: (v.line, v.construct))


PIECES = [
    *(" ", "\n", "  ", "\t"),
    *("sorry", "axiom", "decide", "native", "+", "(", ")", "config", ":=", "{", "}", "true"),
    *("import", "Mathlib", "Lean", "Elab", "Grind", ".", "«", "»", "set_option", "debug", "open"),
    *("private", "attribute", "[", "]", "@[", "init", "simp", "#eval", "#check", "x", "h'", "'"),
    *('"', "\\", "r#", '"#', "--", "/-", "-/", "-", "/", "<|", "∑'", "''", "`", "partial_sum"),
    *("ofReduceBool", "MetaM", "r", "a'b", "0", "λ", "ℕ", "export", "Qq", "Lake", "_root_"),
    *("namespace", "def", "instance", "alias", "⟨", "⟩", "apply?", "%", "`(", "s!", "attr"),
    *(",", "to_additive", "register_hint", "#guard_msgs", "\u202e", "\u00a0", "pp.all"),
    *("simp", "by", "try", "·", "maxSteps", "unsafeCast", "toIO", "add", "unsafe", "50", "."),
    *("Mathlib", "Tactic", "Aesop", "instance", "exact", "/- c -/"),
    *("#s", "#S", "#simp", "k%3", "eval%", "]'", "hint", "notation", '"a--"', "=>", "fun"),
    *("↦", "module", "public", "meta", "@[expose]", "occs", "[2]", ".pos", "norm", "{"),
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_bulk_skipping_finds_exactly_what_token_by_token_scanning_finds(text: str):
    assert scan(text) == scan_every_token(text)


@settings(max_examples=300)
@given(st.one_of(st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("latin-1"))))
def test_scan_never_raises(text: str):
    for violation in scan(text):
        assert 1 <= violation.line <= text.count("\n") + 1


plain_words = st.from_regex(re.compile(f"[{ID_FIRST}][{ID_REST}]{{0,12}}"), fullmatch=True)


@settings(max_examples=200)
@given(
    plain_words.filter(lambda w: w not in _ESCAPABLE_KEYWORDS),
    st.sampled_from(["example := {}", "theorem {} : True := trivial", "@[{}]"]),
)
def test_escaping_a_plain_word_is_refused_unless_a_name_needs_it(word: str, shape: str):
    assert (1, f"«{word}»") in found(shape.format(f"«{word}»"))


@pytest.mark.parametrize("word", ["end", "exists", "fun", "at", "from", "ring", "ext"])
def test_a_keyword_a_name_needs_guillemets_for_is_accepted(word: str):
    assert found(f"theorem «{word}» : True := trivial\nexample := «{word}»\n") == set()


@settings(max_examples=200)
@given(plain_words.filter(lambda w: w not in ALLOWED_ATTRIBUTES and w not in KEYWORDS))
def test_an_attribute_not_on_the_allowlist_is_always_refused(name: str):
    assert (1, f"@[{name}]") in found(f"@[simp, {name}] theorem t : True := trivial")


@settings(max_examples=200)
@given(
    st.sampled_from(sorted(FORBIDDEN_ROOTS)),
    st.lists(plain_words, max_size=3),
    st.sampled_from(
        [
            *("namespace {}", "def {} := 0", "theorem _root_.{} : True := trivial"),
            *("instance {} : Inhabited ℕ := ⟨0⟩", "structure {} where", "example := `{}"),
        ]
    ),
)
def test_a_protected_root_is_refused_whatever_follows_it(root: str, rest: list[str], shape: str):
    name = ".".join([root, *rest])
    assert found(shape.format(name)), shape.format(name)


# A hang guard, not a speed target: each text is a few hundred KB of one broken construct, which
# a scan that rescans to the end after every failure would take many minutes over.
@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "text",
    [
        "«" * 200_000,
        "a.«x " * 50_000,
        'r#"' * 70_000,
        "/- " * 70_000,
        '"\\q' * 70_000,
        "attribute [" * 20_000,
        "decide (config := x) " * 10_000,
        "/- " * 30_000 + "-/ " * 30_000,
        '"{' * 70_000,
        '"' + "{x " * 70_000 + '"',
        "instance (" * 20_000,
        "alias ⟨" * 20_000,
        "@[a (attr := " * 20_000,
        "namespace " * 50_000,
    ],
    ids=[
        *("guillemets", "escaped-parts", "raw-strings", "comments", "escapes", "attributes"),
        *("configs", "deep-comments", "string-braces", "one-string-open-braces"),
        *("instance-priorities", "aliases", "nested-attribute-lists", "namespaces"),
    ],
)
def test_broken_input_is_scanned_in_linear_time(text: str):
    assert all(violation.line == 1 for violation in scan(text))


def test_every_allowlist_entry_says_why_it_is_safe():
    for table in ("import_roots", "attributes", "options", "lean_math_namespaces"):
        entries = tables.ALLOWED[table]
        assert entries and all(isinstance(why, str) and why for why in entries.values()), table
    assert all(tables.ALLOWED["module_system"]["attributes"].values())
