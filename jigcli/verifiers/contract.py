"""The words of the verifier contract (PRODUCT.md §6): the five statuses, subjects, triggers,
the reasons a run could not answer, and `VerifierSpec`, the one declaration of a verifier.

Nothing here registers or looks anything up; `jigcli.verifiers.registry` does, and the
built-ins (`jigcli.verifiers.builtins`) are specs written in these words.
"""

from __future__ import annotations

from collections.abc import Mapping
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

# Shared words for a result that is not (yet) a verdict.
NOT_CHECKED_WORDS = "Not checked yet"


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


def normalize_verdict(word: str | None) -> str:
    """A verdict word as the registry compares it: trimmed and lowercased."""
    return (word or "").strip().lower()
