"""Untrusted text shown to a person: one line, no control character obeyed, capped."""

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from jigcli.display import LIMIT, one_line


def test_escape_sequences_and_newlines_are_shown_escaped():
    shown = one_line("ok\x1b[2K\r\n● Green\x07\u202e\u2028")
    assert shown == "ok\\x1b[2K\\r\\n● Green\\x07\\u202e\\u2028"


def test_plain_text_is_unchanged():
    assert one_line("the cubes sum to 42 — é ✓ 漢字") == "the cubes sum to 42 — é ✓ 漢字"


def test_a_long_line_is_cut_with_an_ellipsis():
    shown = one_line("x" * 1000)
    assert shown == "x" * LIMIT + "…"


@given(st.text())
def test_nothing_a_terminal_would_obey_survives(text):
    shown = one_line(text)
    assert len(shown) <= LIMIT + 1
    bad = {"Cc", "Cf", "Zl", "Zp", "Co", "Cs", "Cn"}
    assert not any(unicodedata.category(char) in bad for char in shown)
