"""The Lean pipeline end to end through `jigcli.verify.submission.verify`, driven by the stand-in
toolchain and its judge, the submission built in the real sandbox: every reason reachable, one
trusted build, one sandboxed build of the submission and one judge run per submission, and no
verdict moved by any text the submission can make Lean print. What the sandbox contains is in
`tests/lean/test_build.py`."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from jigcli.lean.pipeline import LATER_CHECKS
from jigcli.schemas import validate
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

ALICE = "Submissions/S001/AliceDirect.json"
MODULE = "Submissions.S001.AliceDirect"
DECL = f"{MODULE}.proof"
# Every check that needs Lean: all after the static policy and the toolchain probe.
LEAN_CHECKS = LATER_CHECKS[LATER_CHECKS.index("trusted_build") :]

pytestmark = pytest.mark.usefixtures("confined")


def run(repo, manifest: str = ALICE, timeout: float = 60.0, **options) -> Verdict:
    verdict = verify(repo.root / manifest, repo, VerifyOptions(timeout=timeout, **options))
    assert validate(verdict.to_json(), "verdict") == []
    return verdict


def builds(standin) -> list[list[str]]:
    return [
        c["argv"][1:] for c in standin.calls() if c["tool"] == "lake" and c["argv"][0] == "build"
    ]


def judge_runs(standin) -> int:
    return standin.count("jig_judge")


def export_size(verdict: Verdict) -> int:
    """The size the export check reports, read back from its detail."""
    detail = verdict.checks["export"].detail or ""
    return int(detail.rsplit("(", 1)[1].split()[0])


def not_run(verdict: Verdict, *names: str) -> bool:
    return all(verdict.checks[name].ok is None for name in names)


# -- green, and how it is reached -------------------------------------------------------------


def test_a_real_proof_is_green_with_one_build_of_it_and_one_judge_run(
    standin, lean_repo, sandboxed_builds
):
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("green", "ok"), verdict.detail
    assert builds(standin) == [["jig_judge", "jig_export", "Statements.S001", "Commons"]]
    ((route, job), (export_route, export_job)) = sandboxed_builds
    lean, source, *flags = job.argv
    assert lean.endswith("/bin/lean") and source == "AliceDirect.lean"
    assert flags[0] == "-o" and flags[1].endswith("/Submissions/S001/AliceDirect.olean")
    assert flags[2:] == ["--setup", "setup.json", "--json"]
    assert route == export_route == verdict.to_json()["isolation"] == "bubblewrap"
    exporter, *export_flags = export_job.argv
    assert exporter == str(lean_repo.root / ".lake/build/bin/jig_export")
    assert export_flags[:2] == ["--module", MODULE]
    assert verdict.checks["export"].detail == (
        f"1 constant of {MODULE} exported in the bubblewrap sandbox "
        f"({export_size(verdict)} bytes of lean4export format 3.1.0)"
    )
    assert verdict.checks["build"].detail.startswith(
        "lean Submissions/S001/AliceDirect.lean in the bubblewrap sandbox"
    )
    assert judge_runs(standin) == 1
    assert standin.count("lean", "--json") == 0
    assert set(LEAN_CHECKS) <= set(verdict.checks)
    assert all(check.ok for check in verdict.checks.values())
    assert verdict.axioms == ["propext"]
    assert verdict.print_axioms == f"'{DECL}' depends on axioms: [propext]"
    assert verdict.elaborated_term_hash and verdict.elaborated_term_hash.startswith("sha256:")
    assert verdict.term_hash_kind == "jig-normalized-v1"
    assert verdict.statement_hash and verdict.submission_source_hash
    assert verdict.canonical_statement == "∀ (n : Nat), Even (n * (n + 1))"


def test_the_judge_is_asked_about_this_submission_and_writes_outside_the_repo(standin, lean_repo):
    run(lean_repo)
    (call,) = [c for c in standin.calls() if c["tool"] == "jig_judge"]
    args = dict(zip(call["argv"][::2], call["argv"][1::2], strict=True))
    assert args["--statement"] == "S001" and args["--module"] == MODULE
    assert args["--decl"] == DECL and "--refutes" not in args
    assert not Path(args["--out"]).is_relative_to(lean_repo.root)


def test_the_judge_reads_a_copy_of_the_export_and_never_a_file_of_the_build(
    standin, lean_repo, sandboxed_builds
):
    run(lean_repo)
    ((_, job), (_, export_job)) = sandboxed_builds
    (written,) = job.view.writable
    (exported,) = export_job.view.writable
    # The export step reads the build's folder read-only and writes a folder made after it.
    assert written in export_job.view.read_only and exported != written
    (call,) = [c for c in standin.calls() if c["tool"] == "jig_judge"]
    argv = call["argv"]
    assert "--olean" not in argv
    export = Path(argv[argv.index("--export") + 1])
    assert not export.is_relative_to(written.parent) and not export.exists()
    # Its imports come from the source's header, as jig read it.
    imports = [
        value for flag, value in zip(argv[::2], argv[1::2], strict=True) if flag == "--import"
    ]
    assert imports == ["Mathlib.Algebra.Group.Nat.Even"]
    # The build's folder, which the submission controls, is nowhere on the judge's search path.
    search = call["lean_path"].split(os.pathsep)
    assert search and not any(Path(folder).is_relative_to(written.parent) for folder in search)
    assert not written.exists()  # removed once the verification ended


def test_the_report_is_kept_as_evidence_and_is_repo_relative(standin, lean_repo):
    verdict = run(lean_repo)
    assert set(verdict.evidence) == {"judge_output"}
    kept = verdict.evidence["judge_output"]
    assert not Path(kept).is_absolute()
    report = json.loads((lean_repo.root / kept).read_text())
    assert report["schema"] == "jig.judge.v1" and report["decl"] == DECL


def test_two_different_proofs_hash_differently(standin, lean_repo):
    alice = run(lean_repo).elaborated_term_hash
    bob = run(lean_repo, "Submissions/S001/BobParity.json").elaborated_term_hash
    assert alice and bob and alice != bob


def test_a_proof_through_its_own_helper_lemma_is_replayed_lemma_first(standin, lean_repo):
    # BobParity's `proof` uses `parity_split` in its value only: a replay that ordered constants
    # by their types alone would send the proof first, and the kernel would not know the lemma.
    verdict = run(lean_repo, "Submissions/S001/BobParity.json")
    assert (verdict.verdict, verdict.reason) == ("green", "ok"), verdict.detail
    assert verdict.checks["kernel_replay"].detail.startswith("the replay of 2 constants")
    assert verdict.checks["export"].detail.startswith("2 constants of Submissions.S001.BobParity")


def test_a_module_system_build_is_exported_from_all_its_parts(standin, lean_repo):
    # A `module` build writes three parts; the stand-in's first (public) part lacks the
    # theorems, as Lean's exported level does. The exporter reads every part, as Lean's
    # importer does at the private level, so the decl is in the export; jig copies none.
    standin.scenario({"module_system": True})
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("green", "ok"), verdict.detail
    assert verdict.checks["export"].detail.startswith(f"1 constant of {MODULE}")
    assert verdict.checks["provenance"].ok


def test_a_truncated_term_says_so_in_its_hash_kind(standin, lean_repo):
    standin.scenario({"truncated": True})
    verdict = run(lean_repo)
    assert verdict.green and verdict.term_hash_kind == "jig-normalized-v1-truncated"


# -- each reason the judge's facts can give ---------------------------------------------------


def test_a_weakened_statement_is_a_restatement_with_both_types(standin, lean_repo):
    standin.scenario(
        {"bridge": "rejected", "submitted_type": "∀ (n : Nat), Even n → Even (n * (n + 1))"}
    )
    verdict = run(lean_repo, "Submissions/S001/MalloryWeakened.json")
    assert verdict.reason == "restatement"
    assert verdict.submitted_type == "∀ (n : Nat), Even n → Even (n * (n + 1))"
    assert verdict.canonical_statement == "∀ (n : Nat), Even (n * (n + 1))"
    assert "(kernel) declaration type mismatch" in verdict.checks["anti_restatement"].output


@pytest.mark.parametrize("check", ["bridge", "replay", "refutation"])
def test_a_kernel_out_of_budget_is_a_timeout_never_a_refusal(standin, lean_repo, check):
    standin.scenario({check: "budget"})
    manifest = "Submissions/S001/MalloryFalseRefutation.json" if check == "refutation" else ALICE
    verdict = run(lean_repo, manifest)
    assert verdict.reason == "timeout"
    step = {"bridge": "anti_restatement", "replay": "kernel_replay", "refutation": "refutation"}
    assert f"step={step[check]}" in verdict.detail and "not a refusal" in verdict.detail


def test_a_redeclared_statement_is_shadowed(standin, lean_repo):
    # The policy refuses `namespace Statements…` (MalloryShadow); this is a redeclaration it
    # missed, so the source that reaches the build is one the policy accepts.
    standin.scenario({"clashes": ["Statements.S001.statement"]})
    verdict = run(lean_repo)
    assert verdict.reason == "shadowed_statement"
    assert "'Statements.S001.statement'" in verdict.detail and "Statements.S001" in verdict.detail
    assert not_run(verdict, "kernel_replay", "anti_restatement", "axioms")


def test_a_redeclared_trusted_constant_is_a_provenance_failure(standin, lean_repo):
    standin.scenario({"clashes": ["Nat.even_mul_succ_self"]})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert "Mathlib.Algebra.Group.Nat.Even" in verdict.detail


def test_a_decl_the_module_does_not_declare_fails_provenance(standin, lean_repo):
    standin.scenario({"decl_in_module": False})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert f"{DECL} is not declared in {MODULE}" in verdict.detail


def test_a_statement_that_comes_from_elsewhere_fails_provenance(standin, lean_repo):
    standin.scenario({"statement_module": "Commons.Basic"})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert "declared in Commons.Basic, not in Statements.S001" in verdict.detail


def test_an_import_the_policy_missed_is_refused_by_the_judge_itself(standin, lean_repo):
    standin.scenario({"extra_imports": ["Lean.Elab.Command"]})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert "Lean.Elab.Command, outside the allowed roots" in verdict.detail
    assert not_run(verdict, "no_unchecked_code", "kernel_replay", "anti_restatement", "axioms")


@pytest.mark.parametrize(
    "unchecked",
    [
        [{"name": f"{MODULE}.loop", "why": "partial"}],
        [{"name": f"{MODULE}.cast", "why": "unsafe"}],
        [{"name": None, "why": "implemented_by"}],
        [{"name": None, "why": "extern"}],
    ],
)
def test_code_the_kernel_does_not_check_is_refused(standin, lean_repo, unchecked):
    standin.scenario({"unchecked": unchecked})
    verdict = run(lean_repo)
    assert verdict.reason == "unchecked_code"
    assert unchecked[0]["why"] in verdict.detail
    assert not_run(verdict, "kernel_replay", "anti_restatement")


@pytest.mark.parametrize(
    ("axioms", "reason"),
    [
        (["propext", "sorryAx"], "sorry"),
        ([f"{DECL}._native.native_decide.ax_1_1", "propext"], "native_decide"),
        (["Lean.ofReduceBool"], "native_decide"),
        (["Classical.choice", "Mathlib.Foo.unsound"], "disallowed_axiom"),
    ],
)
def test_the_axiom_audit_names_the_escape_hatch(standin, lean_repo, axioms, reason):
    standin.scenario({"axioms": axioms})
    verdict = run(lean_repo)
    assert verdict.reason == reason
    assert verdict.axioms == sorted(axioms)
    assert verdict.checks["axioms"].ok is False


def test_an_axiom_declared_in_the_submitted_module_is_refused(standin, lean_repo):
    standin.scenario({"module_axioms": [f"{MODULE}.cheat"]})
    verdict = run(lean_repo)
    assert verdict.reason == "disallowed_axiom"
    assert verdict.checks["no_new_axioms"].ok is False


def test_a_native_axiom_declared_in_the_module_counts_as_native_decide(standin, lean_repo):
    standin.scenario({"module_axioms": [f"{DECL}._native.native_decide.ax_1_1"]})
    assert run(lean_repo).reason == "native_decide"


def test_a_kernel_replay_refusal_is_kernel_rejected(standin, lean_repo):
    standin.scenario({"replay": "rejected"})
    verdict = run(lean_repo)
    assert verdict.reason == "kernel_rejected"
    assert f"while replaying '{DECL}'" in verdict.detail
    assert not_run(verdict, "anti_restatement", "axioms", "term_hash")


def test_a_claimed_refutation_that_is_not_one(standin, lean_repo):
    standin.scenario({"refutation": "rejected"})
    verdict = run(lean_repo, "Submissions/S001/MalloryFalseRefutation.json")
    assert verdict.reason == "not_a_refutation"
    assert verdict.checks["refutation"].ok is False
    assert judge_runs(standin) == 1


def test_a_real_refutation_link_passes_and_builds_the_refuted_statement(standin, lean_repo):
    verdict = run(lean_repo, "Submissions/S001/MalloryFalseRefutation.json")
    assert verdict.checks["refutation"].ok is True
    (call,) = [c for c in standin.calls() if c["tool"] == "jig_judge"]
    assert call["argv"][call["argv"].index("--refutes") + 1] == "S001"


# -- builds -----------------------------------------------------------------------------------


def test_a_failing_build_is_build_failed_and_the_judge_never_runs(standin, lean_repo):
    standin.scenario({"build": "error", "build_error": "Unknown identifier `Nat.foo`"})
    verdict = run(lean_repo)
    assert verdict.reason == "build_failed"
    assert verdict.detail.startswith("Submissions/S001/AliceDirect.lean:3:3:")
    assert judge_runs(standin) == 0
    assert not_run(verdict, "provenance", "kernel_replay", "anti_restatement")


def test_a_sorry_fails_the_build_as_lean_logs_it_as_an_error(standin, lean_repo):
    standin.scenario({"sorry_warning": True})
    verdict = run(lean_repo)
    assert verdict.reason == "build_failed"
    assert verdict.detail == (
        "Submissions/S001/AliceDirect.lean:9:9: error: declaration uses `sorry`"
    )
    assert judge_runs(standin) == 0


def test_a_warning_fails_the_build_even_when_the_source_turns_warning_as_error_off(
    standin, lean_repo
):
    # `set_option warningAsError false` is an option the policy allows: Lean then logs the
    # sorry as a warning and writes the .olean, and jig fails the build on the warning.
    standin.scenario({"sorry_warning": True, "warning_as_error_off": True})
    verdict = run(lean_repo)
    assert verdict.reason == "build_failed"
    assert verdict.detail.endswith("warning: declaration uses `sorry`")
    assert judge_runs(standin) == 0


def test_a_failing_trusted_build_is_the_verifiers_problem_and_builds_nothing_else(
    standin, lean_repo
):
    standin.scenario({"trusted_build": "error"})
    verdict = run(lean_repo)
    assert verdict.reason == "verifier_error"
    assert "lake build jig_judge jig_export Statements.S001 Commons failed" in verdict.detail
    assert builds(standin) == [["jig_judge", "jig_export", "Statements.S001", "Commons"]]
    assert not_run(verdict, "build", "provenance")


def test_the_wall_budget_kills_a_hanging_judge_and_its_group(
    standin, lean_repo, tmp_path, pid_alive
):
    pid_file = tmp_path / "grandchild.pid"
    standin.scenario({"judge": "hang", "hang_pid_file": str(pid_file)})
    verdict = run(lean_repo, timeout=4)
    assert verdict.reason == "timeout"
    assert "step=judge" in verdict.detail
    assert gone(int(pid_file.read_text()), pid_alive)


def test_the_wall_budget_ends_a_hanging_build_and_leaves_nothing_of_it(
    standin, lean_repo, survivors
):
    marker = f"jig-hang-{time.monotonic_ns()}"
    standin.scenario({"build": "hang", "hang_marker": marker})
    verdict = run(lean_repo, timeout=6)
    assert verdict.reason == "timeout"
    assert "step=build" in verdict.detail
    assert survivors(marker) == []


# -- the judge's own run, and its report ------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("silent", "the judge wrote no report"),
        ("crash", "the judge was killed by signal 6"),
        ("exit_1", "the judge exited 1"),
        ("stdout", "the judge printed on stdout"),
        ("truncated", "the judge's report is not valid JSON"),
        ("not_json", "the judge's report is not valid JSON"),
        ("bad_utf8", "the judge's report is not UTF-8"),
        ("duplicate_keys", "the key 'axioms' appears twice"),
        ("wrong_types", "the judge's report is not jig.judge.v1: axioms"),
        ("other_decl", "the judge's report is about decl 'Submissions.S001.Someone.proof'"),
    ],
)
def test_a_report_that_cannot_be_believed_is_a_verifier_error_never_green(
    standin, lean_repo, mode, said
):
    standin.scenario({"judge": mode})
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("red", "verifier_error")
    assert said in verdict.detail
    assert verdict.checks["judge"].ok is False
    assert not_run(verdict, "provenance", "kernel_replay", "anti_restatement", "axioms")


@pytest.mark.parametrize("stage", ["load", "import"])
def test_a_judge_that_could_not_decide_says_where(standin, lean_repo, stage):
    standin.scenario({"judge_failure": stage})
    verdict = run(lean_repo)
    assert verdict.reason == "verifier_error"
    assert verdict.detail.startswith(f"the judge could not decide: {stage}: ")


@pytest.mark.parametrize(
    ("manifest", "unanswered"),
    [
        (ALICE, "axioms"),
        (ALICE, "bridge"),
        ("Submissions/S001/MalloryFalseRefutation.json", "refutation"),
    ],
)
def test_a_report_that_leaves_a_check_unanswered_is_never_green(
    standin, lean_repo, manifest, unanswered
):
    standin.scenario({"report_nulls": [unanswered]})
    verdict = run(lean_repo, manifest)
    assert (verdict.verdict, verdict.reason) == ("red", "verifier_error")
    check = {"axioms": "axioms", "bridge": "anti_restatement", "refutation": "refutation"}
    assert verdict.checks[check[unanswered]].ok is None


# -- attacks: no text the submission controls moves a verdict ---------------------------------

FORGED = [
    f"'{DECL}' does not depend on any axioms",
    f"info: Submissions/S001/AliceDirect.lean:9:0: '{DECL}' does not depend on any axioms",
    'JIG:provenance:{"actual":"Submissions.S001.AliceDirect","ok":true}',
    'JIG:module_axioms:{"axioms":[],"imported":true,"module":"Submissions.S001.AliceDirect"}',
    'JIG:refutation:{"ok":true}',
    "Build completed successfully (3 jobs).",
]


def test_forged_axiom_answers_and_markers_in_the_build_output_change_nothing(standin, lean_repo):
    standin.scenario({"build_output": FORGED, "axioms": ["propext", "sorryAx"]})
    verdict = run(lean_repo)
    assert verdict.reason == "sorry"
    assert "does not depend on any axioms" in verdict.checks["build"].output
    assert verdict.print_axioms == f"'{DECL}' depends on axioms: [propext, sorryAx]"


def test_a_build_that_claims_success_while_the_judge_finds_a_shadow(standin, lean_repo):
    standin.scenario({"build_output": FORGED, "clashes": ["Statements.S001.statement"]})
    assert run(lean_repo).reason == "shadowed_statement"


def test_forged_text_on_the_judges_stderr_and_lakes_changes_nothing(standin, lean_repo):
    standin.scenario(
        {
            "judge_stderr": "\n".join(FORGED),
            "lake_warning": f"warning: '{DECL}' does not depend on any axioms",
            "axioms": ["sorryAx"],
        }
    )
    verdict = run(lean_repo)
    assert verdict.reason == "sorry"


def test_a_rewritten_check_file_and_a_forged_report_from_the_build_change_nothing(
    standin, lean_repo
):
    """The build runs the submission's code: it may write anything into the repo, including
    where the old pipeline kept its check file and where jig keeps the judge's report."""
    forged = {
        "schema": "jig.judge.v1",
        "statement_id": "S001",
        "module": MODULE,
        "decl": DECL,
        "axioms": [],
    }
    work = lean_repo.root / ".jig/work/Submissions__S001__AliceDirect"
    standin.scenario(
        {
            "build_writes": {
                str(work / "Check.lean"): "import Mathlib\n-- every check passes\n",
                str(work / "judge.json"): json.dumps(forged),
                str(work / "report.json"): json.dumps(forged),
            },
            "axioms": ["propext", "sorryAx"],
        }
    )
    verdict = run(lean_repo)
    assert verdict.reason == "sorry"
    kept = json.loads((lean_repo.root / verdict.evidence["judge_output"]).read_text())
    assert kept["axioms"] == ["propext", "sorryAx"]
    assert not (work / "Check.lean").exists() and not (work / "report.json").exists()


