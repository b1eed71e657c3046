"""A `kind: lean` submission through the five checks (PRODUCT.md §3), plus the term hash, the
refutation link and the kernel replay. `verify_lean` is called by `jigcli.verify.submission`,
which has already read and validated the manifest and recorded the `manifest` check.

1. location: the module's source must sit beside the manifest (`bad_manifest` otherwise);
2. statement: `Statements/<id>.lean` (and `Statements/<refutes>.lean`) must exist
   (`unknown_statement`);
3. source: the submitted module's `.lean` must exist (`missing_source`); hash both sources;
4. static policy: the lexer-based scan; a rejected source is never built or elaborated, and
   every later check says "not run: …" (`forbidden_syntax`);
5. toolchain: `lake`/`lean` found and `lean --version` equal to `lean-toolchain`
   (`toolchain_missing` otherwise, naming both versions);
6. trusted build: `lake build jig_judge Statements.<id> [Statements.<refutes>] Commons`, the
   judge and the statements from this repo's own sources, before anything of the submission
   is built (Mathlib comes from its cache); a failure is this repo's problem
   (`verifier_error`); the judge's SHA-256 is kept;
7. submission build: `lean` on the source's bytes, the one build of the untrusted module, in a
   sandbox that lets it read only the toolchain and the trusted build's library folders and
   write only a fresh folder of its own (`jigcli/lean/build.py`); `build_failed` when Lean
   logged an error or a warning ("declaration uses `sorry`" among them) or wrote no `.olean`,
   `sandbox_unavailable` when no sandbox here can confine it (unless `--allow-no-netns`, which
   the verdict records as `isolation: none`);
8. export: refused (`verifier_error`) if the exporter's SHA-256 changed since the trusted
   build; else `jig_export` (`Verify/Export.lean`) in the same sandbox writes the module's
   constants in lean4export's text format, which jig reads through no link, size-capped,
   and checks (`jigcli/lean/export.py`); an export that is missing, malformed, truncated,
   oversized or of another module, or an exporter that failed, is `verifier_error`. No part
   of the `.olean` ever leaves the sandbox;
9. judge: refused (`verifier_error`) if its SHA-256 changed since the trusted build; else
   one run of `jig_judge` (`Verify/Judge.lean`) on a copy of the checked export and the
   imports read from the source's header (`jigcli/lean/header.py`), which parses the export,
   replays it through the kernel into the statement's environment and writes one JSON report
   to a fresh private folder; the verdict's Lean checks come from that report alone
   (`jigcli/lean/judge.py`): provenance (`provenance`, `shadowed_statement`), unchecked code
   (`unchecked_code`), the kernel replay (`kernel_rejected`), anti-restatement
   (`restatement`), the axiom audit (`sorry`, `native_decide`, `disallowed_axiom`), the term
   and statement hashes and, with `refutes`, the refutation link (`not_a_refutation`); a kernel
   budget running out is `timeout`; a report that is missing, malformed, or about another
   submission, or a judge that crashed or printed on stdout, is `verifier_error`.

Every step records itself on the verdict, names itself with `context.enter`, and bounds its
processes by `context.deadline.remaining()`; a budget that runs out is a red `timeout`. Lean's
messages and the build logs are kept as diagnostics; they decide nothing but that a build
failed.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from jigcli.hashing import file_sha256_tagged, sha256_tagged
from jigcli.lean import backend
from jigcli.lean import build as sandboxed
from jigcli.lean.export import Export
from jigcli.lean.header import imports
from jigcli.lean.judge import JudgeOutputProblem, JudgeRequest, read_report, record_report
from jigcli.manifest import Manifest, ManifestError, check_module_location
from jigcli.process import RunResult
from jigcli.safefiles import Unreadable, read_beneath
from jigcli.safewrite import write_beneath, write_file
from jigcli.sandbox.routes import Route
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyContext

# Every check after the manifest, in the order they run; a check that did not run is recorded
# as "not run: why", never left out (a verdict with one is never green).
LATER_CHECKS = (
    "static_policy",
    "toolchain",
    "trusted_build",
    "build",
    "export",
    "provenance",
    "no_unchecked_code",
    "no_new_axioms",
    "kernel_replay",
    "anti_restatement",
    "axioms",
    "term_hash",
)
_DETAIL_MAX = 600
# A submission's source, read once; a proof file longer than this is not a proof to review.
MAX_SOURCE_BYTES = 16 * 1024 * 1024


@dataclass
class _Submission:
    manifest: Manifest
    request: JudgeRequest
    source: Path
    statement_source: Path
    # The source's bytes, read once: what is hashed is what the policy scans and Lean builds.
    text: bytes

    @property
    def trusted_targets(self) -> list[str]:
        """The judge, the statements and `Commons`: this repo's own sources, built before any
        line of the submission is."""
        statements = [self.request.statement_module]
        if self.request.refutes and self.request.refutes != self.request.statement_id:
            statements.append(f"Statements.{self.request.refutes}")
        return [backend.JUDGE_EXE, backend.EXPORTER_EXE, *statements, "Commons"]


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
    digests = _trusted_build(submission, toolchain, verdict, context)
    if digests is None:
        _skip_rest(verdict, submission, "this repo's own Lean targets did not build")
        return
    with tempfile.TemporaryDirectory(prefix="jig-build-") as folder:
        exported = _build_submission(submission, toolchain, Path(folder), digests, verdict, context)
        if exported is None:
            return
        _judge(submission, toolchain, digests, exported, verdict, context)


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
    request = JudgeRequest(manifest.statement_id, module, decl, manifest.refutes)
    statement_source = repo.module_path(request.statement_module)
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
    try:
        # Through no link: what is hashed, scanned and built is the file in the repo itself.
        text = read_beneath(repo.root, source.relative_to(repo.root).as_posix(), MAX_SOURCE_BYTES)
    except Unreadable as unusable:
        detail = f"module {module}: {repo.rel(source)} {unusable}"
        verdict.record("source", False, detail)
        verdict.fail("missing_source", detail)
        return None
    verdict.submission_source_hash = sha256_tagged(text)
    verdict.statement_source_hash = file_sha256_tagged(statement_source)
    return _Submission(manifest, request, source, statement_source, text)


def _skip_rest(verdict: Verdict, submission: _Submission, why: str) -> None:
    names = [*LATER_CHECKS]
    if submission.request.refutes:
        names.append("refutation")
    for name in names:
        if name not in verdict.checks:
            verdict.skip(name, why)


# -- 4. static policy -------------------------------------------------------------------------


def _policy(submission: _Submission, verdict: Verdict, context: VerifyContext) -> bool:
    context.enter("static_policy")
    from jigcli.lean.policy import scan

    violations = scan(submission.text.decode("utf-8", errors="replace"))
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


# -- 6. the trusted build ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Digests:
    """The SHA-256 of the judge and of the exporter the trusted build made: each is checked
    again right before it runs."""

    judge: str
    exporter: str


def _trusted_build(
    submission: _Submission, toolchain: backend.Toolchain, verdict: Verdict, context: VerifyContext
) -> _Digests | None:
    """Build the trusted targets; the digests of what it built, or None on failure."""
    context.enter("trusted_build")
    targets = submission.trusted_targets
    started = time.monotonic()
    lake = backend.build(toolchain, context.repo, targets, timeout=context.deadline.remaining())
    verdict.timings_sec["trusted_build"] = time.monotonic() - started
    command = f"lake build {' '.join(targets)}"
    if lake.result.timed_out:
        detail = f"step=trusted_build: {command} ran out of the wall budget"
        verdict.record("trusted_build", False, detail, lake.result.output)
        verdict.fail("timeout", detail)
        return None
    if not lake.ok:
        detail = f"{command} failed, so nothing of the submission was built: " + _first_problem(
            lake
        )
        verdict.record("trusted_build", False, _short(detail), lake.result.output)
        verdict.fail("verifier_error", _short(detail))
        return None
    made = (backend.judge_exe(context.repo), backend.exporter_exe(context.repo))
    for program in made:
        if not program.is_file():
            detail = f"{command} left no {program.name} at {context.repo.rel(program)}"
            verdict.record("trusted_build", False, detail, lake.result.output)
            verdict.fail("verifier_error", detail)
            return None
    verdict.record("trusted_build", True, command)
    return _Digests(*(file_sha256_tagged(program) for program in made))


def _unchanged(program: Path, digest: str, context: VerifyContext) -> str | None:
    """Why `program` cannot be run any more, if it changed since the trusted build made it. A
    sandboxed build is shown no program to replace; this catches whatever else changed it."""
    if program.is_file() and file_sha256_tagged(program) == digest:
        return None
    return f"{context.repo.rel(program)} changed since the trusted build made it"


def _first_problem(lake: backend.LakeRun) -> str:
    """The first error Lake printed, else the first warning."""
    for severity in ("error", "warning"):
        found = [d for d in lake.diagnostics if d.severity == severity]
        if found:
            return f"{found[0].where()} {found[0].message}"
    return f"lake build exited {lake.result.returncode}"


# -- 7–8. the submission's build and its export ----------------------------------------------


def _build_submission(
    submission: _Submission,
    toolchain: backend.Toolchain,
    folder: Path,
    digests: _Digests,
    verdict: Verdict,
    context: VerifyContext,
) -> Export | None:
    """The one build of untrusted code, sandboxed, then its export in the same sandbox
    (`jigcli/lean/build.py`); the checked export the judge is to read, or None (the later
    checks then recorded as not run). Lean's messages can fail a build (a warning or an
    error, as Lake's `--wfail` reads them), never pass one: whatever they say, the judge
    decides the rest from the export alone."""
    context.enter("build")
    started = time.monotonic()
    try:
        paths = backend.lean_paths(toolchain, context.repo, timeout=context.deadline.remaining())
    except backend.LakeEnvProblem as problem:
        verdict.record("build", False, str(problem))
        verdict.fail("verifier_error", str(problem))
        _skip_rest(verdict, submission, "the build did not run")
        return None
    built = sandboxed.build(
        paths,
        context.repo,
        submission.request.module,
        submission.text,
        context.repo.rel(submission.source),
        folder,
        wall_sec=context.deadline.remaining(),
        allow_unsandboxed=context.options.allow_no_netns,
    )
    verdict.timings_sec["build"] = time.monotonic() - started
    verdict.extra["isolation"] = built.route
    ok = built.reason == "ok"
    verdict.record("build", ok, _short(built.detail), built.output or None)
    if not ok or built.sandbox is None:
        verdict.fail(built.reason, _short(built.detail))
        _skip_rest(verdict, submission, "the build did not succeed")
        return None
    return _export(submission, paths, folder, built.sandbox, digests, verdict, context)


def _export(
    submission: _Submission,
    paths: backend.LeanPaths,
    folder: Path,
    route: Route,
    digests: _Digests,
    verdict: Verdict,
    context: VerifyContext,
) -> Export | None:
    context.enter("export")
    exporter = backend.exporter_exe(context.repo)
    changed = _unchanged(exporter, digests.exporter, context)
    if changed is not None:
        verdict.record("export", False, changed)
        verdict.fail("verifier_error", changed)
        _skip_rest(verdict, submission, changed)
        return None
    started = time.monotonic()
    exported = sandboxed.export(
        paths,
        context.repo,
        submission.request.module,
        folder,
        route,
        wall_sec=context.deadline.remaining(),
    )
    verdict.timings_sec["export"] = time.monotonic() - started
    ok = exported.reason == "ok"
    detail = exported.detail if ok else f"the build's export cannot be judged: {exported.detail}"
    verdict.record("export", ok, _short(detail), exported.output or None)
    if not ok or exported.export is None:
        verdict.fail(exported.reason, _short(detail))
        _skip_rest(verdict, submission, "the build's export cannot be judged")
        return None
    return exported.export


# -- 9. the judge -----------------------------------------------------------------------------


def _judge(
    submission: _Submission,
    toolchain: backend.Toolchain,
    digests: _Digests,
    exported: Export,
    verdict: Verdict,
    context: VerifyContext,
) -> None:
    context.enter("judge")
    request = submission.request
    changed = _unchanged(backend.judge_exe(context.repo), digests.judge, context)
    if changed is not None:
        _judge_failed(verdict, submission, "verifier_error", changed, "")
        return
    started = time.monotonic()
    # A folder created after the build, readable by this user alone: nothing the build started
    # could have known its name or written there first. The judge reads the export's checked
    # bytes from there, and the imports as jig read them from the source's header.
    with tempfile.TemporaryDirectory(prefix="jig-judge-") as scratch:
        out, export = Path(scratch) / "report.json", Path(scratch) / "export.ndjson"
        write_file(export, exported.data)
        header = imports(submission.text.decode("utf-8", errors="replace"))
        result = backend.judge(
            toolchain,
            context.repo,
            request.args(out, export, header),
            timeout=context.deadline.remaining(),
        )
        verdict.timings_sec["judge"] = time.monotonic() - started
        if result.timed_out:
            _judge_failed(
                verdict,
                submission,
                "timeout",
                "step=judge: the judge ran out of the wall budget",
                result.output,
            )
            return
        problem = _run_problem(result)
        try:
            if problem is not None:
                raise JudgeOutputProblem(problem)
            report = read_report(out, request)
        except JudgeOutputProblem as exc:
            _judge_failed(verdict, submission, "verifier_error", str(exc), result.output)
            return
        try:
            verdict.evidence["judge_output"] = _keep(out, context)
        except OSError as exc:  # a link or a folder where the copy goes
            detail = f"the judge's report cannot be kept as evidence: {exc.strerror}"
            _judge_failed(verdict, submission, "verifier_error", detail, "")
            return
    why = record_report(report, request, verdict)
    _skip_rest(verdict, submission, why)


def _run_problem(result: RunResult) -> str | None:
    """Why a finished judge run cannot be believed, if it cannot: the judge ends with exit 0
    and prints nothing on stdout, whatever it decided."""
    if result.signal is not None:
        return f"the judge was killed by signal {result.signal}"
    if result.returncode != 0:
        return f"the judge exited {result.returncode}"
    if result.stdout.strip() or result.stdout_truncated:
        return "the judge printed on stdout, which it never does"
    return None


def _judge_failed(
    verdict: Verdict, submission: _Submission, reason: str, detail: str, output: str
) -> None:
    verdict.record("judge", False, _short(detail), output or None)
    verdict.fail(reason, _short(detail))
    _skip_rest(verdict, submission, detail)


def _keep(report: Path, context: VerifyContext) -> str:
    """A copy of the report in the work folder, as evidence, written through no link; the
    decision was made from the private original."""
    kept = context.work_dir / "judge.json"
    data = report.read_bytes()
    if kept.is_relative_to(context.repo.root):
        write_beneath(context.repo.root, kept.relative_to(context.repo.root).as_posix(), data)
    else:
        write_file(kept, data)
    return context.repo.rel(kept)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"
