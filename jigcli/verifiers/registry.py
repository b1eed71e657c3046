"""The verifier registry: one contract for every verifier.

A verifier is declared once, as a `VerifierSpec`, with its own verdict words and the mapping of
each word to one of five shared statuses. Every surface asks the registry, never a string of its
own: `verifier_status` is the only translation from a verdict word to a status, `verdict_words`
what a surface says for a verdict, `failure_words` what it says when the run could not finish.

`register_verifier` refuses, at registration, a spec the surfaces could not render honestly —
so a bad spec fails loudly once instead of drawing a blank mark later.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal, get_args

# The five statuses, and the only ones. `conditional` is never `ok`; `pending` is never an
# inferred `ok`.
Status = Literal["ok", "conditional", "warn", "error", "pending"]
STATUSES: tuple[Status, ...] = get_args(Status)
# Worst first: of several results, the first of these present wins.
SEVERITY: tuple[Status, ...] = ("error", "warn", "conditional", "pending", "ok")

Subject = Literal["document", "statement", "claim", "link"]
SUBJECTS: tuple[Subject, ...] = get_args(Subject)

# auto: every settled edit · manual: a command run by hand · agent: written by an agent's run
Trigger = Literal["auto", "manual", "agent"]
TRIGGERS: tuple[Trigger, ...] = get_args(Trigger)

# Why a run could not answer. Only `unreachable` is worth trying again as is; the others
# would fail the same way, so a surface offers no retry for them.
Why = Literal["unreachable", "too_big", "not_set_up", "refused"]
WHYS: tuple[Why, ...] = get_args(Why)

# How long one run takes, in the words every surface uses.
Speed = Literal["A few seconds", "About a minute", "A few minutes", "Can take an hour or more"]

# Shared words for a result that is not (yet) a verdict, and for failures a spec leaves unsaid.
NOT_CHECKED_WORDS = "Not checked yet"
_DEFAULT_FAILURE_WORDS: dict[Why, str] = {
    "unreachable": "Couldn't reach {label}; try again.",
    "too_big": "Too big for {label} to check here.",
    "not_set_up": "{label} isn't set up here yet.",
    "refused": "{label} refused to check this.",
}

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


class SpecRefused(ValueError):
    """A spec the surfaces could not render honestly; the message says which field and why."""


@dataclass(frozen=True)
class VerifierSpec:
    """What a command line needs to know about one verifier."""

    id: str  # lowercase letters, digits, dashes: `compile`, `lean`, `lean-blueprint`
    label: str  # its name on every surface, naming the whole job: "Check with Lean"
    subject: Subject  # what one verdict is about
    trigger: Trigger
    verdicts: Mapping[str, Status]  # its own words, in its own order, each to a status
    says: Mapping[str, str]  # the words a surface prints for each verdict
    evidence: str  # where the real output behind a verdict lives
    bundle: str | None  # the catalog bundle that switches it on; None = built in
    pitch: str  # one sentence: what it checks
    speed: Speed  # how long one run takes
    documents: tuple[str, ...] = ()  # suffixes it applies to once on; empty = every document
    glyph_rank: int = 0  # on a line with several results of one status, the higher rank leads
    failed: Mapping[Why, str] = field(default_factory=dict)  # words per why; defaults otherwise


_SPECS: dict[str, VerifierSpec] = {}
_builtins_loaded = False


def _registry() -> dict[str, VerifierSpec]:
    # The built-ins register themselves on first use, so asking about `lean` works anywhere
    # without an import-order ritual, and importing the registry stays cheap.
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        from jigcli.verifiers import builtins

        builtins.register_all()
    return _SPECS


def normalize_verdict(word: str | None) -> str:
    """A verdict word as the registry compares it: trimmed and lowercased."""
    return (word or "").strip().lower()


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
    registry = _registry()
    registry[spec.id] = spec

    def unregister() -> None:
        if registry.get(spec.id) is spec:
            del registry[spec.id]

    return unregister


def get_verifier(verifier_id: str) -> VerifierSpec | None:
    return _registry().get(verifier_id)


def all_verifiers() -> list[VerifierSpec]:
    """Every registered spec, in registration order."""
    return list(_registry().values())


def verifier_status(verifier_id: str, word: str | None) -> Status:
    """The status for a verdict word: the only translation there is.

    Compared trimmed and lowercased; an unknown verifier, a word its spec never declared, or
    an empty word is `pending` — never a guess.
    """
    spec = _registry().get(verifier_id)
    if spec is None:
        return "pending"
    return spec.verdicts.get(normalize_verdict(word), "pending")


def verdict_words(verifier_id: str, word: str | None) -> str:
    """What a surface says for a verdict, in the verifier's own voice."""
    spec = _registry().get(verifier_id)
    normalized = normalize_verdict(word)
    if spec is None or normalized not in spec.verdicts:
        return NOT_CHECKED_WORDS
    return spec.says.get(normalized, normalized)


def failure_words(verifier_id: str, why: Why, *, detail: str = "") -> str:
    """What a surface says when the run could not answer, by why (never a verdict).

    A `detail` goes inside the sentence, before its full stop: "… set up here yet (no lake)."
    """
    spec = _registry().get(verifier_id)
    label = spec.label if spec is not None else verifier_id
    if spec is not None and why in spec.failed:
        words = spec.failed[why]
    else:
        words = _DEFAULT_FAILURE_WORDS[why].format(label=label)
    if not detail:
        return words
    stop = "." if words.endswith(".") else ""
    return f"{words.removesuffix('.')} ({detail}){stop}"
