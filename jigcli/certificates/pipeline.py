"""The certificate pipeline behind `jig verify` on a `kind: certificate` manifest.

1. problem: `Certificates/<statement_id>/` is a folder inside `Certificates/` holding a valid
   `spec.json` and a `checker.py`, each a regular file of bounded size that is no symbolic
   link (else `unknown_statement`; a problem that is there but broken, which its poser must
   fix, is `verifier_error` naming the file);
2. limits: the spec's limits, clamped to the lane's ceiling (recorded either way; once the
   checker ran, `limits.processes` is the cap enforced, or null where nothing here could,
   with `processes_mechanism` and a `processes_note` saying how or why not);
3. witness: the manifest's `witness` names a file inside the manifest's own folder, reached
   through no symbolic link (else `bad_manifest`), a regular file no larger than
   `witness_bytes` (else `missing_witness`: a FIFO, a device or a huge sparse file is refused
   before a byte is read), read once: the bytes hashed are the bytes checked;
4. isolation: the best route that passes its probe here; with none, `sandbox_unavailable`
   unless the run allows no isolation (`--allow-no-netns`; the verdict then records `none`);
5. checker: the checker runs on a copy of the witness and is judged by its protocol
   (`jigcli.certificates.checker`): `timeout`, `checker_error`, `checker_protocol`,
   `invalid_witness`, or accepted;
6. fingerprint: `elaborated_term_hash` is the `sha256:` of the checker's `canonical`.

Each step records itself in `verdict.checks`; a step that cannot run says why.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import NamedTuple

from jigcli.certificates.checker import Outcome, check_witness
from jigcli.certificates.spec import (
    CHECKER_FILE,
    HEAVY_LANE,
    MAX_CHECKER_BYTES,
    CertLimits,
    Spec,
    SpecError,
    clamp,
    lane,
    read_spec,
)
from jigcli.hashing import sha256_tagged
from jigcli.manifest import Manifest
from jigcli.safefiles import LINK, MISSING, NAME, SIZE, Unreadable, open_folder, read_beneath
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyContext

TERM_HASH_KIND = "certificate-canonical-sha256"
CERTIFICATES = "Certificates"


class Problem(NamedTuple):
    spec: Spec
    checker_source: bytes


def verify_certificate(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
    """Run the certificate steps for `manifest`, recording each on `verdict`."""
    verdict.term_hash_kind = TERM_HASH_KIND
    verdict.extra.update(lane=context.options.lane, isolation=None)
    started = time.monotonic()
    context.enter("problem")  # 1
    problem = _problem(manifest.statement_id, verdict, context)
    context.enter("limits")  # 2
    limits = _limits(problem.spec, verdict, context.options.lane) if problem else None
    context.enter("witness")  # 3
    witness = _witness(manifest, verdict, limits, context.repo.root)
    verdict.timings_sec["prepare"] = time.monotonic() - started
    if problem is None or limits is None or witness is None:
        for name in ("isolation", "checker", "certificate"):
            verdict.skip(name, "the problem or the witness is not usable")
        return
    context.enter("checker")  # 4, 5
    outcome = check_witness(
        problem.checker_source,
        witness,
        limits,
        allow_unsandboxed=context.options.allow_no_netns,
        deadline=context.deadline,
    )
    _record(outcome, verdict)


# -- 1. the problem --------------------------------------------------------------------------


class _Refusal(Exception):
    """A step's input cannot be used: the verdict reason and the sentence saying why."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail

    def record(self, verdict: Verdict, check: str) -> None:
        verdict.fail(self.reason, self.detail)
        verdict.record(check, False, self.detail)


def _problem(statement_id: str, verdict: Verdict, context: VerifyContext) -> Problem | None:
    repo = context.repo
    where = repo.rel(repo.certificates_dir / statement_id)
    try:
        problem = load_problem(repo.root, statement_id, where)
    except _Refusal as refusal:
        refusal.record(verdict, "problem")
        verdict.skip("limits", "no usable problem")
        return None
    verdict.statement_hash = sha256_tagged(problem.checker_source)
    verdict.statement_source_hash = problem.spec.sha256
    verdict.extra["checker_hash"] = verdict.statement_hash
    verdict.record("problem", True, f"{where}: {problem.spec.title}")
    return problem


def load_problem(root: Path, statement_id: str, where: str) -> Problem:
    """The spec and checker of `Certificates/<statement_id>` under `root`, both read through
    one open handle on the folder, reached through no link: swapping the folder for a link
    after it was opened changes nothing that is read."""
    try:
        folder = open_folder(root, f"{CERTIFICATES}/{statement_id}")
    except Unreadable as why:
        if why.kind == MISSING:
            raise _Refusal(
                "unknown_statement", f"there is no certificate problem {where}/"
            ) from None
        raise _Refusal(
            "unknown_statement", f"{where} {why}; it must be a folder in Certificates/"
        ) from None
    with folder:
        try:
            spec = read_spec(root / CERTIFICATES / statement_id, f"{where}/spec.json", folder)
            try:
                checker = folder.read(CHECKER_FILE, MAX_CHECKER_BYTES)
            except Unreadable as why:
                raise SpecError(f"{where}/{CHECKER_FILE} {why}") from None
        except SpecError as broken:
            raise _Refusal(
                "verifier_error", f"the problem {where} is broken ({broken}); its poser must fix it"
            ) from broken
    return Problem(spec, checker)


