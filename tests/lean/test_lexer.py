from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jigcli.lean.lexer import HASH_COMMANDS, ID_FIRST, ID_REST, MULTI_SYMBOLS, Token, tokenize


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text)]


def code_words(text: str) -> list[str]:
    return [t.text for t in tokenize(text) if t.kind in ("ident", "keyword")]


# -- comments -------------------------------------------------------------------------------


def test_block_comments_nest():
    assert kinds("/- a /- b -/ sorry -/ x") == [
        ("block_comment", "/- a /- b -/ sorry -/"),
        ("ident", "x"),
    ]


def test_comments_nest_deeper_than_the_single_pattern_handles():
    text = "/- 1 /- 2 /- 3 /- 4 -/ -/ -/ sorry -/ y"
    assert kinds(text) == [("block_comment", text[:-2]), ("ident", "y")]


def test_the_character_after_the_opener_is_skipped_as_lean_does():
    # `/-/` does not open a second level: Lean steps over the third character.
    assert kinds("/-/ a -/ b") == [("block_comment", "/-/ a -/"), ("ident", "b")]


def test_doc_comments_and_module_docs_are_their_own_kinds_and_nest():
    assert kinds("/-- doc /- inner -/ sorry -/ /-! mod -/") == [
        ("doc_comment", "/-- doc /- inner -/ sorry -/"),
        ("module_doc", "/-! mod -/"),
    ]


def test_a_line_comment_runs_to_the_end_of_the_line():
    assert kinds("a -- sorry /- \nb") == [
        ("ident", "a"),
        ("line_comment", "-- sorry /- "),
        ("ident", "b"),
    ]


def test_an_unterminated_comment_is_an_error_to_the_end():
    assert kinds("x /- never closed /- -/") == [("ident", "x"), ("error", "/- never closed /- -/")]


def test_a_comment_opener_inside_a_string_is_text():
    assert kinds('"/- --" x') == [("string", '"/- --"'), ("ident", "x")]


# -- strings and chars ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "literal",
    [
        r'"plain"',
        r'"escaped \" quote"',
        r'"backslash \\"',
        r'"\x41\u03B1\n\t\r\'"',
        '"gap \\\n     continues"',
        '""',
    ],
)
def test_strings_with_every_escape_are_one_token(literal: str):
    assert kinds(f"{literal} sorry") == [("string", literal), ("keyword", "sorry")]


@pytest.mark.parametrize(
    "literal",
    ['r"a \\ b"', 'r#"a "quoted" b"#', 'r##"has "# inside"##', 'r#"multi\nline"#'],
)
def test_raw_strings_close_on_a_quote_and_as_many_hashes(literal: str):
    assert kinds(f"{literal} x") == [("string", literal), ("ident", "x")]


def test_a_raw_string_only_starts_where_a_token_starts():
    assert kinds('fr"x"') == [("ident", "fr"), ("string", '"x"')]


@pytest.mark.parametrize("literal", ["'a'", "'\"'", "'\\n'", "'\\''", "'\\x41'", "'∀'", "' '"])
def test_char_literals(literal: str):
    assert kinds(f"{literal} x") == [("char", literal), ("ident", "x")]


def test_a_prime_inside_an_identifier_is_not_a_char_literal():
    assert kinds("h' f'' x'.symm") == [
        ("ident", "h'"),
        ("ident", "f''"),
        ("ident", "x'.symm"),
    ]


def test_prime_symbols_are_read_whole():
    assert kinds("f '' s ∑' i, g ⁻¹' t") == [
        ("ident", "f"),
        ("symbol", "''"),
        ("ident", "s"),
        ("symbol", "∑'"),
        ("ident", "i"),
        ("symbol", ","),
        ("ident", "g"),
        ("symbol", "⁻¹'"),
        ("ident", "t"),
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('"never closed', '"'),
        ('"bad \\q escape"', '"'),
        ('"two newlines in a gap \\\n\n x"', '"'),
        ('r#"never closed"', 'r#"'),
        ("'ab'", "'"),
        ("'\\q'", "'"),
        ("«never closed", "«"),
    ],
)
def test_a_literal_lean_rejects_is_an_error_and_what_it_hid_is_read_as_code(text, error):
    tokens = list(tokenize(text))
    assert (tokens[0].kind, tokens[0].text) == ("error", error)
    assert tokens[1].start == len(error)


