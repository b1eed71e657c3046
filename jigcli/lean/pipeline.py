"""A `kind: lean` submission through the five checks (PRODUCT.md §3), decided by comparator
(`leanprover/comparator` at `v4.33.0`). `verify_lean` is called by `jigcli.verify.submission`,
which has already read and validated the manifest and recorded the `manifest` check.

1. location: the module's source beside the manifest (`bad_manifest`), `Statements/<id>.lean`
   (and `<refutes>`) present (`unknown_statement`), the source present (`missing_source`);
   both sources hashed;
2. static policy: the lexer-based scan; a rejected source is never built, and every later
   check says "not run: …" (`forbidden_syntax`);
3. toolchain: `lake`/`lean` found, `lean --version` equal to `lean-toolchain`
   (`toolchain_missing`);
4. trusted build: `lake build @Comparator/comparator @lean4export/lean4export Statements.<id>
   [Statements.<refutes>] Commons` from this repo's own sources, before any line of the
   submission is built (a failure is this repo's: `verifier_error`); the two programs'
   SHA-256 are kept and checked again right before each runs;
5. run folder: a fresh private folder with the challenge, the solution and comparator's
   configuration, written from trusted text (`jigcli.lean.comparator.project`);
6. challenge: jig's own sandboxed `lake build JigChallenge`, before any code of the
   submission runs: the statement with the submission's header imports (an import that does
   not exist is `build_failed`), and the refutation link by `Iff.rfl` (`not_a_refutation`);
7. provenance: lean4export of the challenge, still untouched by the submission, asked for the
   decl (`--ignore-missing`): a constant the trusted side already has is not the module's
   own (`provenance`);
8. comparator: it builds and exports the challenge and the solution through jig's
   `$COMPARATOR_LANDRUN` (`jigcli.lean.comparator.landrun`), compares the statement's
   closure, checks the axioms and replays the solution in a fresh kernel (and nanoda where
   installed); exit status 0 or not is the whole of what jig takes from it;
9. evidence: jig's own sandboxed steps read what comparator decided: the solution's export,
   read in Python (`jigcli.lean.export`), for the axioms, the submitted type and the term
   hash; after a red, the first of these that explains it is the reason (`build_failed`,
   `shadowed_statement`, `restatement`, `provenance`, `sorry`, `native_decide`,
   `disallowed_axiom`, else `kernel_rejected`). They never turn a red green; on a green,
   an axiom jig finds outside the three is a `verifier_error` (the two disagree).

Every step records itself on the verdict, names itself with `context.enter`, and is bounded
by `context.deadline`; a budget that runs out is a red `timeout`. Lean's and comparator's
output are kept as diagnostics.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryDirectory

from jigcli.hashing import file_sha256_tagged, sha256_tagged
from jigcli.lean import backend
from jigcli.lean.axioms import ALLOWED_AXIOMS, axiom_reason
from jigcli.lean.comparator import project
from jigcli.lean.comparator.run import Programs, Run, find_git, find_nanoda
from jigcli.lean.export import Export, ExportProblem, read_export
from jigcli.lean.header import imports
from jigcli.lean.messages import build_diagnostics
from jigcli.manifest import Manifest, ManifestError, check_module_location
from jigcli.process import RunResult
from jigcli.safefiles import Unreadable, read_beneath
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyContext

# Every check after the manifest, in the order they run; a check that did not run is recorded
# as "not run: why", never left out (a verdict with one is never green).
LATER_CHECKS = (
    "static_policy",
    "toolchain",
    "trusted_build",
    "challenge",
    "provenance",
    "comparator",
    "export",
    "axioms",
    "anti_restatement",
    "term_hash",
)
_DETAIL_MAX = 600
# A submission's source, read once; a proof file longer than this is not a proof to review.
MAX_SOURCE_BYTES = 16 * 1024 * 1024
# The verdict's `term_hash_kind` for a Lean proof: the export's normalized value, hashed.
TERM_HASH_KIND = "jig-export-normalized-v1"
# Where the trusted build puts the two programs (`<package dir>/.lake/build/bin/<exe>`).
COMPARATOR_TARGET = ("Comparator", "comparator")
LEAN4EXPORT_TARGET = ("lean4export", "lean4export")


@dataclass
class _Submission:
    manifest: Manifest
    task: project.Task
    source: Path
    statement_source: Path

    @property
    def trusted_targets(self) -> list[str]:
        """comparator, lean4export, the statements and `Commons`: this repo's own sources
        and the packages it requires, built before any line of the submission is."""
        statements = [f"Statements.{self.task.statement_id}"]
        if self.task.refutes and self.task.refutes != self.task.statement_id:
            statements.append(f"Statements.{self.task.refutes}")
        programs = [f"@{pkg}/{exe}" for pkg, exe in (COMPARATOR_TARGET, LEAN4EXPORT_TARGET)]
        return [*programs, *statements, "Commons"]


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
    programs = _trusted_build(submission, toolchain, verdict, context)
    if programs is None:
        _skip_rest(verdict, submission, "this repo's own Lean targets did not build")
        return
    with TemporaryDirectory(prefix="jig-lean-") as folder:
        run = _run_folder(submission, toolchain, programs, Path(folder), verdict, context)
        if run is not None:
            _judge(submission, run, verdict, context)
    _skip_rest(verdict, submission, "an earlier step decided the verdict")


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
    statement_source = repo.module_path(f"Statements.{manifest.statement_id}")
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
    header = tuple(imports(text.decode("utf-8", errors="replace")))
    task = project.Task(manifest.statement_id, module, decl, manifest.refutes, header, text)
    return _Submission(manifest, task, source, statement_source)


def _skip_rest(verdict: Verdict, submission: _Submission, why: str) -> None:
    names = [*LATER_CHECKS]
    if submission.task.refutes:
        names.append("refutation")
    for name in names:
        if name not in verdict.checks:
            verdict.skip(name, why)


# -- 4. static policy -------------------------------------------------------------------------


def _policy(submission: _Submission, verdict: Verdict, context: VerifyContext) -> bool:
    context.enter("static_policy")
    from jigcli.lean.policy import scan

    violations = scan(submission.task.source.decode("utf-8", errors="replace"))
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
    timeout = min(backend.VERSION_PROBE_SEC, context.deadline.remaining())
    try:
        toolchain, _ = context.once(
            ("toolchain", context.repo.root),
            lambda: backend.detect(context.repo, timeout=timeout),
        )
    except backend.ToolchainProblem as problem:
        verdict.record("toolchain", False, str(problem))
        verdict.fail("toolchain_missing", str(problem))
        return None
    verdict.record("toolchain", True, toolchain.lean_version_line.splitlines()[0])
    return toolchain


# -- 4. the trusted build ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Trusted:
    """The programs the trusted build made, and the SHA-256 each had then."""

    programs: Programs
    digests: dict[Path, str]

    def changed(self) -> Path | None:
        """A program that is no longer what the trusted build made, if one is not."""
        for program, digest in self.digests.items():
            if not program.is_file() or file_sha256_tagged(program) != digest:
                return program
        return None


def program_path(repo_root: Path, target: tuple[str, str]) -> Path:
    """Where Lake puts a required package's executable (its `.lake/build/bin/`)."""
    package, exe = target
    return repo_root / ".lake" / "packages" / package / ".lake" / "build" / "bin" / exe