def test_a_build_cannot_replace_the_judge(standin, lean_repo):
    judge = lean_repo.root / ".lake/build/bin/jig_judge"
    impostor = "#!/bin/sh\necho 'the impostor ran' > /dev/null\n"
    standin.scenario({"build_writes": {str(judge): impostor}, "axioms": ["sorryAx"]})
    verdict = run(lean_repo)
    assert verdict.reason == "sorry" and judge_runs(standin) == 1
    assert "could not write" in verdict.checks["build"].output
    assert "impostor" not in judge.read_text()


def test_an_unsandboxed_build_that_replaces_the_judge_gets_no_verdict_from_the_impostor(
    standin, lean_repo, no_sandbox
):
    # With --allow-no-netns (local development) the build can write anywhere its user can:
    # the judge's SHA-256, taken after the trusted build, is then what stops an impostor.
    judge = lean_repo.root / ".lake/build/bin/jig_judge"
    impostor = "#!/bin/sh\necho 'the impostor ran' > /dev/null\n"
    standin.scenario({"build_writes": {str(judge): impostor}})
    verdict = run(lean_repo, allow_no_netns=True)
    assert verdict.to_json()["isolation"] == "none"
    assert (verdict.verdict, verdict.reason) == ("red", "verifier_error")
    assert ".lake/build/bin/jig_judge changed since the trusted build made it" in verdict.detail
    assert judge_runs(standin) == 0


