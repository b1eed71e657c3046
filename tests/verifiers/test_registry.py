from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from jigcli.verifiers.contract import NOT_CHECKED_WORDS, VerifierSpec
from jigcli.verifiers.registry import (
    SpecRefused,
    failure_words,
    get_verifier,
    register_verifier,
    verdict_words,
    verifier_status,
)

SPEC = VerifierSpec(
    id="spell-check",
    label="Spell check",
    subject="document",
    trigger="manual",
    verdicts={"clean": "ok", "typos": "warn", "unreadable": "error"},
    says={"clean": "No typos", "typos": "Typos found"},
    evidence="the spell checker's report",
    bundle="spelling",
    pitch="Finds misspelled words.",
    speed="A few seconds",
    documents=(".tex", ".md"),
    glyph_rank=1,
    failed={"unreachable": "Couldn't reach the dictionary."},
)


@pytest.fixture
def registered() -> Iterator[VerifierSpec]:
    unregister = register_verifier(SPEC)
    yield SPEC
    unregister()


def refused(**changes: object) -> str:
    with pytest.raises(SpecRefused) as caught:
        register_verifier(dataclasses.replace(SPEC, **changes))  # type: ignore[arg-type]
    assert get_verifier(SPEC.id) is None, "a refused spec must not be registered"
    return str(caught.value)


@pytest.mark.parametrize("bad_id", ["Spell", "spell check", "spell_check", "-spell", "spell-", ""])
def test_registration_refuses_a_malformed_id(bad_id: str) -> None:
    with pytest.raises(SpecRefused, match="id"):
        register_verifier(dataclasses.replace(SPEC, id=bad_id))


def test_registration_refuses_a_spec_without_verdict_words() -> None:
    assert "no verdict words" in refused(verdicts={}, says={})


@pytest.mark.parametrize("word", ["Clean", " clean", "clean ", ""])
def test_registration_refuses_a_verdict_word_not_lowercase_and_trimmed(word: str) -> None:
    assert "lowercase and trimmed" in refused(verdicts={word: "ok"}, says={})


def test_registration_refuses_a_mapping_outside_the_five_statuses() -> None:
    assert "'fine'" in refused(verdicts={"clean": "fine"}, says={})


def test_registration_refuses_words_for_a_verdict_it_does_not_declare() -> None:
    assert "'spotless'" in refused(says={"spotless": "Spotless"})


def test_registration_refuses_failure_words_for_an_unknown_why() -> None:
    assert "'offline'" in refused(failed={"offline": "Offline."})


def test_status_is_the_specs_mapping_compared_trimmed_and_lowercased(
    registered: VerifierSpec,
) -> None:
    assert verifier_status("spell-check", "clean") == "ok"
    assert verifier_status("spell-check", "  Typos\n") == "warn"
    assert verifier_status("spell-check", "UNREADABLE") == "error"


@pytest.mark.parametrize("word", ["perfect", "", None, "   "])
def test_an_undeclared_or_empty_verdict_is_pending(registered: VerifierSpec, word: str) -> None:
    assert verifier_status("spell-check", word) == "pending"


def test_an_unknown_verifier_is_pending() -> None:
    assert verifier_status("no-such-verifier", "ok") == "pending"


def test_re_registering_an_id_replaces_the_earlier_spec(registered: VerifierSpec) -> None:
    newer = dataclasses.replace(SPEC, verdicts={"clean": "conditional"}, says={})
    unregister_newer = register_verifier(newer)
    try:
        assert get_verifier("spell-check") is newer
        assert verifier_status("spell-check", "typos") == "pending"
        assert verifier_status("spell-check", "clean") == "conditional"
    finally:
        unregister_newer()


def test_unregister_removes_only_the_spec_it_registered() -> None:
    unregister_first = register_verifier(SPEC)
    newer = dataclasses.replace(SPEC, label="Spell check v2")
    unregister_newer = register_verifier(newer)
    unregister_first()  # stale: the id now belongs to `newer`
    assert get_verifier("spell-check") is newer
    unregister_newer()
    assert get_verifier("spell-check") is None
    unregister_newer()  # a second call is harmless
    assert verifier_status("spell-check", "clean") == "pending"


def test_words_come_from_the_spec(registered: VerifierSpec) -> None:
    assert verdict_words("spell-check", " Typos ") == "Typos found"
    assert verdict_words("spell-check", "unreadable") == "unreadable"  # declared, no words: its own
    assert verdict_words("spell-check", "perfect") == NOT_CHECKED_WORDS
    assert verdict_words("no-such-verifier", "clean") == NOT_CHECKED_WORDS


def test_failure_words_use_the_specs_words_then_shared_ones_by_label(
    registered: VerifierSpec,
) -> None:
    assert failure_words("spell-check", "unreachable") == "Couldn't reach the dictionary."
    assert failure_words("spell-check", "not_set_up") == "Spell check isn't set up here yet."
    assert "Spell check" in failure_words("spell-check", "too_big")


def test_failure_words_with_a_detail_keep_it_inside_the_sentence(registered: VerifierSpec) -> None:
    said = failure_words("spell-check", "not_set_up", detail="no aspell on PATH")
    assert said == "Spell check isn't set up here yet (no aspell on PATH)."