def _trusted_build(
    submission: _Submission, toolchain: backend.Toolchain, verdict: Verdict, context: VerifyContext
) -> _Trusted | None:
    context.enter("trusted_build")
    targets = submission.trusted_targets
    command = f"lake build {' '.join(targets)}"
    key = ("trusted_build", context.repo.root, tuple(targets))
    trusted, shared = context.once(
        key, lambda: _build_trusted(targets, toolchain, verdict, context)
    )
    if trusted is not None:
        said = f"{command} (built once for this run)" if shared else command
        verdict.record("trusted_build", True, said)
    return trusted


def _build_trusted(
    targets: list[str], toolchain: backend.Toolchain, verdict: Verdict, context: VerifyContext
) -> _Trusted | None:
    """The trusted build itself: the repo's own targets and the two programs, hashed."""
    started = time.monotonic()
    lake = backend.build(toolchain, context.repo, targets, timeout=context.deadline.remaining())
    verdict.timings_sec["trusted_build"] = time.monotonic() - started
    command = f"lake build {' '.join(targets)}"
    if lake.result.timed_out:
        _stop(
            verdict,
            "trusted_build",
            "timeout",
            f"step=trusted_build: {command} ran out of the wall budget",
            lake.result.output,
        )
        return None
    if not lake.ok:
        detail = f"{command} failed, so nothing of the submission was built: {_first_problem(lake)}"
        _stop(verdict, "trusted_build", "verifier_error", detail, lake.result.output)
        return None
    made = [program_path(context.repo.root, t) for t in (COMPARATOR_TARGET, LEAN4EXPORT_TARGET)]
    git = find_git()
    for program in made:
        if not program.is_file():
            detail = f"{command} left no {program.name} at {context.repo.rel(program)}"
            _stop(verdict, "trusted_build", "verifier_error", detail, lake.result.output)
            return None
    if git is None:
        detail = "git is not installed, which Lake runs in each build (apt-get install git)"
        _stop(verdict, "trusted_build", "verifier_error", detail, None)
        return None
    nanoda = find_nanoda()
    programs = Programs(made[0], made[1], nanoda, git)
    digests = {program: file_sha256_tagged(program) for program in (*made, *filter(None, [nanoda]))}
    return _Trusted(programs, digests)


