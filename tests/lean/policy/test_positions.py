"""Where a word stands (jigcli/lean/policy/positions.py): a tactic position, the tactic a
`(name := value)` group belongs to, and which values are literals."""

from __future__ import annotations

import pytest

from jigcli.lean.policy.positions import (
    _configuration_position,
    _head_before,
    _literal_value,
    _tactic_start,
)


def at(text: str, marker: str = "@") -> tuple[str, int]:
    """The text without its marker, and where the marker stood."""
    pos = text.index(marker)
    return text[:pos] + text[pos + len(marker) :], pos


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
        "by iterate 3 @simp",
        "by all_goals (@simp)",
        "by { @simp }",
        "by\n  constructor <;>\n  @simp",
    ],
)
def test_a_tactic_starts_here(text: str):
    assert _tactic_start(*at(text))


@pytest.mark.parametrize(
    "text",
    [
        "by exact @foo",
        "example := @foo",
        "example :=\n  @foo",
        "by\n  exact\n    @foo",
        "by\n  refine fun x =>\n    @foo",
        "by\n  refine fun x ↦\n    @foo",
        "f <| @foo",
        "by exact nearby @foo",
        "⟨@foo, bar⟩",
        "by rw [@foo]",
    ],
)
def test_no_tactic_starts_here(text: str):
    assert not _tactic_start(*at(text))


@pytest.mark.parametrize(
    ("text", "head"),
    [
        ("simp @(maxSteps := 1)", "simp"),
        ("simp +arith -zeta @(maxSteps := 1)", "simp"),
        ("aesop (add safe h) (rule_sets := [A]) @(config := c)", "aesop"),
        ("simp (a := 1)\n    /- c -/ @(maxSteps := 1)", "simp"),
        ("norm_num [foo] @(maxSteps := 1)", "norm_num"),
        ("exact foo (g x) @(n := k)", "foo"),
    ],
)
def test_the_head_of_a_group_is_read_backwards_over_its_clauses(text: str, head: str):
    found = _head_before(*at(text))
    assert found is not None and found[1] == head


@pytest.mark.parametrize(
    ("text", "configures"),
    [
        ("by simp @(maxSteps := f 1)", True),
        ("by\n  grind @(splits := 4)", True),
        ("by exact le_trans @(b := c) h h", False),
        ("instance @(priority := low) : Inhabited ℕ := ⟨0⟩", False),
        ('notation @(name := foo) "x" => 1', False),
        ("#check foo @(n := k)", False),
        ("f x @(n := k)", False),
    ],
)
def test_a_group_configures_a_tactic_only_in_tactic_position(text: str, configures: bool):
    assert _configuration_position(*at(text)) is configures


@pytest.mark.parametrize(
    ("option", "tokens"),
    [
        ("maxSteps", ["100000"]),
        ("decide", ["true"]),
        ("transparency", [".", "reducible"]),
        ("occs", [".", "pos", "[", "2", ",", "3", "]"]),
        ("occs", ["[", "1", "]"]),
        ("config", ["{", "zeta", ":=", "false", ",", "decide", ":=", "true", "}"]),
        ("config", ["{", "zeta", ":=", "false", "decide", ":=", "true", "}"]),
        ("config", ["{", "}"]),
        ("rule_sets", ["[", "A", ",", "B", "]"]),
        ("discharger", ["by", "simp", "[", "f", "x", "]"]),
    ],
)
def test_literal_values(option: str, tokens: list[str]):
    assert _literal_value(option, tokens)


@pytest.mark.parametrize(
    ("option", "tokens"),
    [
        ("maxSteps", ["f", "100"]),
        ("maxSteps", ["budget"]),
        ("maxSteps", ["2", "^", "10"]),
        ("transparency", [".", "mine"]),
        ("occs", [".", "pos", "[", "f", "2", "]"]),
        ("config", ["cfg"]),
        ("config", ["{", "c", "with", "zeta", ":=", "false", "}"]),
        ("config", ["{", "maxSteps", ":=", "f", "1", "}"]),
        ("rule_sets", ["[", "f", "x", "]"]),
    ],
)
def test_values_that_run_code_are_not_literals(option: str, tokens: list[str]):
    assert not _literal_value(option, tokens)