@pytest.mark.parametrize(
    "char",
    [
        *("\x00", "\x1b", "\x7f", "\x85", "\u00a0", "\u00ad", "\u200b", "\u202e", "\u2066"),
        *("\u3000", "\ufeff", "\ue000", "\U000e0041", "\U0010fffd"),
    ],
)
def test_a_character_that_is_not_lean_text_is_an_error_of_its_own_in_code(char: str):
    assert kinds(f"sor{char}ry") == [("ident", "sor"), ("error", char), ("ident", "ry")]


def test_a_character_that_is_not_lean_text_stays_inside_a_comment_or_string():
    assert kinds('-- a\u202eb\n"c\u200bd"') == [
        ("line_comment", "-- a\u202eb"),
        ("string", '"c\u200bd"'),
    ]


# -- identifiers ----------------------------------------------------------------------------


def test_identifiers_with_dots_and_unicode():
    assert code_words("Nat.succ_le_iff α₁ ℕ x₀' hε Foo.bar?.baz! éa") == [
        "Nat.succ_le_iff",
        "α₁",
        "ℕ",
        "x₀'",
        "hε",
        "Foo.bar?.baz!",
        "éa",
    ]


def test_lambda_pi_and_sigma_are_symbols_not_letters():
    assert kinds("λx") == [("symbol", "λ"), ("ident", "x")]
    assert [k for k, _ in kinds("Σ Π")] == ["symbol", "symbol"]


def test_a_longer_or_qualified_word_is_one_identifier():
    assert code_words("partial_sum sorry_free Foo.sorry sorry.foo") == [
        "partial_sum",
        "sorry_free",
        "Foo.sorry",
        "sorry.foo",
    ]


def test_guillemets_make_a_name_of_anything():
    assert kinds("«sorry» Foo.«a b».c") == [("ident", "«sorry»"), ("ident", "Foo.«a b».c")]


def test_a_dot_joins_parts_only_before_an_identifier_start():
    assert kinds("h.1 x.") == [
        ("ident", "h"),
        ("symbol", "."),
        ("number", "1"),
        ("ident", "x"),
        ("symbol", "."),
    ]


def test_a_hash_is_a_command_only_as_a_token_of_the_pinned_table():
    assert kinds("#checkx #S #s.card #check_failure") == [
        ("command", "#check"),
        ("ident", "x"),
        ("symbol", "#"),
        ("ident", "S"),
        ("symbol", "#"),
        ("ident", "s.card"),
        ("command", "#check_failure"),
    ]


def test_get_elem_with_a_proof_is_a_symbol_not_a_char_literal():
    assert kinds("xs[i]'h") == [
        ("ident", "xs"),
        ("symbol", "["),
        ("ident", "i"),
        ("symbol", "]'"),
        ("ident", "h"),
    ]


def test_keywords_hash_commands_name_literals_and_numbers():
    assert kinds("theorem #eval `sorry 0x1F 2.5e-3") == [
        ("keyword", "theorem"),
        ("command", "#eval"),
        ("name", "`sorry"),
        ("number", "0x1F"),
        ("number", "2.5e-3"),
    ]


# -- positions ------------------------------------------------------------------------------


def test_lines_count_through_multiline_comments_and_strings():
    text = '/- one\ntwo -/ a\n"three\\nstill\nfour" b\n\n  c'
    tokens = {t.text: t for t in tokenize(text)}
    assert (tokens["/- one\ntwo -/"].line, tokens["/- one\ntwo -/"].end_line) == (1, 2)
    assert tokens["a"].line == 2
    assert (tokens['"three\\nstill\nfour"'].line, tokens['"three\\nstill\nfour"'].end_line) == (
        3,
        4,
    )
    assert tokens["b"].line == 4
    assert tokens["c"].line == 6


def test_a_token_carries_its_offsets():
    (token,) = tokenize("  abc")
    assert token == Token("ident", "abc", 1, 1, 2, 5)


# -- properties -----------------------------------------------------------------------------