def _first_problem(lake: backend.LakeRun) -> str:
    """The first error Lake printed, else the first warning."""
    for severity in ("error", "warning"):
        found = [d for d in lake.diagnostics if d.severity == severity]
        if found:
            return f"{found[0].where()} {found[0].message}"
    return f"lake build exited {lake.result.returncode}"


# -- 5–6. the run folder and the challenge ----------------------------------------------------


def _run_folder(
    submission: _Submission,
    toolchain: backend.Toolchain,
    trusted: _Trusted,
    folder: Path,
    verdict: Verdict,
    context: VerifyContext,
) -> _Judged | None:
    context.enter("challenge")
    timeout = context.deadline.remaining()
    try:
        paths, _ = context.once(
            ("lake_env", context.repo.root),
            lambda: backend.lean_paths(toolchain, context.repo, timeout=timeout),
        )
    except backend.LakeEnvProblem as problem:
        _stop(verdict, "challenge", "verifier_error", str(problem), None)
        return None
    task = submission.task
    written = project.write(folder, context.repo, task, nanoda=trusted.programs.nanoda is not None)
    builds = (project.CHALLENGE, project.SOLUTION, task.module)
    run = Run(
        written, paths, context.repo.root, trusted.programs, builds, context.deadline.remaining()
    )
    judged = _Judged(run, trusted)
    started = time.monotonic()
    built = run.build(project.CHALLENGE)
    verdict.timings_sec["challenge"] = time.monotonic() - started
    if not _challenge_built(built, judged, task, verdict):
        return None
    return judged


@dataclass
class _Judged:
    run: Run
    trusted: _Trusted
    canonical: str | None = None
    statement_hash: str | None = None  # of the statement as the untouched challenge has it


def _challenge_built(
    built: RunResult, judged: _Judged, task: project.Task, verdict: Verdict
) -> bool:
    """Whether the challenge built; else the reason recorded. Only trusted text has been
    built so far, so Lake's messages here are this repo's and the header's, not the
    submission's code's."""
    if built.timed_out or _step_ended(judged.run, "build") == "timeout":
        detail = "step=challenge: the build ran out of the wall budget"
        _stop(verdict, "challenge", "timeout", detail, built.output)
        return False
    sandbox = _sandbox_refusal(built)
    if sandbox is not None:
        _stop(verdict, "challenge", "sandbox_unavailable", sandbox, built.output)
        return False
    if built.ok and task.refutes:
        link = f"{task.statement} ↔ ¬ Statements.{task.refutes}.statement"
        verdict.record("refutation", True, f"{link} by Iff.rfl, built in the challenge")
    if built.ok:
        return verdict.record(
            "challenge",
            True,
            f"{project.CHALLENGE} built in the sandbox: the statement and its imports"
            + (", and the refutation link" if task.refutes else ""),
        )
    errors = [d for d in build_diagnostics(built.output) if d.severity == "error"]
    first = (
        f"{errors[0].where()} {errors[0].message}"
        if errors
        else f"lake build exited {built.returncode}"
    )
    if task.refutes and errors and errors[0].path.endswith(f"{project.CHALLENGE}.lean"):
        detail = f"{task.statement} ↔ ¬ Statements.{task.refutes}.statement is not Iff.rfl: {first}"
        verdict.record("refutation", False, _short(detail), built.output)
        _stop(verdict, "challenge", "not_a_refutation", detail, built.output)
        return False
    detail = f"the statement with the submission's imports did not build: {first}"
    _stop(verdict, "challenge", "build_failed", detail, built.output)
    return False


