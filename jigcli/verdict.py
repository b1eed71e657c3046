"""The verdict (`conject.verdict.v1`): it starts red, each check records itself, and only
`finish` turns it green, and only when every check actively passed.

What to do next is derived from the reason in one table (`REASONS`), never written per case.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from jigcli.ownsource import identity

if TYPE_CHECKING:  # the contract pulls in dataclasses, which a certificate's run never loads
    from jigcli.verifiers.contract import Status

SCHEMA = "conject.verdict.v1"

# Exit codes of the commands that decide: 0 green, 1 red, 2 a usage error (`jigcli.errors`),
# 3 a bug in jig, and 4 "not checked here": this machine lacks what the check needs (Lean, a
# sandbox). That verdict stays red, so CI fails either way, but a script can tell it apart
# from a wrong proof and a person is told what to install rather than that they erred.
EXIT_NOT_CHECKED = 4
NOT_CHECKED_REASONS = frozenset({"toolchain_missing", "sandbox_unavailable"})


def status_for_exit(code: int) -> Status:
    """The top-level `status` of a command's `--json`, read off its exit code so the two
    never disagree: `ok` for 0, `pending` for "not checked here" and for a run stopped before
    it finished, `error` for anything else."""
    if code == 0:
        return "ok"
    return "pending" if code == EXIT_NOT_CHECKED or code >= 128 else "error"


class Reason(NamedTuple):
    words: str  # the reason said to a person, in a few words
    next: str  # what to do about it
    actionable: bool = True  # False when it says nothing about the submission itself


# In precedence order: when several checks fail, the reason listed first is the verdict's.
REASONS: dict[str, Reason] = {
    "ok": Reason("every check passed", "Nothing to do: the submission proves the statement."),
    "bad_manifest": Reason(
        "the manifest is malformed",
        "Fix the manifest where the detail says (its line, or the field it names) and run jig "
        "verify again.",
    ),
    "unknown_statement": Reason(
        "no such canonical statement",
        "Check statement_id: it must name a file Statements/<id>.lean (or a Certificates/<id>/ "
        "folder) that exists on this branch.",
    ),
    "missing_source": Reason(
        "the submission's source is missing",
        "Put the source where the manifest's module (or witness) says it is, next to the manifest.",
    ),
    "statement_id_mismatch": Reason(
        "the manifest names another statement",
        "The manifest's statement_id differs from the one this run was asked to verify; "
        "submit it under the right statement or fix statement_id.",
    ),
    "missing_witness": Reason(
        "the witness file is missing or unusable",
        "Put the witness file named by the manifest next to it, inside the submission folder.",
    ),
    "forbidden_syntax": Reason(
        "the static policy rejected the source",
        "Remove the construct each violation names (its line is given); it was not built.",
    ),
    "build_failed": Reason(
        "the submission does not compile",
        "Read the compiler's errors in checks.build.output and fix them; "
        "`lake build <module>` reproduces them locally.",
    ),
    "restatement": Reason(
        "it proves a different statement",
        "Your declaration's type is not the canonical statement: compare submitted_type with "
        "canonical_statement. Prove exactly `Statements.<id>.statement`, not a variant of it.",
    ),
    "shadowed_statement": Reason(
        "it redeclares the canonical statement",
        "Rename the declaration: a submission may not declare anything under "
        "`Statements.<id>` or import the statement module.",
    ),
    "provenance": Reason(
        "a constant does not come from where it must",
        "Check that decl is declared in the submitted module itself, that the module declares "
        "nothing already declared elsewhere, and that it imports only from Mathlib, Batteries, "
        "Std, Init, Aesop, Plausible and Commons.",
    ),
    "unchecked_code": Reason(
        "it declares code the kernel does not check",
        "Remove the unsafe or partial declarations the detail names: the kernel cannot check "
        "them, so a proof may not contain them.",
    ),
    "sorry": Reason(
        "the proof has a hole (sorry)",
        "Something the proof uses still depends on sorryAx; finish every `sorry`.",
    ),
    "native_decide": Reason(
        "the proof trusts compiled code",
        "native_decide, decide +native and bv_decide trust the compiler, not the kernel; "
        "replace them with `decide` or a real proof.",
    ),
    "disallowed_axiom": Reason(
        "the proof uses an axiom outside the trusted three",
        "Only propext, Classical.choice and Quot.sound are allowed; the detail lists the extras.",
    ),
    "audit_failed": Reason(
        "the axiom audit could not run",
        "The axiom audit did not elaborate; its output is in checks.axioms.output.",
    ),
    "not_a_refutation": Reason(
        "it does not refute the statement it names",
        "The proved statement is not `¬ Statements.<refutes>.statement` up to Iff.rfl; "
        "fix refutes or state the negation exactly.",
    ),
    "kernel_rejected": Reason(
        "the kernel replay rejected a declaration",
        "The judge's kernel replay refused a declaration of the module; the detail names it "
        "and says why.",
    ),
    "invalid_witness": Reason(
        "the checker rejected the witness",
        "The problem's checker says the witness is wrong; its reason is in the detail.",
    ),
    "checker_protocol": Reason(
        "the checker broke its output protocol",
        "The checker must print exactly one `CONJECT_CERT: {json}` line with a boolean ok; "
        "this is a problem with the checker, report it to the problem's poser.",
        actionable=False,
    ),
    "checker_error": Reason(
        "the checker crashed",
        "The checker exited with an error; its output is in checker_stdout. Report it if "
        "the witness is well-formed.",
        actionable=False,
    ),
    "sandbox_unavailable": Reason(
        "no sandbox is available here",
        "Install bubblewrap (apt-get install bubblewrap) or allow unprivileged user namespaces; "
        "for local development only, --allow-no-netns runs without one.",
        actionable=False,
    ),
    "timeout": Reason(
        "a step ran out of time",
        "The detail names the step. A slow build means a slow proof, not a wrong one; an "
        "elaboration budget exhausted on the bridge decided nothing — simplify and retry.",
    ),
    "toolchain_missing": Reason(
        "no matching Lean toolchain here",
        "Install elan (curl https://raw.githubusercontent.com/leanprover/elan/master/"
        "elan-init.sh -sSf | sh), then in the repo run `lake exe cache get` to fetch the "
        "Mathlib cache, and verify again.",
        actionable=False,
    ),
    "runner_stopped": Reason(
        "the CI runner stopped the job",
        "Not your submission's fault: the CI job was cancelled or killed by its runner before "
        "jig decided anything; run the verification again.",
        actionable=False,
    ),
    "verifier_error": Reason(
        "the verifier itself failed",
        "Not your submission's fault: report it with the verdict file rather than resubmitting.",
        actionable=False,
    ),
}

PRECEDENCE = {name: index for index, name in enumerate(REASONS)}


def utc_now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Check(NamedTuple):
    ok: bool | None  # None: not run (and why is in `detail`)
    detail: str
    output: str | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"ok": self.ok, "detail": self.detail}
        if self.output:
            entry["output"] = self.output
        return entry


class Verdict:
    """One verification's verdict, filled in by its pipeline's steps.

    A plain class, not a dataclass: `jig verify` imports it on every run, and generating a
    dataclass's methods is a large share of a certificate verification's start-up.
    """

    def __init__(
        self,
        kind: str = "lean",
        submission: str | None = None,
        statement_id: str | None = None,
        toolchain: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.submission = submission
        self.statement_id = statement_id
        self.decl: str | None = None
        self.verdict = "red"
        self.reason: str | None = None
        self.detail = ""
        self.axioms: list[str] = []
        self.elaborated_term_hash: str | None = None
        self.term_hash_kind: str | None = None
        self.statement_hash: str | None = None
        self.submission_source_hash: str | None = None
        self.statement_source_hash: str | None = None
        self.canonical_statement: str | None = None
        self.submitted_type: str | None = None
        self.print_axioms: str | None = None
        self.checks: dict[str, Check] = {}
        self.toolchain: dict[str, Any] = toolchain if toolchain is not None else {}
        self.timings_sec: dict[str, float] = {}
        self.timestamp = utc_now()
        # Where the evidence is: the judge's report, verdict files.
        self.evidence: dict[str, str] = {}
        # Kind-specific fields (certificates: checker_hash, witness_hash, lane, limits, ...).
        self.extra: dict[str, Any] = {}

    def __repr__(self) -> str:
        return f"Verdict({self.verdict} {self.reason}: {self.submission})"

    # -- recording ------------------------------------------------------------------------
    def record(self, name: str, ok: bool, detail: str, output: str | None = None) -> bool:
        """Record one check's outcome; returns `ok` so a step can `return v.record(...)`."""
        self.checks[name] = Check(ok, detail, output)
        return ok

    def skip(self, name: str, why: str) -> None:
        """Record that a check did not run. A skipped check never counts as passed."""
        self.checks[name] = Check(None, f"not run: {why}")

    def fail(self, reason: str, detail: str) -> None:
        """Name a failure; of several, the one earliest in `REASONS` becomes the verdict's."""
        if reason not in REASONS or reason == "ok":
            raise ValueError(f"unknown failure reason {reason!r}")
        if self.reason is None or PRECEDENCE[reason] < PRECEDENCE[self.reason]:
            self.reason = reason
            self.detail = detail

    def finish(self) -> Verdict:
        """Turn green only if no failure was named and every recorded check passed."""
        if self.reason is None:
            pending = [name for name, check in self.checks.items() if check.ok is not True]
            if not self.checks or pending:
                self.fail("verifier_error", "checks did not all run: " + ", ".join(pending))
            else:
                self.reason = "ok"
                self.detail = "every check passed"
        self.verdict = "green" if self.reason == "ok" else "red"
        return self

    @property
    def green(self) -> bool:
        return self.verdict == "green"

    @property
    def checked_here(self) -> bool:
        """False when this machine could not run the check at all (no Lean, no sandbox)."""
        return self.reason not in NOT_CHECKED_REASONS

    @property
    def exit_code(self) -> int:
        if self.green:
            return 0
        return 1 if self.checked_here else EXIT_NOT_CHECKED

    # -- output ---------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        reason = self.reason or "verifier_error"
        advice = REASONS[reason]
        document: dict[str, Any] = {
            "schema": SCHEMA,
            "verdict": self.verdict,
            "reason": reason,
            "detail": self.detail,
            "kind": self.kind,
            "statement_id": self.statement_id,
            "submission": self.submission,
            "decl": self.decl,
            "axioms": sorted(self.axioms),
            "elaborated_term_hash": self.elaborated_term_hash,
            "term_hash_kind": self.term_hash_kind,
            "statement_hash": self.statement_hash,
            "submission_source_hash": self.submission_source_hash,
            "statement_source_hash": self.statement_source_hash,
            "canonical_statement": self.canonical_statement,
            "submitted_type": self.submitted_type,
            "print_axioms": self.print_axioms,
            "checks": {name: check.to_json() for name, check in self.checks.items()},
            "toolchain": self.toolchain,
            "timings_sec": {k: round(v, 3) for k, v in self.timings_sec.items()},
            "timestamp": self.timestamp,
            "evidence": self.evidence,
            "next": advice.next,
            "agent_actionable": advice.actionable,
            "verifier": identity(),
        }
        document.update(self.extra)
        return document

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False)

    def write(self, path: Path) -> None:
        """Write the verdict to `path` atomically, never through a link (`jigcli.safewrite`:
        a link or a folder at `path` is an `UnsafeTarget`)."""
        from jigcli.safewrite import write_file

        write_file(path, (self.dumps() + "\n").encode("utf-8"))