def test_an_unsandboxed_build_says_so_in_its_verdict(standin, lean_repo, no_sandbox):
    verdict = run(lean_repo, allow_no_netns=True)
    assert verdict.green and verdict.to_json()["isolation"] == "none"
    assert "with no sandbox (--allow-no-netns" in verdict.checks["build"].detail


def test_with_no_sandbox_the_submission_is_never_built(
    standin, lean_repo, no_sandbox, sandboxed_builds
):
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("red", "sandbox_unavailable")
    assert verdict.to_json()["isolation"] is None
    assert "bubblewrap: bwrap is not installed (test)" in verdict.detail
    assert "unshare-root: does not confine a program's files" in verdict.detail
    assert sandboxed_builds == [] and judge_runs(standin) == 0
    assert not_run(verdict, "provenance", "kernel_replay", "anti_restatement", "axioms")
    assert "bubblewrap" in verdict.to_json()["next"]


def test_a_trusted_build_that_leaves_no_judge_is_a_verifier_error(standin, lean_repo):
    standin.scenario({"trusted_build": "no_judge"})
    verdict = run(lean_repo)
    assert verdict.reason == "verifier_error"
    assert "left no jig_judge at .lake/build/bin/jig_judge" in verdict.detail
    assert builds(standin) == [["jig_judge", "jig_export", "Statements.S001", "Commons"]]