def _sandbox_refusal(result: RunResult) -> str | None:
    """What jig's launcher said when it could not sandbox a step (its own words, on its
    own stderr line, which only it writes before a step starts)."""
    for line in result.stderr.splitlines():
        if line.startswith("jig-landrun: no sandbox") or line.startswith(
            "jig-landrun: the sandbox could not"
        ):
            return line.removeprefix("jig-landrun: ")
    return None


def _step_ended(run: Run, step: str, argv_tail: str | None = None) -> str | None:
    """How the last logged step of kind `step` (and, if given, last argument) ended."""
    for entry in reversed(run.log()):
        argv = entry.get("argv")
        if entry.get("step") == step and (
            argv_tail is None or (isinstance(argv, list) and argv and argv[-1] == argv_tail)
        ):
            ended = entry.get("ended")
            if ended == "exit":
                return "ok" if entry.get("exit") == 0 else "failed"
            return str(ended)
    return None


# -- 7–9. provenance, comparator, the evidence ------------------------------------------------


def _judge(
    submission: _Submission, judged: _Judged, verdict: Verdict, context: VerifyContext
) -> None:
    task = submission.task
    if not _provenance(judged, task, verdict, context):
        return
    accepted = _comparator(judged, verdict, context)
    if accepted is None:
        return
    _evidence(judged, task, accepted, verdict, context)


def _provenance(
    judged: _Judged, task: project.Task, verdict: Verdict, context: VerifyContext
) -> bool:
    context.enter("provenance")
    exported = judged.run.export(
        project.CHALLENGE, [task.decl, task.statement], ignore_missing=True
    )
    export = _read(exported, "the challenge's export", verdict, "provenance")
    if export is None:
        return False
    statement = export.constants.get(task.statement)
    if statement is not None and statement.value is not None:
        judged.canonical = export.render(statement.value)
        judged.statement_hash = export.hash_of(task.statement, set())
        verdict.canonical_statement = judged.canonical
    if task.decl in export.constants:
        detail = (
            f"{task.decl} is already declared by the statement or by the imports of "
            f"{task.module}, not by {task.module} itself"
        )
        _stop(verdict, "provenance", "provenance", detail, None)
        return False
    return verdict.record(
        "provenance",
        True,
        f"{task.decl} is not in the trusted environment "
        f"(the statement and {task.module}'s imports)",
    )


def _comparator(judged: _Judged, verdict: Verdict, context: VerifyContext) -> bool | None:
    """comparator's answer: True for exit 0, False otherwise; None when it never answered
    (a program that changed, the wall budget)."""
    context.enter("comparator")
    changed = judged.trusted.changed()
    if changed is not None:
        detail = f"{context.repo.rel(changed)} changed since the trusted build made it"
        _stop(verdict, "comparator", "verifier_error", detail, None)
        return None
    started = time.monotonic()
    result = judged.run.comparator()
    verdict.timings_sec["comparator"] = time.monotonic() - started
    kernels = ["lean"] + (["nanoda"] if judged.trusted.programs.nanoda is not None else [])
    verdict.extra["kernels"] = kernels
    verdict.extra["isolation"] = _routes(judged.run)
    if result.timed_out or any(entry.get("ended") == "timeout" for entry in judged.run.log()):
        _stop(
            verdict,
            "comparator",
            "timeout",
            "step=comparator: comparator ran out of the wall budget",
            result.output,
        )
        return None
    if result.signal is not None:
        detail = f"comparator was killed by signal {result.signal} before it answered"
        _stop(verdict, "comparator", "verifier_error", detail, result.output)
        return None
    if not result.ok and _step_ended(judged.run, "build", project.SOLUTION) is None:
        detail = f"comparator exited {result.returncode} before it built the solution"
        _stop(verdict, "comparator", "verifier_error", detail, result.output)
        return None
    if result.ok:
        return verdict.record(
            "comparator",
            True,
            f"comparator accepted {project.GOAL} (kernels: {', '.join(kernels)})",
            result.output or None,
        )
    sandbox = next(
        (str(e.get("why")) for e in judged.run.log() if e.get("ended") == "sandbox_unavailable"),
        None,
    )
    if sandbox is not None:
        _stop(
            verdict,
            "comparator",
            "sandbox_unavailable",
            f"no sandbox here confines a Lean step: {sandbox}",
            result.output,
        )
        return None
    how = (
        f"killed by signal {result.signal}"
        if result.signal is not None
        else f"exit status {result.returncode}"
    )
    verdict.record(
        "comparator", False, f"comparator rejected the solution ({how})", result.output or None
    )
    return False