# Characters that decide where literals and comments start and end, plus ordinary code.
TRICKY = [*"-/\"'«»r#\\ \n\t.`!?xu0a_", "∑", "⁻", "¹", "λ", "α", "ℕ", "₁", "é", "\r", "@["]
lean_ish = st.lists(st.sampled_from(TRICKY), max_size=60).map("".join)


def covers_exactly(text: str, tokens: list[Token]) -> None:
    pos = 0
    for token in tokens:
        assert text[pos : token.start].strip(" \t\r\n") == ""
        assert text[token.start : token.end] == token.text
        assert token.line == text.count("\n", 0, token.start) + 1
        assert token.end_line == token.line + token.text.count("\n")
        assert token.end > token.start
        pos = token.end
    assert text[pos:].strip(" \t\r\n") == ""


@settings(max_examples=400)
@given(st.one_of(st.text(max_size=200), lean_ish))
def test_tokens_cover_the_input_exactly_with_only_whitespace_between(text: str):
    covers_exactly(text, list(tokenize(text)))


@given(st.binary(max_size=300))
def test_random_bytes_never_break_the_lexer(data: bytes):
    text = data.decode("utf-8", errors="surrogateescape")
    covers_exactly(text, list(tokenize(text)))


# A second lexer, written character by character from `Lean.Parser.Basic` (whitespace,
# finishCommentBlock, strLitFnAux/quotedCharCoreFn/stringGapFn, rawStrLitFnAux, charLitFnAux,
# identFnAux), to check the regular expressions against. Numbers and symbols are left out of
# the comparison: they never decide what is code.
def _expand(ranges: str) -> set[str]:
    chars: set[str] = set()
    i = 0
    while i < len(ranges):
        if i + 2 < len(ranges) and ranges[i + 1] == "-":
            chars.update(chr(c) for c in range(ord(ranges[i]), ord(ranges[i + 2]) + 1))
            i += 3
        else:
            chars.add(ranges[i])
            i += 1
    return chars


_FIRST = _expand(ID_FIRST)
_REST = _expand(ID_REST)
_HEX = set(string.hexdigits)
_QUOTABLE = set("\\\"'nrt")


def _escape_end(text: str, j: int, in_string: bool) -> int | None:
    """After a backslash at j-1: where the escape ends, or None when Lean rejects it."""
    c = text[j] if j < len(text) else ""
    if c and c in _QUOTABLE:
        return j + 1
    for letter, width in (("x", 2), ("u", 4)):
        if c == letter:
            digits = text[j + 1 : j + 1 + width]
            return j + 1 + width if len(digits) == width and set(digits) <= _HEX else None
    if in_string and (c == "\n" or text.startswith("\r\n", j)):
        j = text.index("\n", j) + 1
        while j < len(text) and text[j] in " \t\r\n":
            if text[j] == "\n":
                return None
            j += 1
        return j
    return None


def _string_end(text: str, i: int) -> int | None:
    j = i + 1
    while j < len(text):
        c = text[j]
        j += 1
        if c == '"':
            return j
        if c == "\\":
            end = _escape_end(text, j, in_string=True)
            if end is None:
                return None
            j = end
    return None


def _raw_end(text: str, i: int) -> int | None:
    j = i + 1
    hashes = 0
    while j < len(text) and text[j] == "#":
        hashes += 1
        j += 1
    j += 1  # the opening quote
    while j < len(text):
        if text[j] == '"' and text[j + 1 : j + 1 + hashes] == "#" * hashes:
            return j + 1 + hashes
        j += 1
    return None


def _char_end(text: str, i: int) -> int | None:
    j = i + 1
    if j >= len(text):
        return None
    if text[j] == "\\":
        end = _escape_end(text, j + 1, in_string=False)
        if end is None:
            return None
        j = end
    else:
        j += 1
    return j + 1 if text[j : j + 1] == "'" else None


def _ident_end(text: str, i: int) -> int | None:
    j = i
    while True:
        if text[j] == "«":
            close = text.find("»", j + 1)
            if close < 0:
                return None if j == i else j - 1
            j = close + 1
        else:
            j += 1
            while j < len(text) and text[j] in _REST:
                j += 1
        if j + 1 < len(text) and text[j] == "." and (text[j + 1] in _FIRST | {"«"}):
            j += 1
        else:
            return j


