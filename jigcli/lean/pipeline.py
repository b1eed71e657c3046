"""A `kind: lean` submission through the five checks (PRODUCT.md §3), plus the term hash, the
refutation link and the kernel replay. `verify_lean` is called by `jigcli.verify`, which has
already read and validated the manifest and recorded the `manifest` check.

1. location: the module's source must sit beside the manifest (`bad_manifest` otherwise);
2. statement: `Statements/<id>.lean` (and `Statements/<refutes>.lean`) must exist
   (`unknown_statement`);
3. source: the submitted module's `.lean` must exist (`missing_source`); hash both sources;
4. static policy: the lexer-based scan; a rejected source is never built or elaborated, and
   every later check says "not run: …" (`forbidden_syntax`);
5. toolchain: `lake`/`lean` found and `lean --version` equal to `lean-toolchain`
   (`toolchain_missing` otherwise, naming both versions);
6. build: one `lake build <module> Statements.<id> Verify.Guard [Statements.<refutes>]`
   (`build_failed`);
7. check: one generated check file, one `lake env lean --json` over it; its answers give
   provenance (`shadowed_statement`, `provenance`), anti-restatement (`restatement`, or
   `timeout` when the elaboration budget ran out), the axiom audit (`sorry`,
   `native_decide`, `disallowed_axiom`, `audit_failed`), the term and statement hashes and,
   with `refutes`, the refutation link (`not_a_refutation`);
8. kernel replay: `lake env leanchecker <module>` (`kernel_rejected`); where `leanchecker`
   is missing the check says so and the verdict cannot be green.

Every step records itself on the verdict, names itself with `context.enter`, and bounds its
processes by `context.deadline.remaining()`; a budget that runs out is a red `timeout`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from jigcli.hashing import file_sha256_tagged
from jigcli.lean import backend
from jigcli.lean.checkfile import (
    CheckFile,
    CheckPlan,
    CheckResults,
    axiom_reason,
    generate,
    mismatch_types,
    read_results,
)
from jigcli.lean.messages import LeanMessage
from jigcli.manifest import Manifest, ManifestError, check_module_location
from jigcli.verdict import ALLOWED_AXIOMS, TERM_HASH_KIND, Verdict
from jigcli.verify import VerifyContext

LATER_CHECKS = (
    "static_policy",
    "toolchain",
    "build",
    "provenance",
    "anti_restatement",
    "no_new_axioms",
    "axioms",
    "term_hash",
    "kernel_replay",
)
_DETAIL_MAX = 600


@dataclass
class _Submission:
    manifest: Manifest
    plan: CheckPlan
    source: Path
    statement_source: Path


def verify_lean(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> None:
    verdict.decl = manifest.decl
    submission = _locate(manifest, verdict, context)
    if submission is None:
        return
    if not _policy(submission, verdict, context):
        _skip_rest(verdict, submission, "the static policy rejected the source; it was not built")
        return
    toolchain = _toolchain(verdict, context)
    if toolchain is None:
        _skip_rest(verdict, submission, "no usable Lean toolchain")
        return
    if not _build(submission, toolchain, verdict, context):
        _skip_rest(verdict, submission, "the build did not succeed")
        return
    _check(submission, toolchain, verdict, context)
    _replay(submission, toolchain, verdict, context)


# -- 1–3. where things are --------------------------------------------------------------------


def _locate(manifest: Manifest, verdict: Verdict, context: VerifyContext) -> _Submission | None:
    context.enter("location")
    repo = context.repo
    try:
        check_module_location(manifest, repo.root)
    except ManifestError as problem:
        verdict.record("manifest", False, str(problem))
        verdict.fail("bad_manifest", str(problem))
        return None
    module, decl = manifest.module or "", manifest.decl or ""
    plan = CheckPlan(manifest.statement_id, module, decl, context.work_dir, manifest.refutes)
    statement_source = repo.module_path(plan.statement_module)
    for statement_id in filter(None, (manifest.statement_id, manifest.refutes)):
        path = repo.module_path(f"Statements.{statement_id}")
        if not path.is_file():
            detail = f"no canonical statement {statement_id}: {repo.rel(path)} does not exist"
            verdict.record("statement", False, detail)
            verdict.fail("unknown_statement", detail)
            return None
    source = repo.module_path(module)
    if not source.is_file():
        detail = f"module {module}: {repo.rel(source)} does not exist"
        verdict.record("source", False, detail)
        verdict.fail("missing_source", detail)
        return None
    verdict.submission_source_hash = file_sha256_tagged(source)
    verdict.statement_source_hash = file_sha256_tagged(statement_source)
    return _Submission(manifest, plan, source, statement_source)


def _skip_rest(verdict: Verdict, submission: _Submission, why: str) -> None:
    names = [*LATER_CHECKS]
    if submission.plan.refutes:
        names.insert(names.index("kernel_replay"), "refutation")
    for name in names:
        if name not in verdict.checks:
            verdict.skip(name, why)


# -- 4. static policy -------------------------------------------------------------------------


def _policy(submission: _Submission, verdict: Verdict, context: VerifyContext) -> bool:
    context.enter("static_policy")
    from jigcli.lean.policy import scan

    text = submission.source.read_text(encoding="utf-8", errors="replace")
    violations = scan(text)
    if not violations:
        return verdict.record("static_policy", True, "no forbidden construct, imports allowed")
    where = context.repo.rel(submission.source)
    lines = [f"{where}:{v.line}: {v.construct}: {v.message}" for v in violations]
    verdict.record("static_policy", False, lines[0], "\n".join(lines))
    verdict.fail("forbidden_syntax", lines[0])
    return False


# -- 5. toolchain -----------------------------------------------------------------------------


def _toolchain(verdict: Verdict, context: VerifyContext) -> backend.Toolchain | None:
    context.enter("toolchain")
    try:
        toolchain = backend.detect(
            context.repo, timeout=min(backend.VERSION_PROBE_SEC, context.deadline.remaining())
        )
    except backend.ToolchainProblem as problem:
        verdict.record("toolchain", False, str(problem))
        verdict.fail("toolchain_missing", str(problem))
        return None
    verdict.record("toolchain", True, toolchain.lean_version_line.splitlines()[0])
    return toolchain


# -- 6. build ---------------------------------------------------------------------------------


def _build(
    submission: _Submission, toolchain: backend.Toolchain, verdict: Verdict, context: VerifyContext
) -> bool:
    context.enter("build")
    targets = submission.plan.build_targets
    started = time.monotonic()
    lake = backend.build(toolchain, context.repo, targets, timeout=context.deadline.remaining())
    verdict.timings_sec["build"] = time.monotonic() - started
    output = lake.result.output
    if lake.result.timed_out:
        detail = f"step=build: lake build {' '.join(targets)} ran out of the wall budget"
        verdict.record("build", False, detail, output)
        verdict.fail("timeout", detail)
        return False
    if not lake.ok:
        errors = [d for d in lake.diagnostics if d.severity == "error"]
        detail = (
            f"{errors[0].where()} {errors[0].message}"
            if errors
            else f"lake build exited {lake.result.returncode}"
        )
        verdict.record("build", False, _short(detail), output)
        verdict.fail("build_failed", _short(detail))
        return False
    verdict.record("build", True, f"lake build {' '.join(targets)}", output or None)
    return True


# -- 7. the one Lean run over the check file --------------------------------------------------


def _check(
    submission: _Submission, toolchain: backend.Toolchain, verdict: Verdict, context: VerifyContext
) -> None:
    context.enter("check")
    plan = submission.plan
    for stale in (plan.term_file, plan.statement_term_file):
        stale.unlink(missing_ok=True)
    check_file = generate(plan)
    path = check_file.write()
    verdict.evidence["check_file"] = context.repo.rel(path)
    started = time.monotonic()
    run = backend.elaborate(toolchain, context.repo, path, timeout=context.deadline.remaining())
    verdict.timings_sec["lean"] = time.monotonic() - started
    log = plan.work_dir / "lean-output.jsonl"
    log.write_text(run.result.output, encoding="utf-8")
    verdict.evidence["lean_output"] = context.repo.rel(log)
    if run.result.timed_out:
        detail = "step=check: the Lean run over the check file ran out of the wall budget"
        _fail_checks(verdict, submission, "timeout", detail, run.result.output)
        return
    if run.crashed:
        detail = f"lean ended without a decision (exit {run.result.returncode})"
        _fail_checks(verdict, submission, "verifier_error", detail, run.result.output)
        return
    results = read_results(check_file, run.output)
    if results.imports_failed:
        _imports(results, submission, verdict, run.result.output)
        return
    _provenance(results, plan, verdict)
    _restatement(results, plan, verdict)
    _axioms(results, plan, verdict)
    _hashes(results, plan, verdict)
    if plan.refutes_const:
        _refutation(results, plan, verdict)
    _unattributed(results, check_file, verdict)


def _fail_checks(
    verdict: Verdict, submission: _Submission, reason: str, detail: str, output: str
) -> None:
    verdict.record("check_file", False, detail, output)
    verdict.fail(reason, detail)
    _skip_rest(verdict, submission, detail)


def _imports(results: CheckResults, submission: _Submission, verdict: Verdict, output: str) -> None:
    conflict = results.import_conflict
    if conflict is not None:
        detail = (
            f"'{conflict.constant}' is declared twice: importing {conflict.module} met the one "
            f"from {conflict.origin}"
        )
        verdict.record("provenance", False, detail, output)
        verdict.fail("shadowed_statement", detail)
    else:
        detail = "the check file's imports failed: " + _headline(results.import_errors)
        verdict.record("provenance", False, detail, output)
        verdict.fail("verifier_error", detail)
    _skip_rest(verdict, submission, "the check file's imports failed")


def _provenance(results: CheckResults, plan: CheckPlan, verdict: Verdict) -> None:
    problems = []
    for found, const, module in (
        (results.provenance_statement, plan.statement_const, plan.statement_module),
        (results.provenance_decl, plan.decl, plan.module),
    ):
        if found is None:
            problems.append(f"no provenance answer for {const}")
        elif found.payload.get("ok") is not True:
            actual = found.payload.get("actual") or "nowhere (it does not exist)"
            problems.append(f"{const} is declared in {actual}, not in {module}")
    if problems:
        verdict.record("provenance", False, "; ".join(problems))
        verdict.fail("provenance", "; ".join(problems))
    else:
        verdict.record(
            "provenance",
            True,
            f"{plan.statement_const} from {plan.statement_module}; {plan.decl} from {plan.module}",
        )


def _decl_missing(results: CheckResults) -> bool:
    found = results.provenance_decl
    return found is not None and found.payload.get("actual") is None


def _restatement(results: CheckResults, plan: CheckPlan, verdict: Verdict) -> None:
    bridge = f"example : {plan.statement_const} := @{plan.decl}"
    if results.types is not None:
        verdict.canonical_statement = results.types.payload.get("canonical")
    errors = results.errors_of("anti_restatement")
    if not errors:
        verdict.record("anti_restatement", True, bridge)
        return
    output = "\n\n".join(m.data for m in errors)
    exhausted = results.budget_exhausted("anti_restatement")
    if exhausted is not None:
        detail = (
            "step=anti_restatement: the bridge ran out of elaboration budget before deciding "
            f"anything ({exhausted.headline()}); this is not a mismatch"
        )
        verdict.record("anti_restatement", False, detail, output)
        verdict.fail("timeout", detail)
        return
    if _decl_missing(results):
        verdict.record("anti_restatement", False, f"{plan.decl} does not exist", output)
        return  # provenance names it; a missing constant is not a different statement
    submitted = results.types.payload.get("submitted") if results.types else None
    parsed = next((t for t in map(mismatch_types, errors) if t), None)
    verdict.submitted_type = submitted or (parsed[0] if parsed else None)
    detail = f"{bridge} did not elaborate: {errors[0].headline()}"
    verdict.record("anti_restatement", False, detail, output)
    verdict.fail("restatement", f"`{bridge}` did not elaborate")


def _axioms(results: CheckResults, plan: CheckPlan, verdict: Verdict) -> None:
    declared = results.module_axioms.payload.get("axioms") if results.module_axioms else None
    if declared is None:
        verdict.record("no_new_axioms", False, f"no answer about axioms declared in {plan.module}")
        verdict.fail("audit_failed", "the declared-axiom check did not answer")
    elif declared:
        names = [str(n) for n in declared]
        reasons = {axiom_reason(n) or "disallowed_axiom" for n in names}
        detail = f"{plan.module} declares axioms: {', '.join(names)}"
        verdict.record("no_new_axioms", False, detail)
        for reason in sorted(reasons):
            verdict.fail(reason, detail)
    else:
        verdict.record("no_new_axioms", True, f"{plan.module} declares no axiom")
    report = results.axiom_report
    if report is None:
        exhausted = results.budget_exhausted("axioms")
        detail = f"#print axioms {plan.decl} gave no answer"
        output = "\n".join(m.data for m in results.errors_of("axioms")) or None
        verdict.record("axioms", False, detail, output)
        verdict.fail("timeout" if exhausted else "audit_failed", detail)
        return
    verdict.print_axioms = report.text
    verdict.axioms = report.sorted_axioms
    bad = {name: axiom_reason(name) for name in report.axioms if axiom_reason(name)}
    if not bad:
        verdict.record("axioms", True, f"{report.sorted_axioms} ⊆ {sorted(ALLOWED_AXIOMS)}")
        return
    detail = f"axioms outside the trusted base: {', '.join(sorted(bad))}"
    verdict.record("axioms", False, detail, report.text)
    for reason in sorted({r for r in bad.values() if r}):
        verdict.fail(reason, detail)


def _hashes(results: CheckResults, plan: CheckPlan, verdict: Verdict) -> None:
    term = results.term
    if term is None or not plan.term_file.is_file():
        detail = "the normalized term was not written" + _errors_suffix(results, "term_hash")
        verdict.record("term_hash", False, detail)
        verdict.fail("verifier_error", detail)
    else:
        verdict.elaborated_term_hash = file_sha256_tagged(plan.term_file)
        truncated = bool(term.payload.get("truncated"))
        verdict.term_hash_kind = TERM_HASH_KIND + ("-truncated" if truncated else "")
        size = term.payload.get("bytes")
        note = " (truncated)" if truncated else ""
        verdict.record("term_hash", True, f"{size} bytes of normalized term{note}")
    if results.statement_term is not None and plan.statement_term_file.is_file():
        verdict.statement_hash = file_sha256_tagged(plan.statement_term_file)


def _refutation(results: CheckResults, plan: CheckPlan, verdict: Verdict) -> None:
    link = f"{plan.statement_const} ↔ ¬ {plan.refutes_const}"
    exhausted = results.budget_exhausted("refutation")
    if exhausted is not None:
        detail = f"step=refutation: the link ran out of elaboration budget ({exhausted.headline()})"
        verdict.record("refutation", False, detail)
        verdict.fail("timeout", detail)
        return
    found = results.refutation
    if found is None:
        detail = f"no answer for {link}" + _errors_suffix(results, "refutation")
        verdict.record("refutation", False, detail)
        verdict.fail("verifier_error", detail)
    elif found.payload.get("ok") is True:
        verdict.record("refutation", True, f"{link} by Iff.rfl")
    else:
        why = found.payload.get("detail") or "not definitionally equal"
        verdict.record("refutation", False, f"{link} does not hold by Iff.rfl: {why}")
        verdict.fail("not_a_refutation", f"{link} does not hold by Iff.rfl")


def _unattributed(results: CheckResults, check_file: CheckFile, verdict: Verdict) -> None:
    """Errors no check owns mean the check file itself is broken: never green."""
    owners = ("other", "provenance_statement", "provenance_decl", "module_axioms", "types")
    stray = [m for check in (*owners, "statement_hash") for m in results.errors_of(check)]
    if stray:
        detail = f"{check_file.plan.check_file.name}:{stray[0].line}: {stray[0].headline()}"
        verdict.record("check_file", False, detail, "\n\n".join(m.data for m in stray))
        verdict.fail("verifier_error", detail)


def _errors_suffix(results: CheckResults, check: str) -> str:
    errors = results.errors_of(check)
    return f": {errors[0].headline()}" if errors else ""


def _headline(messages: list[LeanMessage]) -> str:
    return messages[0].headline() if messages else "no message"


# -- 8. kernel replay -------------------------------------------------------------------------


def _replay(
    submission: _Submission, toolchain: backend.Toolchain, verdict: Verdict, context: VerifyContext
) -> None:
    if "kernel_replay" in verdict.checks:
        return
    context.enter("kernel_replay")
    if context.deadline.expired():
        verdict.record("kernel_replay", False, "not run: the wall budget ran out")
        verdict.fail("timeout", "step=kernel_replay: the wall budget ran out before it")
        return
    started = time.monotonic()
    module = submission.plan.module
    run = backend.replay(toolchain, context.repo, module, timeout=context.deadline.remaining())
    verdict.timings_sec["replay"] = time.monotonic() - started
    output = run.result.output if run.result else None
    if run.status == "passed":
        verdict.record("kernel_replay", True, run.detail)
    elif run.status == "unavailable":
        verdict.skip("kernel_replay", run.detail)
        verdict.fail("toolchain_missing", run.detail)
    elif run.status == "rejected":
        verdict.record("kernel_replay", False, _short(run.detail), output)
        verdict.fail("kernel_rejected", _short(run.detail))
    elif run.status == "timeout":
        verdict.record("kernel_replay", False, run.detail, output)
        verdict.fail("timeout", f"step=kernel_replay: {run.detail}")
    else:
        verdict.record("kernel_replay", False, _short(run.detail), output)
        verdict.fail("verifier_error", _short(run.detail))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"