def _routes(run: Run) -> str | None:
    found = sorted({str(e["route"]) for e in run.log() if e.get("route")})
    return ", ".join(found) or None


def _evidence(
    judged: _Judged, task: project.Task, accepted: bool, verdict: Verdict, context: VerifyContext
) -> None:
    """What jig's own steps find, after comparator: on a red, the reason."""
    context.enter("export")
    run = judged.run
    if not accepted and _step_ended(run, "build", project.SOLUTION) != "ok":
        _why_the_solution_failed(judged, task, verdict)
        return
    exported = run.export(project.SOLUTION, [project.GOAL, task.decl, task.statement])
    export = _read(exported, "the solution's export", verdict, "export")
    if export is None:
        return
    verdict.record(
        "export",
        True,
        f"{len(export.constants)} constants in the solution's closure "
        f"(lean4export format {export.format_version})",
    )
    if not _same_statement(export, task, judged, verdict):
        return
    _record_axioms(export, task, accepted, verdict)
    _record_type(export, task, verdict)
    if accepted:
        _record_hash(export, task, judged, verdict)
    elif verdict.reason is None:
        detail = (
            "comparator rejected the solution while jig finds its statement and axioms in "
            "order: a kernel replay refused it"
        )
        verdict.fail("kernel_rejected", detail)


def _same_statement(export: Export, task: project.Task, judged: _Judged, verdict: Verdict) -> bool:
    """Whether the solution's environment has the statement the challenge has: a build that
    rewrote the statement's `.olean` in the run's `.lake` is what comparator's comparison
    catches, and this says so."""
    if task.statement not in export.constants or judged.statement_hash is None:
        return True
    if export.hash_of(task.statement, set()) == judged.statement_hash:
        return True
    detail = (
        f"the solution's {task.statement} is not the one Statements/{task.statement_id}.lean "
        "declares: the submission's build changed it"
    )
    _stop(verdict, "export", "provenance", detail, None)
    return False


def _why_the_solution_failed(judged: _Judged, task: project.Task, verdict: Verdict) -> None:
    """The solution did not build: the submission's module alone, then the solution."""
    run = judged.run
    alone = run.build(task.module)
    if not alone.ok:
        diagnostics = [d for d in build_diagnostics(alone.output) if d.severity == "error"]
        first = (
            f"{diagnostics[0].where()} {diagnostics[0].message}"
            if diagnostics
            else f"lake build exited {alone.returncode}"
        )
        _stop(
            verdict, "export", "build_failed", f"{task.module} did not build: {first}", alone.output
        )
        return
    solution = run.build(project.SOLUTION)
    text = solution.output
    errors = [d for d in build_diagnostics(text) if d.severity == "error"]
    message = errors[0].message if errors else ""
    lowered = message.lower()
    if "already contains" in lowered:
        _stop(
            verdict,
            "export",
            "shadowed_statement",
            f"{task.module} redeclares a constant of the statement: {message}",
            text,
        )
    elif "unknown" in lowered and task.decl.split(".")[-1] in message:
        _stop(verdict, "export", "provenance", f"{task.module} declares no {task.decl}", text)
    else:
        exported = run.export(task.module, [task.decl])
        export = _read(exported, "the module's export", verdict, None)
        constant = export.constants.get(task.decl) if export is not None else None
        if constant is not None:
            verdict.submitted_type = export.render(constant.type) if export else None
        why = message or "the solution did not build"
        detail = f"{task.decl} does not have the type {task.statement}: {why}"
        _stop(verdict, "anti_restatement", "restatement", detail, text)


