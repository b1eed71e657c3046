"""How the `lean` verifier reads a declaration's own text: a hole is a token, not a spelling."""

from __future__ import annotations

import pytest

from jigcli.paper.lean_answers import has_hole


@pytest.mark.parametrize(
    "source",
    [
        "theorem b : 2 = 2 := by\n  sorry\n",
        "theorem b : 2 = 2 := sorry",
        "theorem b : 2 = 2 := by\n  constructor <;> admit\n",
        "theorem b : 2 = 2 := by first | rfl | sorry",  # a hole, even if never reached
        "theorem b : sorry := trivial",
    ],
)
def test_a_sorry_or_admit_token_is_a_hole(source: str) -> None:
    assert has_hole(source)


@pytest.mark.parametrize(
    "source",
    [
        "theorem a : 1 = 1 := rfl",
        "theorem a : 1 = 1 := rfl -- no sorry here\n",
        "/-- Proved; once was `sorry`. -/\ntheorem a : 1 = 1 := rfl",
        "theorem a : 1 = 1 := by\n  /- sorry -/ rfl\n",
        'theorem a : "sorry".length = 5 := rfl',
        "theorem a : 1 = 1 := Foo.sorry",
        "theorem a : 1 = 1 := sorry_free_lemma",
        "theorem a : 1 = 1 := «sorry»",
        "theorem a : 1 = 1 := admitted",
    ],
)
def test_a_sorry_in_a_comment_a_string_or_a_longer_name_is_not_a_hole(source: str) -> None:
    assert not has_hole(source)