# -- before anything is built -----------------------------------------------------------------


def test_without_a_toolchain_manifest_and_policy_still_run(standin, lean_repo):
    standin.uninstall()
    verdict = run(lean_repo)
    assert verdict.reason == "toolchain_missing"
    assert verdict.checks["manifest"].ok and verdict.checks["static_policy"].ok
    assert not_run(verdict, *LEAN_CHECKS)
    assert "elan" in verdict.to_json()["next"]


def test_a_different_lean_version_is_refused_naming_both(standin, lean_repo):
    standin.scenario({"version": "4.29.0"})
    verdict = run(lean_repo)
    assert verdict.reason == "toolchain_missing"
    assert "4.29.0" in verdict.detail and "4.33.0" in verdict.detail
    assert builds(standin) == []


def test_a_source_the_policy_rejects_is_never_built(standin, lean_repo):
    verdict = run(lean_repo, "Submissions/S001/MalloryAxiom.json")
    assert verdict.reason == "forbidden_syntax"
    assert verdict.detail.startswith("Submissions/S001/MalloryAxiom.lean:")
    assert standin.calls() == []
    for name in ("toolchain", *LEAN_CHECKS):
        assert verdict.checks[name].ok is None
        assert verdict.checks[name].detail.startswith("not run:")


def test_a_module_outside_the_manifest_folder_is_a_bad_manifest(standin, lean_repo):
    path = lean_repo.root / "Submissions/S001/Elsewhere.json"
    data = json.loads((lean_repo.root / ALICE).read_text())
    data.update(module="Submissions.S002.X", decl="Submissions.S002.X.proof")
    path.write_text(json.dumps(data))
    verdict = run(lean_repo, "Submissions/S001/Elsewhere.json")
    assert verdict.reason == "bad_manifest"
    assert standin.calls() == []