# -- 2. the limits ---------------------------------------------------------------------------


def _limits(spec: Spec, verdict: Verdict, lane_name: str) -> CertLimits | None:
    try:
        chosen = lane(lane_name)
    except ValueError as exc:
        _Refusal("verifier_error", str(exc)).record(verdict, "limits")
        return None
    limits, lowered = clamp(spec.limits, chosen)
    verdict.extra["limits"] = limits.to_json()
    if lowered:
        detail = (
            f"the spec asks for more than the {chosen.name} lane allows; lowered: "
            + ", ".join(lowered)
        )
        if chosen.name != HEAVY_LANE:
            detail += " (--lane heavy allows more)"
        verdict.extra["limits_lowered"] = lowered
    else:
        detail = f"the spec's limits, within the {chosen.name} lane"
    verdict.record("limits", True, detail)
    return limits


# -- 3. the witness --------------------------------------------------------------------------


def _witness(
    manifest: Manifest, verdict: Verdict, limits: CertLimits | None, root: Path
) -> bytes | None:
    named = manifest.witness or ""
    try:
        data = _read_witness(manifest, root, limits)
    except _Refusal as refusal:
        refusal.record(verdict, "witness")
        return None
    verdict.extra["witness_hash"] = sha256_tagged(data)
    verdict.submission_source_hash = verdict.extra["witness_hash"]
    verdict.record("witness", True, f"{named}: {len(data)} bytes")
    return data


def _read_witness(manifest: Manifest, root: Path, limits: CertLimits | None) -> bytes:
    """The witness's bytes, read once; refused unless it is a small regular file beside the
    manifest, reached from the repo root through no link (`manifest._check_names` vetted the
    name). A manifest outside the repo has its witness read beneath its own folder."""
    named = manifest.witness or ""
    cap = (limits or lane(HEAVY_LANE).ceiling).witness_bytes
    try:
        if manifest.path.is_relative_to(root):
            where = manifest.folder.relative_to(root) / named
            return read_beneath(root, where.as_posix(), cap)
        return read_beneath(manifest.folder, named, cap)
    except Unreadable as why:
        if why.kind in (LINK, NAME):
            raise _Refusal(
                "bad_manifest",
                f"witness: {named!r} {why}; put the witness file itself next to the manifest",
            ) from None
        said = str(why)
        if why.kind == MISSING:
            said = "does not exist next to the manifest"
        elif why.kind == SIZE and why.size is not None:
            said = f"is {why.size} bytes; this problem accepts at most {cap}"
        raise _Refusal("missing_witness", f"witness: {named!r} {said}") from None


# -- 4-6. isolation, the checker, the fingerprint --------------------------------------------


def _record(outcome: Outcome, verdict: Verdict) -> None:
    verdict.extra["isolation"] = outcome.isolation
    if outcome.isolation is not None:
        verdict.extra["limits"] = outcome.applied_limits()
    verdict.extra["checker_stdout"] = outcome.stdout_tail
    verdict.timings_sec["probe"] = outcome.probe_sec
    verdict.timings_sec["checker"] = outcome.duration_sec
    if outcome.cpu_sec is not None:
        verdict.timings_sec["checker_cpu"] = outcome.cpu_sec
    if outcome.isolation is None:
        verdict.fail(outcome.reason, outcome.detail)
        verdict.record("isolation", False, outcome.detail)
        verdict.skip("checker", "no sandbox to run it in")
        verdict.skip("certificate", "the checker did not run")
        return
    if outcome.isolation == "none":
        verdict.record("isolation", True, "none: no sandbox here, run unisolated as allowed")
    else:
        verdict.record("isolation", True, f"{outcome.isolation}, probed before use")
    _record_checker(outcome, verdict)


def _record_checker(outcome: Outcome, verdict: Verdict) -> None:
    ran = outcome.reason in ("ok", "invalid_witness")
    evidence = "\n".join(
        part
        for part in (
            outcome.stdout_tail and "stdout:\n" + outcome.stdout_tail,
            outcome.stderr_tail and "stderr:\n" + outcome.stderr_tail,
        )
        if part
    )
    said = f"ran in {outcome.duration_sec:.2f} s"
    verdict.record("checker", ran, said if ran else outcome.detail, evidence or None)
    if not ran:
        verdict.fail(outcome.reason, outcome.detail)
        verdict.skip("certificate", "the checker did not give a verdict")
        return
    if not outcome.ok:
        verdict.fail("invalid_witness", outcome.detail)
        verdict.record("certificate", False, outcome.detail)
        return
    verdict.elaborated_term_hash = outcome.canonical_hash
    verdict.record("certificate", True, outcome.detail)
