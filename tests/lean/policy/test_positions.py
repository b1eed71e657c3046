"""Where a token stands, read from the tokens before it (jigcli/lean/policy/positions.py): a
tactic position, whether a `(name := value)` group configures something or is a named
argument, and which values are literals given what the file declares."""

from __future__ import annotations

import pytest

from jigcli.lean.lexer import Lexer
from jigcli.lean.policy.positions import Meanings, Stream, configuration, tactic_position


def at(text: str, marker: str = "@") -> tuple[Stream, int]:
    """A stream over the text without its marker, and where the marker stood."""
    pos = text.index(marker)
    text = text[:pos] + text[pos + len(marker) :]
    return Stream(text, Lexer(text)), pos


@pytest.mark.parametrize(
    "text",
    [
        "by @simp",
        "example := by\n  @simp",
        "by rfl <;> @simp",
        "by rfl; @simp",
        "by\n  · @simp",
        "by\n  case h => @simp",
        "by first | @simp | rfl",
        "by try @simp",
        "by all_goals (@simp)",
        "by { @simp }",
        "by\n  constructor <;>\n  @simp",
        "by\n  norm_num -- (\n  @hint",
        "by\n  norm_num /- a long comment -/\n  @hint",
        "by\n  rfl <|> @hint",
    ],
)
def test_a_tactic_starts_here(text: str):
    assert tactic_position(*at(text))


@pytest.mark.parametrize(
    "text",
    [
        "by exact @foo",
        "example :=\n  @foo",
        "by\n  exact\n    @foo",
        "f <| @foo",
        "by exact nearby @foo",
        "⟨@foo, bar⟩",
        "by rw [@foo]",
    ],
)
def test_no_tactic_starts_here(text: str):
    assert not tactic_position(*at(text))


@pytest.mark.parametrize(
    "text",
    [
        "by simp @(maxSteps := f 1)",
        "by simp +arith -zeta @(maxSteps := f 1)",
        "by aesop (add safe h) (rule_sets := [A]) @(config := c)",
        "by simp (a := 1)\n    /- c -/ @(maxSteps := f 1)",
        "by simp -- see (\n    @(maxSteps := f 1)",
        "by\n  grind @(splits := g)",
        "by (simp @(config := c))",
        "by\n  rfl\n  simp @(maxSteps := f 1)",
        "fast_instance% @(x := f 1)",
        "by\n  @(x := f 1)",
    ],
)
def test_a_group_configures_unless_its_tokens_prove_an_argument(text: str):
    assert configuration(*at(text))


@pytest.mark.parametrize(
    "text",
    [
        "by exact le_trans @(b := c) h h",
        "instance @(priority := low) : Inhabited ℕ := ⟨0⟩",
        'notation @(name := foo) "x" => 1',
        "example := f x @(n := k)",
        "example := hp.two_le @(p := p)",
        "example :=\n  le_trans\n    @(b := c) h",
        "by\n  rw [foo @(n := k)]",
        "example := ⟨foo @(n := k), bar⟩",
        "by\n  refine fun x ↦\n    le_trans @(b := f x) ?_ h",
        "example := (le_of_eq (sub_nonneg @(m := g)))",
    ],
)
def test_a_group_after_a_term_is_a_named_argument(text: str):
    assert not configuration(*at(text))


@pytest.mark.parametrize(
    ("option", "tokens"),
    [
        ("maxSteps", ["100000"]),
        ("decide", ["true"]),
        ("decide", ["Bool.true"]),
        ("transparency", [".", "reducible"]),
        ("occs", [".", "pos", "[", "2", ",", "3", "]"]),
        ("occs", ["[", "1", "]"]),
        ("config", ["{", "zeta", ":=", "false", ",", "decide", ":=", "true", "}"]),
        ("config", ["{", "zeta", ":=", "false", "decide", ":=", "true", "}"]),
        ("config", ["{", "}"]),
        ("rule_sets", ["[", "A", ",", "B", "]"]),
        ("discharger", ["by", "simp", "[", "f", "x", "]"]),
        ("since", ['"2026-01-01"']),
        ("reorder", ["1", "2", ",", "3", "4"]),
    ],
)
def test_literal_values(option: str, tokens: list[str]):
    assert Meanings("").value(option, tokens)


@pytest.mark.parametrize(
    ("option", "tokens"),
    [
        ("maxSteps", ["f", "100"]),
        ("maxSteps", ["budget"]),
        ("maxSteps", ["2", "^", "10"]),
        ("transparency", [".", "mine"]),
        ("occs", [".", "pos", "[", "f", "2", "]"]),
        ("config", ["cfg"]),
        ("config", ["by", "exact", "{", "maxSteps", ":=", "n", "}"]),
        ("config", ["{", "c", "with", "zeta", ":=", "false", "}"]),
        ("config", ["{", "maxSteps", ":=", "f", "1", "}"]),
        ("rule_sets", ["[", "f", "x", "]"]),
    ],
)
def test_values_that_run_code_are_not_literals(option: str, tokens: list[str]):
    assert not Meanings("").value(option, tokens)


@pytest.mark.parametrize(
    ("declares", "option", "tokens"),
    [
        ("instance (priority := high) (n : ℕ) : OfNat ℕ n := ⟨f 0⟩", "maxSteps", ["5"]),
        ("def true : Bool := f 0", "decide", ["true"]),
        ("def Evil.Bool.true : Bool := f 0", "decide", ["Bool.true"]),
        ("inductive T\n  | true\n  | false", "decide", ["false"]),
        ("namespace X\ndef reducible := 0\nend X", "transparency", [".", "reducible"]),
        ("def Foo.pos (l : List ℕ) := l", "occs", [".", "pos", "[", "1", "]"]),
        ("open Foo renaming bar → true", "decide", ["true"]),
    ],
)
def test_a_literal_is_no_literal_where_the_file_can_change_what_it_means(
    declares: str, option: str, tokens: list[str]
):
    assert Meanings("").value(option, tokens)
    assert not Meanings(declares).value(option, tokens)


def test_the_tokens_are_read_back_past_any_comment():
    comment = "/- " + "x" * 700 + " -/"
    tactic = f"by\n  simp {comment}\n    (maxSteps := f 5)"
    argument = f"example :=\n  le_trans {comment}\n    (b := c) h"
    assert configuration(Stream(tactic, Lexer(tactic)), tactic.index("(max"))
    assert not configuration(Stream(argument, Lexer(argument)), argument.index("(b"))