def _read(result: RunResult, what: str, verdict: Verdict, check: str | None) -> Export | None:
    """`result`'s stdout as an export, or None with a `verifier_error` (a `timeout`)."""
    if result.timed_out:
        if check:
            _stop(
                verdict,
                check,
                "timeout",
                f"step={check}: {what} ran out of the wall budget",
                result.stderr,
            )
        return None
    problem = (
        None
        if result.ok
        else f"lean4export exited {result.returncode}: {_last_line(result.stderr)}"
    )
    if problem is None and result.stdout_truncated:
        problem = "lean4export printed more than jig keeps"
    try:
        export = read_export(result.stdout.encode("utf-8")) if problem is None else None
    except ExportProblem as unusable:
        problem = str(unusable)
        export = None
    if export is None:
        if check:
            _stop(
                verdict,
                check,
                "verifier_error",
                f"{what} cannot be read: {problem}",
                result.stderr or None,
            )
        return None
    return export


def _last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1][:200] if lines else "(nothing on stderr)"


def _record_axioms(export: Export, task: project.Task, accepted: bool, verdict: Verdict) -> None:
    axioms = export.axioms_of(task.decl)
    verdict.axioms = axioms
    verdict.print_axioms = print_axioms_line(task.decl, axioms)
    bad = {name: reason for name in axioms if (reason := axiom_reason(name))}
    if not bad:
        verdict.record("axioms", True, f"{axioms} ⊆ {sorted(ALLOWED_AXIOMS)}")
        return
    detail = f"axioms outside the trusted base: {', '.join(sorted(bad))}"
    if accepted:  # comparator's own axiom check said otherwise: the two disagree
        detail = f"comparator accepted, yet jig's export of the solution has {detail}"
        _stop(verdict, "axioms", "verifier_error", detail, verdict.print_axioms)
        return
    verdict.record("axioms", False, _short(detail), verdict.print_axioms)
    for reason in sorted(set(bad.values())):
        verdict.fail(reason, _short(detail))


def _record_type(export: Export, task: project.Task, verdict: Verdict) -> None:
    constant = export.constants.get(task.decl)
    if constant is None:
        _stop(
            verdict,
            "anti_restatement",
            "verifier_error",
            f"the solution's export has no {task.decl}",
            None,
        )
        return
    verdict.submitted_type = export.render(constant.type)
    goal = export.constants.get(project.GOAL)
    said = f"{task.decl} proves {task.statement} ({project.GOAL} := @{task.decl} built)"
    verdict.record(
        "anti_restatement",
        goal is not None,
        said if goal is not None else f"the solution's export has no {project.GOAL}",
    )


def _record_hash(export: Export, task: project.Task, judged: _Judged, verdict: Verdict) -> None:
    own = _submitters_own(export, task, judged)
    verdict.elaborated_term_hash = export.hash_of(task.decl, own)
    verdict.term_hash_kind = TERM_HASH_KIND
    statement = export.constants.get(task.statement)
    if statement is not None and statement.value is not None:
        verdict.statement_hash = export.hash_of(task.statement, set())
    verdict.record("term_hash", True, f"{len(own)} of the submitter's own constants inlined")


def _submitters_own(export: Export, task: project.Task, judged: _Judged) -> set[str]:
    """The constants of the decl's closure the challenge's environment does not have: the
    submitter's own, which the hash inlines. (Read after the solution's build, which could
    shape only its own hash by it.)"""
    closure = [name for name in export.closure(task.decl) if name != task.decl]
    if not closure:
        return set()
    trusted = read_or_none(judged.run.export(project.CHALLENGE, closure, ignore_missing=True))
    known = set(trusted.constants) if trusted is not None else set(closure)
    return {name for name in closure if name not in known}


def read_or_none(result: RunResult) -> Export | None:
    if not result.ok or result.stdout_truncated:
        return None
    try:
        return read_export(result.stdout.encode("utf-8"))
    except ExportProblem:
        return None


def print_axioms_line(decl: str, axioms: list[str]) -> str:
    """The axiom set in the words of Lean's `#print axioms` (`src/Lean/Elab/Print.lean`),
    kept in the verdict's `print_axioms` for readers used to it."""
    if not axioms:
        return f"'{decl}' does not depend on any axioms"
    return f"'{decl}' depends on axioms: [{', '.join(axioms)}]"


def _stop(verdict: Verdict, check: str, reason: str, detail: str, output: str | None) -> None:
    """Record `check` as failed for `reason`, the verdict's reason if it is the first."""
    verdict.record(check, False, _short(detail), output or None)
    verdict.fail(reason, _short(detail))


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 1] + "…"
