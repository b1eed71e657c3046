"""The verifier registry: one contract for every verifier.

A verifier is declared once, as a `VerifierSpec` (`jigcli.verifiers.contract`), with its own
verdict words and the mapping of each word to one of five shared statuses. Every surface asks
the registry, never a string of its own: `verifier_status` is the only translation from a
verdict word to a status, `verdict_words` what a surface says for a verdict, `failure_words`
what it says when the run could not finish. The built-ins are registered when it is imported.

`register_verifier` refuses, at registration, a spec the surfaces could not render honestly —
so a bad spec fails loudly once instead of drawing a blank mark later.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from jigcli.verifiers.builtins import BUILTINS
from jigcli.verifiers.contract import (
    NOT_CHECKED_WORDS,
    STATUSES,
    SUBJECTS,
    TRIGGERS,
    WHYS,
    Status,
    VerifierSpec,
    Why,
    normalize_verdict,
)

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class SpecRefused(ValueError):
    """A spec the surfaces could not render honestly; the message says which field and why."""


# What a surface says when a run could not answer and the spec left the words unsaid.
_DEFAULT_FAILURE_WORDS: dict[Why, str] = {
    "unreachable": "Couldn't reach {label}; try again.",
    "too_big": "Too big for {label} to check here.",
    "not_set_up": "{label} isn't set up here yet.",
    "refused": "{label} refused to check this.",
}


# Filled with the built-ins at the end of this module: asking about `lean` works anywhere,
# with no import-order ritual.
_SPECS: dict[str, VerifierSpec] = {}


def _refusals(spec: VerifierSpec) -> list[str]:
    problems: list[str] = []
    if not _ID.fullmatch(spec.id):
        problems.append(f"id {spec.id!r} must be lowercase letters, digits and single dashes")
    if spec.subject not in SUBJECTS:
        problems.append(f"subject {spec.subject!r} must be one of {', '.join(SUBJECTS)}")
    if spec.trigger not in TRIGGERS:
        problems.append(f"trigger {spec.trigger!r} must be one of {', '.join(TRIGGERS)}")
    if not spec.verdicts:
        problems.append("it declares no verdict words")
    for word, status in spec.verdicts.items():
        if not word or word != normalize_verdict(word):
            problems.append(f"verdict {word!r} must be non-empty, lowercase and trimmed")
        if status not in STATUSES:
            problems.append(f"verdict {word!r} maps to {status!r}, not one of {STATUSES}")
    for word in spec.says:
        if word not in spec.verdicts:
            problems.append(f"words are given for {word!r}, which is not one of its verdicts")
    for why in spec.failed:
        if why not in WHYS:
            problems.append(f"failure words are given for {why!r}, not one of {WHYS}")
    return problems


def register_verifier(spec: VerifierSpec) -> Callable[[], None]:
    """Register `spec` (replacing any spec with its id); returns the function that removes it.

    The returned function removes only this spec: once another registration has replaced it,
    calling it does nothing. Raises `SpecRefused` for a spec the surfaces could not render.
    """
    problems = _refusals(spec)
    if problems:
        raise SpecRefused(f"verifier {spec.id!r} refused: " + "; ".join(problems) + ".")
    _SPECS[spec.id] = spec

    def unregister() -> None:
        if _SPECS.get(spec.id) is spec:
            del _SPECS[spec.id]

    return unregister


def get_verifier(verifier_id: str) -> VerifierSpec | None:
    return _SPECS.get(verifier_id)


def all_verifiers() -> list[VerifierSpec]:
    """Every registered spec, in registration order."""
    return list(_SPECS.values())


def verifier_status(verifier_id: str, word: str | None) -> Status:
    """The status for a verdict word: the only translation there is.

    Compared trimmed and lowercased; an unknown verifier, a word its spec never declared, or
    an empty word is `pending` — never a guess.
    """
    spec = _SPECS.get(verifier_id)
    if spec is None:
        return "pending"
    return spec.verdicts.get(normalize_verdict(word), "pending")


def verdict_words(verifier_id: str, word: str | None) -> str:
    """What a surface says for a verdict, in the verifier's own voice."""
    spec = _SPECS.get(verifier_id)
    normalized = normalize_verdict(word)
    if spec is None or normalized not in spec.verdicts:
        return NOT_CHECKED_WORDS
    return spec.says.get(normalized, normalized)


def failure_words(verifier_id: str, why: Why, *, detail: str = "") -> str:
    """What a surface says when the run could not answer, by why (never a verdict).

    A `detail` goes inside the sentence, before its full stop: "… set up here yet (no lake)."
    """
    spec = _SPECS.get(verifier_id)
    label = spec.label if spec is not None else verifier_id
    if spec is not None and why in spec.failed:
        words = spec.failed[why]
    else:
        words = _DEFAULT_FAILURE_WORDS[why].format(label=label)
    if not detail:
        return words
    stop = "." if words.endswith(".") else ""
    return f"{words.removesuffix('.')} ({detail}){stop}"


for _builtin in BUILTINS:
    register_verifier(_builtin)
