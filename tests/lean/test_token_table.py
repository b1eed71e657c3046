"""The lexer reads a file as Lean's tokenizer does, with the pinned table and the tokens the
file declares: checked against `lean_reference` (written from Lean's parser, one character at
a time) on generated files that declare notation tokens of every shape."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from jigcli.lean.lexer import PINNED_SYMBOLS, Lexer, changes_reading, tokenize
from jigcli.lean.policy.tables import misleading_token

from .lean_reference import spans

_COMMENTS = {"line_comment", "block_comment", "doc_comment", "module_doc"}
# Symbols a generated token is made of: operators, quotes, `%`, `#`, comment characters.
_SYMBOL_CHARS = "⊕⊗⋆∘‖≺⊞◃†-/+*<>|%#'!?"
_LETTERS = "qxsorya"


def _kind(kind: str) -> str:
    if kind in _COMMENTS:
        return "comment"
    return {"keyword": "ident", "symbol": "token", "command": "token"}.get(kind, kind)


def lexer_spans(text: str, declared: frozenset[str]) -> list[tuple[str, int, int]]:
    return [(_kind(t.kind), t.start, t.end) for t in tokenize(text, declared)]


def _same_reading(ours: list[tuple[str, int, int]], lean: list[tuple[str, int, int]]) -> None:
    """Every comment, string, char literal and name where Lean has it; symbols may be split
    finer (a run of symbols the lexer has no entry for is read a character at a time, which
    changes no boundary of anything else), and a numeral Lean rejects (`0x`) the lexer reads
    as a number and a name, which is code either way."""
    kept = {"comment", "string", "char", "name", "ident"}
    assert [s for s in ours if s[0] in kept] == [s for s in lean if s[0] in kept]
    boundaries = {start for _, start, _ in ours} | {end for _, _, end in ours}
    for kind, start, end in lean:
        assert start in boundaries and end in boundaries, (kind, start, end)


def _code(spans_: list[tuple[str, int, int]]) -> set[int]:
    return {
        i
        for kind, start, end in spans_
        if kind not in ("comment", "string", "char")
        for i in range(start, end)
    }


def _never_less_code(
    ours: list[tuple[str, int, int]], lean: list[tuple[str, int, int]], *, names_too: bool = True
) -> None:
    """What a table the lexer does not know in full can change: the lexer may read more of
    the text as code than Lean does, never less, and (`names_too`) every name Lean reads where
    the lexer reads code is the same name there."""
    assert _code(lean) <= _code(ours)
    if not names_too:
        return
    names = {s for s in ours if s[0] == "ident"}
    code = _code(ours)
    for span in lean:
        if span[0] == "ident" and span[1] in code:
            assert span in names, span


tokens = st.builds(
    lambda head, tail: head + tail,
    st.text(_SYMBOL_CHARS, min_size=1, max_size=3),
    st.text(_SYMBOL_CHARS + _LETTERS, max_size=2),
).filter(lambda t: not t.startswith(("--", "/-", "'")) and t.strip())
pieces = st.sampled_from(
    [
        *(" ", "\n", "x", "qsorry", "foo.bar", "h'", "a", "0", "12", "(", ")", "+", "-", "/"),
        *("--", "/-", "-/", "-- note\n", "/- c -/", '"s"', "'c'", "%", "#", "'", "⊕", "q"),
        *("sorry", "ℕ"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(tokens, min_size=1, max_size=4), st.lists(st.one_of(pieces, tokens), max_size=30))
@example(declared=["<"], body=["<r", '"s"'])  # a raw string right after a token
@example(declared=["<<?o"], body=["<<?o", "x"])  # `?` continues names: `?o` glues
def test_the_lexer_reads_declared_tokens_as_lean_does(declared: list[str], body: list[str]):
    text = "".join(body)
    table = frozenset(declared)
    ours, lean = lexer_spans(text, table), spans(text, PINNED_SYMBOLS | table)
    # A token glued to a letter (`<o`) beside one the lexer does not list (`<<`) can move a
    # name's start; the policy refuses a file declaring such a token (`misleading_token`).
    admissible = not any(misleading_token(token) for token in table)
    _never_less_code(ours, lean, names_too=admissible)
    if all(changes_reading(token) for token in table):  # every token is known to the lexer
        _same_reading(ours, lean)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(pieces, st.sampled_from(sorted(PINNED_SYMBOLS))), max_size=40))
def test_the_lexer_reads_the_pinned_tokens_as_lean_does(body: list[str]):
    text = "".join(body)
    _same_reading(lexer_spans(text, frozenset()), spans(text, PINNED_SYMBOLS))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text("⊕⊗⋆∘≺⊞◃†+*<>|!?", min_size=2, max_size=3), max_size=5),
    st.lists(pieces, max_size=40),
)
def test_tokens_that_do_not_change_reading_need_no_entry(plain: list[str], body: list[str]):
    # Lean's table holds many symbol runs (`<;>`, `∘`, `→+*`) this lexer does not list.
    assert not any(changes_reading(token) for token in plain)
    text = "".join(body)
    _never_less_code(lexer_spans(text, frozenset()), spans(text, PINNED_SYMBOLS | set(plain)))


def test_a_declared_token_is_read_whole_from_where_the_lexer_has_it():
    text = "a ⊕qsorry x/- c -/ ∂'f"
    declared = frozenset({"⊕q", "x/", "∂'"})
    assert [(t.kind, t.text) for t in tokenize(text, declared)] == [
        ("ident", "a"),
        ("symbol", "⊕q"),
        ("keyword", "sorry"),
        ("symbol", "x/"),
        ("symbol", "-"),
        ("ident", "c"),
        ("symbol", "-"),
        ("symbol", "/"),
        ("symbol", "∂'"),
        ("ident", "f"),
    ]
    assert Lexer(text).at(2) == ("symbol", 3)  # without the declaration, `⊕` alone


def test_a_token_as_long_as_the_name_there_is_the_token():
    # `isToken`: a token at least as long as the identifier wins, so `x/` beats `x`, and a
    # longer name beats the token.
    assert [t.text for t in tokenize("x/y xy/", frozenset({"x/"}))] == ["x/", "y", "xy", "/"]


def test_what_changes_reading():
    assert changes_reading("→o") and changes_reading("x/") and changes_reading("∑'")
    assert changes_reading("a--") and changes_reading("%ₘ") and changes_reading("‖#") is False
    assert not changes_reading("<;>") and not changes_reading("∘") and not changes_reading("ext")


def test_every_pinned_symbol_changes_reading_and_names_its_source():
    # An entry that reads the same one character at a time would only slow the lexer.
    from jigcli.lean.lexer import TOKENS

    assert PINNED_SYMBOLS
    for token, entry in TOKENS["symbols"].items():
        assert changes_reading(token), token
        assert entry["source"].startswith(("lean4 ", "Mathlib ")), token


def test_a_token_starting_with_a_digit_is_never_read():
    # `tokenFnAux` reads a number wherever a digit starts, before it looks at the table.
    assert [t.kind for t in tokenize("1/- c -/ x", frozenset({"1/"}))] == [
        "number",
        "block_comment",
        "ident",
    ]


def test_a_token_whose_first_character_only_continues_names_is_read_whole():
    # `!` continues a name but cannot start one: Lean reads `!o` then `q`, not `!` then `oq`.
    assert [(t.kind, t.text) for t in tokenize("!oq", frozenset({"!o"}))] == [
        ("symbol", "!o"),
        ("ident", "q"),
    ]
    assert changes_reading("!o") and changes_reading("₁x")
