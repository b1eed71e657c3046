from __future__ import annotations

import pytest

from jigcli.verifiers.contract import NOT_CHECKED_WORDS, STATUSES, WHYS
from jigcli.verifiers.registry import (
    all_verifiers,
    failure_words,
    get_verifier,
    verdict_words,
    verifier_status,
)

# The contract's §2 table, word for word, plus the verifier behind `jig verify`.
CONTRACT = {
    "compile": {
        "compiled": "ok",
        "warning": "warn",
        "error": "error",
        "stale": "warn",
        "compiling": "pending",
    },
    "lean": {
        "proved": "ok",
        "conditional": "conditional",
        "sorry": "warn",
        "error": "error",
        "assumed": "ok",
        "pending": "pending",
        "refuted": "error",
    },
    "audit": {
        "faithful": "ok",
        "partial": "warn",
        "mismatch": "error",
        "unstated": "error",
        "refuted": "error",
    },
    "submission": {"green": "ok", "red": "error"},
}
CASES = [(vid, word, status) for vid, table in CONTRACT.items() for word, status in table.items()]


@pytest.mark.parametrize(("verifier", "word", "status"), CASES)
def test_every_built_in_maps_every_verdict_as_the_contract_says(
    verifier: str, word: str, status: str
) -> None:
    assert verifier_status(verifier, word) == status
    assert verifier_status(verifier, f"  {word.upper()} ") == status


@pytest.mark.parametrize("verifier", CONTRACT)
def test_every_built_in_declares_exactly_the_contracts_words(verifier: str) -> None:
    spec = get_verifier(verifier)
    assert spec is not None
    assert dict(spec.verdicts) == CONTRACT[verifier]


@pytest.mark.parametrize("verifier", CONTRACT)
def test_an_unknown_word_of_a_built_in_is_pending(verifier: str) -> None:
    assert verifier_status(verifier, "probably-fine") == "pending"
    assert verifier_status(verifier, "") == "pending"


@pytest.mark.parametrize(("verifier", "word", "status"), CASES)
def test_every_built_in_verdict_has_its_own_words(verifier: str, word: str, status: str) -> None:
    words = verdict_words(verifier, word)
    assert words
    assert words != NOT_CHECKED_WORDS or word == "pending"  # lean's own `pending` says so


@pytest.mark.parametrize("verifier", CONTRACT)
@pytest.mark.parametrize("why", WHYS)
def test_every_built_in_says_why_a_run_could_not_answer(verifier: str, why: str) -> None:
    assert failure_words(verifier, why)  # type: ignore[arg-type]


def test_conditional_is_never_ok_and_stale_is_a_warning() -> None:
    assert verifier_status("lean", "conditional") == "conditional"
    assert verifier_status("compile", "stale") == "warn"
    assert verifier_status("audit", "unstated") == "error"


def test_compile_is_built_in_for_tex_and_lean_ranks_over_compile() -> None:
    compile_spec, lean_spec = get_verifier("compile"), get_verifier("lean")
    assert compile_spec is not None and lean_spec is not None
    assert compile_spec.bundle is None and ".tex" in compile_spec.documents
    assert lean_spec.glyph_rank > compile_spec.glyph_rank


def test_every_registered_status_is_one_of_the_five() -> None:
    for spec in all_verifiers():
        assert set(spec.verdicts.values()) <= set(STATUSES)