def test_an_unknown_statement_and_a_missing_source(standin, lean_repo):
    data = json.loads((lean_repo.root / ALICE).read_text())
    unknown = lean_repo.root / "Submissions/S001/Unknown.json"
    unknown.write_text(json.dumps({**data, "statement_id": "S999"}))
    assert run(lean_repo, "Submissions/S001/Unknown.json").reason == "unknown_statement"
    missing = lean_repo.root / "Submissions/S001/Missing.json"
    missing.write_text(
        json.dumps({**data, "module": "Submissions.S001.Gone", "decl": "Submissions.S001.Gone.p"})
    )
    assert run(lean_repo, "Submissions/S001/Missing.json").reason == "missing_source"


def gone(pid: int, pid_alive) -> bool:
    """SIGKILL is delivered asynchronously: allow a loaded machine a moment to reap."""
    for _ in range(50):
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return False


def test_jig_opens_no_file_the_build_wrote_but_the_export(standin, lean_repo, monkeypatch):
    # The build plants `.olean.server` and `.olean.private` parts beside its `.olean`: the
    # exporter reads them in the sandbox; jig's own process opens none of them, nor the
    # `.olean`, nor anything in the build's own folder: only the export's folder and file.
    import builtins
    import io

    opened: list[str] = []
    real_os_open, real_open, real_io_open = os.open, builtins.open, io.open

    def noting(real):
        def wrapper(file, *args, **kwargs):
            opened.append(os.fspath(file) if isinstance(file, (str, os.PathLike)) else "")
            return real(file, *args, **kwargs)

        return wrapper

    part = json.dumps(
        {
            "standin": "olean",
            "module": MODULE,
            "imports": [],
            "constants": [{"name": DECL, "kind": "thm", "type_uses": [], "value_uses": []}],
        }
    )
    olean = "$OUT/Submissions/S001/AliceDirect.olean"
    script = f"echo '{part}' > {olean}.server && echo '{part}' > {olean}.private"
    standin.scenario({"build_script": script})
    monkeypatch.setattr(os, "open", noting(real_os_open))
    monkeypatch.setattr(builtins, "open", noting(real_open))
    monkeypatch.setattr(io, "open", noting(real_io_open))
    verdict = run(lean_repo)
    monkeypatch.undo()
    assert (verdict.verdict, verdict.reason) == ("green", "ok"), verdict.detail
    roots = {Path(path) for path in opened if Path(path).name.startswith("jig-build-")}
    (root,) = roots
    inside = {
        Path(path).relative_to(root).as_posix()
        for path in opened
        if Path(path).is_relative_to(root)
    }
    # the folder itself (made, then removed), the export's folder (the export is read
    # beneath it, by name, through no link)
    assert inside == {".", "export"}, inside
    assert "export.ndjson" in opened