def _comment_end(text: str, i: int) -> int | None:
    depth, j = 1, i + 3
    while j < len(text):
        if text.startswith("-/", j):
            depth -= 1
            j += 2
            if depth == 0:
                return j
        elif text.startswith("/-", j):
            depth += 1
            j += 2
        else:
            j += 1
    return None


def reference(text: str) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    end: int | None
    multi = sorted(MULTI_SYMBOLS, key=len, reverse=True)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        start = i
        if c in " \t\r\n":
            i += 1
            continue
        if text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            out.append(("line_comment", start, i))
            continue
        if text.startswith("/-", i):
            end = _comment_end(text, i)
            third = text[i + 2 : i + 3]
            kind = {"-": "doc_comment", "!": "module_doc"}.get(third, "block_comment")
            out.append((kind, start, n) if end is None else (kind, start, end))
            i = n if end is None else end
            if end is None:
                out[-1] = ("error", start, n)
            continue
        end = None
        kind = ""
        if c == '"':
            kind, end = "string", _string_end(text, i)
        elif c == "r" and text[i + 1 :].lstrip("#").startswith('"'):
            kind, end = "string", _raw_end(text, i)
            if end is None:
                opener = len(text[i + 1 :]) - len(text[i + 1 :].lstrip("#")) + 2
                out.append(("error", start, i + opener))
                i += opener
                continue
        elif c == "'" and text[i + 1 : i + 2] != "'":
            kind, end = "char", _char_end(text, i)
        elif c == "`" and (text[i + 1 : i + 2] in _FIRST | {"«"}) and i + 1 < n:
            name_end = _ident_end(text, i + 1)
            if name_end is not None:
                kind, end = "name", name_end
        elif c in _FIRST or c == "«":
            kind, end = "ident", _ident_end(text, i)
        if kind and end is not None:
            out.append((kind, start, end))
            i = end
        elif kind in ("string", "char", "ident"):
            out.append(("error", start, i + 1))
            i += 1
        elif c == "#" and any(text.startswith(command, i) for command in HASH_COMMANDS):
            i += max(len(c) for c in HASH_COMMANDS if text.startswith(c, i))
            out.append(("command", start, i))
        elif c.isdigit():
            i += 1
            while i < n and (text[i].isalnum() or text[i] in "_."):
                i += 1  # numbers are not compared; just step over them
            out.append(("number", start, i))
        else:
            i += next((len(m) for m in multi if text.startswith(m, i)), 1)
    return out


COMPARED = {"ident", "keyword", "name", "string", "char", "error"}
COMPARED |= {"line_comment", "block_comment", "doc_comment", "module_doc"}
# Number spellings differ in ways that never decide what is code (`2.e5`); keep them out.
no_digits = st.lists(st.sampled_from([c for c in TRICKY if not c.isdigit()]), max_size=60)


@settings(max_examples=600)
@given(no_digits.map("".join))
def test_the_patterns_agree_with_a_character_by_character_reading_of_lean(text: str):
    ours = [
        ("ident" if t.kind == "keyword" else t.kind, t.start, t.end)
        for t in tokenize(text)
        if t.kind in COMPARED
    ]
    theirs = [token for token in reference(text) if token[0] in COMPARED]
    assert ours == theirs


# CPython 3.11.2 (Debian 12's python3) mis-matches a possessive repeat of a group that holds a
# lookahead: re.match(r"(?:[^/-]++|-(?!/))*+-/", "ab-/") is None there, and the scan looped.
# An atomic group, `(?>(?:…)*)`, means the same and matches right on every 3.11.
_GROUP_POSSESSIVE = re.compile(r"\)(?:[*+?]|\{\d*,?\d*\})\+")


@pytest.mark.parametrize(
    "source",
    [
        "jigcli/lean/lexer.py",
        *(f"jigcli/lean/policy/{name}.py" for name in ("positions", "scan", "skip", "tables")),
        "jigcli/pose/statement.py",
    ],
)
def test_no_pattern_repeats_a_group_possessively(source):
    text = (Path(__file__).resolve().parents[2] / source).read_text(encoding="utf-8")
    assert _GROUP_POSSESSIVE.findall(text) == []
