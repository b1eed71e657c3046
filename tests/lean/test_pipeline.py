"""The Lean pipeline end to end through `jigcli.verify.submission.verify`: the stand-in toolchain
(comparator and lean4export as the trusted build makes them, Lake in each run's project), every
sandboxed step through jig's `$COMPARATOR_LANDRUN` in real bubblewrap. Every reason reachable,
the steps in comparator's order, and no verdict moved by anything the submission can write or
make Lean print. What one step's sandbox shows is in `tests/lean/comparator/test_landrun.py`."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from jigcli.lean import pipeline
from jigcli.lean.comparator import project
from jigcli.lean.comparator.run import Run
from jigcli.lean.pipeline import LATER_CHECKS
from jigcli.schemas import validate
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

from .conftest import steps

ALICE = "Submissions/S001/AliceDirect.json"
BOB = "Submissions/S001/BobParity.json"
WEAKENED = "Submissions/S001/MalloryWeakened.json"
FALSE_REFUTATION = "Submissions/S001/MalloryFalseRefutation.json"
MODULE = "Submissions.S001.AliceDirect"
DECL = f"{MODULE}.proof"
STATEMENT_TEXT = "∀ n : ℕ, Even (n * (n + 1))"
TRUSTED_BUILD = [
    "build",
    "@Comparator/comparator",
    "@lean4export/lean4export",
    "Statements.S001",
    "Commons",
]
# Every check that needs Lean: all after the static policy and the toolchain probe.
LEAN_CHECKS = LATER_CHECKS[LATER_CHECKS.index("trusted_build") :]

pytestmark = pytest.mark.usefixtures("confined")


def run(repo, manifest: str = ALICE, timeout: float = 60.0, **options) -> Verdict:
    verdict = verify(repo.root / manifest, repo, VerifyOptions(timeout=timeout, **options))
    assert validate(verdict.to_json(), "verdict") == []
    return verdict


def lake_builds(standin) -> list[list[str]]:
    return [c["argv"] for c in standin.calls() if c["tool"] == "lake" and c["argv"][0] == "build"]


def comparator_runs(standin) -> int:
    return standin.count("comparator")


def step_names(run_folder: Path) -> list[tuple[str, str]]:
    """Each sandboxed step as (kind, module): ("build", "JigChallenge"), ("export", …)."""
    named = []
    for entry in steps(run_folder):
        argv = entry["argv"]
        assert isinstance(argv, list)
        module = argv[2] if entry["step"] == "build" else argv[1]
        named.append((str(entry["step"]), module))
    return named


def not_run(verdict: Verdict, *names: str) -> bool:
    return all(verdict.checks[name].ok is None for name in names)


# -- green, and how it is reached -------------------------------------------------------------


def test_a_real_proof_is_green_on_comparators_word_with_each_step_in_order(
    standin, lean_repo, kept_runs
):
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("green", "ok"), verdict.detail
    assert lake_builds(standin) == [TRUSTED_BUILD]
    assert comparator_runs(standin) == 1
    (folder,) = kept_runs
    assert step_names(folder) == [
        ("build", project.CHALLENGE),  # jig's: the challenge, before any submitted code runs
        ("export", project.CHALLENGE),  # jig's provenance export
        ("build", project.CHALLENGE),  # comparator's four
        ("export", project.CHALLENGE),
        ("build", project.SOLUTION),
        ("export", project.SOLUTION),
        ("export", project.SOLUTION),  # jig's evidence: axioms, type, term hash
        ("export", project.CHALLENGE),  # the trusted side's names, for the hash
    ]
    assert {entry["route"] for entry in steps(folder)} == {"bubblewrap"}
    assert all(entry["seccomp"] for entry in steps(folder))
    assert set(LEAN_CHECKS) <= set(verdict.checks)
    assert all(check.ok for check in verdict.checks.values())
    assert "Your solution is okay!" in verdict.checks["comparator"].output
    data = verdict.to_json()
    assert (data["isolation"], data["kernels"]) == ("bubblewrap", ["lean"])
    assert verdict.axioms == ["propext"]
    assert verdict.print_axioms == f"'{DECL}' depends on axioms: [propext]"
    assert verdict.elaborated_term_hash and verdict.elaborated_term_hash.startswith("sha256:")
    assert verdict.term_hash_kind == "jig-export-normalized-v1"
    assert verdict.statement_hash and verdict.submission_source_hash
    assert STATEMENT_TEXT in (verdict.canonical_statement or "")


def test_the_run_folder_holds_trusted_text_and_the_bytes_the_policy_scanned(
    standin, lean_repo, kept_runs
):
    run(lean_repo)
    (folder,) = kept_runs
    where = folder / "project"
    challenge = (where / f"{project.CHALLENGE}.lean").read_text()
    solution = (where / f"{project.SOLUTION}.lean").read_text()
    assert "theorem JigRun.goal : Statements.S001.statement :=\n  sorry" in challenge
    assert "import Mathlib.Algebra.Group.Nat.Even" in challenge  # the header's imports
    assert f"import {MODULE}" in solution and f"@{DECL}" in solution
    assert f"import {MODULE}" not in challenge
    config = json.loads((folder / "control" / project.CONFIG_NAME).read_text())
    assert config["challenge_module"] == project.CHALLENGE
    assert config["solution_module"] == project.SOLUTION
    assert config["theorem_names"] == [project.GOAL]
    assert config["permitted_axioms"] == ["propext", "Quot.sound", "Classical.choice"]
    submitted = where / "Submissions" / "S001" / "AliceDirect.lean"
    assert (
        submitted.read_bytes()
        == (lean_repo.root / "Submissions/S001/AliceDirect.lean").read_bytes()
    )


def test_the_run_folder_is_private_and_removed_when_the_verification_ends(
    standin, lean_repo, tmp_path, monkeypatch
):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    seen: list[int] = []
    real = Run.comparator

    def noting(self):
        seen.append(os.stat(self.folder.project.parent).st_mode & 0o777)
        return real(self)

    monkeypatch.setattr(Run, "comparator", noting)
    assert run(lean_repo).green
    assert seen == [0o700]
    assert not [p for p in scratch.iterdir() if p.name.startswith("jig-lean-")]


def test_two_different_proofs_hash_differently_and_own_lemmas_are_inlined(standin, lean_repo):
    alice = run(lean_repo)
    bob = run(lean_repo, BOB)
    assert alice.elaborated_term_hash and bob.elaborated_term_hash
    assert alice.elaborated_term_hash != bob.elaborated_term_hash
    assert alice.checks["term_hash"].detail == "0 of the submitter's own constants inlined"
    # BobParity proves the statement through its own `parity_split`.
    assert bob.checks["term_hash"].detail == "1 of the submitter's own constants inlined"


def test_nothing_one_runs_build_writes_is_seen_by_the_next_run_or_the_repo(
    standin, lean_repo, kept_runs
):
    standin.scenario({"build_script": 'echo planted > "$OUT/planted"'})
    assert run(lean_repo).green
    standin.scenario({})
    assert run(lean_repo).green
    first, second = kept_runs
    assert (first / "project/.lake/build/planted").read_text() == "planted\n"
    assert not (second / "project/.lake/build/planted").exists()
    assert not list(lean_repo.root.rglob("planted"))


# -- each reason -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("axioms", "reason"),
    [
        (["propext", "sorryAx"], "sorry"),
        (["Lean.ofReduceBool"], "native_decide"),
        ([f"{DECL}._native.native_decide.ax_1_1"], "native_decide"),
        (["Classical.choice", f"{MODULE}.cheat"], "disallowed_axiom"),
    ],
)
def test_an_axiom_outside_the_three_is_refused_by_comparator_and_named_by_jig(
    standin, lean_repo, axioms, reason
):
    standin.scenario({"axioms": axioms})
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("red", reason)
    assert verdict.checks["comparator"].ok is False
    assert "Illegal axiom detected" in verdict.checks["comparator"].output
    assert verdict.axioms == sorted(axioms)
    assert verdict.checks["axioms"].ok is False


def test_a_weakened_statement_is_a_restatement_with_both_types(standin, lean_repo):
    verdict = run(lean_repo, WEAKENED)
    assert verdict.reason == "restatement"
    assert "does not have the type Statements.S001.statement" in verdict.detail
    assert "Even n → Even (n * (n + 1))" in (verdict.submitted_type or "")
    assert STATEMENT_TEXT in (verdict.canonical_statement or "")
    assert verdict.elaborated_term_hash is None


def test_a_failing_build_is_build_failed_at_the_submissions_line(standin, lean_repo):
    standin.scenario({"build": "error", "build_error": "Unknown identifier `Nat.foo`"})
    verdict = run(lean_repo)
    assert verdict.reason == "build_failed"
    assert "Submissions/S001/AliceDirect.lean:3:3" in verdict.detail
    assert "Unknown identifier `Nat.foo`" in verdict.detail


def test_a_redeclared_statement_is_shadowed(standin, lean_repo):
    standin.scenario({"solution": "shadowed"})
    verdict = run(lean_repo)
    assert verdict.reason == "shadowed_statement"
    assert "already contains 'Statements.S001.statement'" in verdict.detail


def test_a_decl_the_trusted_side_already_has_fails_provenance_before_comparator_runs(
    standin, lean_repo
):
    standin.scenario({"trusted_constants": [DECL]})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert f"{DECL} is already declared by the statement or by the imports" in verdict.detail
    assert comparator_runs(standin) == 0
    assert not_run(verdict, "comparator", "axioms", "term_hash")


def test_a_decl_the_module_does_not_declare_fails_provenance(standin, lean_repo):
    standin.scenario({"declares_decl": False})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert f"{MODULE} declares no {DECL}" in verdict.detail


def test_a_build_that_rewrites_the_statement_is_caught_by_comparator_and_named(standin, lean_repo):
    standin.scenario({"mismatch": True})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert "Const does not match" in verdict.checks["comparator"].output
    assert "the submission's build changed it" in verdict.detail


def test_a_kernel_replay_refusal_is_kernel_rejected(standin, lean_repo):
    standin.scenario({"replay": "rejected"})
    verdict = run(lean_repo)
    assert verdict.reason == "kernel_rejected"
    assert "(kernel) declaration type mismatch" in verdict.checks["comparator"].output
    assert verdict.elaborated_term_hash is None


def test_an_import_that_does_not_exist_fails_the_challenge_and_nothing_submitted_runs(
    standin, lean_repo, kept_runs
):
    standin.scenario({"challenge": "error"})
    verdict = run(lean_repo)
    assert verdict.reason == "build_failed"
    assert "the statement with the submission's imports did not build" in verdict.detail
    assert comparator_runs(standin) == 0
    (folder,) = kept_runs
    assert step_names(folder) == [("build", project.CHALLENGE)]


def test_a_claimed_refutation_that_is_not_one_stops_at_the_challenge(standin, lean_repo):
    verdict = run(lean_repo, FALSE_REFUTATION)
    assert verdict.reason == "not_a_refutation"
    assert verdict.checks["refutation"].ok is False
    assert comparator_runs(standin) == 0


def test_a_real_refutation_link_is_built_with_the_challenge(standin, lean_repo, kept_runs):
    root = lean_repo.root
    s001 = (root / "Statements/S001.lean").read_text()
    (root / "Statements/S002.lean").write_text(s001.replace("S001", "S002"))
    data = json.loads((root / ALICE).read_text())
    data.pop("expect", None)
    (root / "Submissions/S001/Refutes.json").write_text(json.dumps({**data, "refutes": "S002"}))
    verdict = run(lean_repo, "Submissions/S001/Refutes.json")
    assert verdict.green, verdict.detail
    assert verdict.checks["refutation"].ok is True
    assert lake_builds(standin) == [[*TRUSTED_BUILD[:4], "Statements.S002", "Commons"]]
    (folder,) = kept_runs
    challenge = (folder / "project" / f"{project.CHALLENGE}.lean").read_text()
    assert "Statements.S001.statement ↔ ¬ Statements.S002.statement" in challenge


# -- the verifier's own failures, and the budget ----------------------------------------------


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ({"trusted_build": "error"}, "failed, so nothing of the submission was built"),
        ({"trusted_build": "no_comparator"}, "left no comparator at .lake/packages/Comparator"),
        ({"comparator": "crash"}, "comparator was killed by signal 11"),
        ({"export": "garbage"}, "cannot be read"),
        ({"lake_env": "fail"}, "lake env"),
    ],
)
def test_a_failure_of_the_verifiers_own_side_is_a_verifier_error_never_green(
    standin, lean_repo, scenario, said
):
    standin.scenario(scenario)
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("red", "verifier_error")
    assert said in verdict.detail


def test_a_program_changed_after_the_trusted_build_is_never_run(standin, lean_repo, monkeypatch):
    real = Run.build

    def tampering(self, module):
        comparator = self.programs.comparator
        comparator.write_text(comparator.read_text() + "\n# changed\n")
        return real(self, module)

    monkeypatch.setattr(Run, "build", tampering)
    verdict = run(lean_repo)
    assert verdict.reason == "verifier_error"
    assert "Comparator/.lake/build/bin/comparator changed since the trusted build" in verdict.detail
    assert comparator_runs(standin) == 0


def test_the_wall_budget_ends_a_hanging_build_and_leaves_nothing_of_it(
    standin, lean_repo, survivors
):
    marker = f"jig-hang-{time.monotonic_ns()}"
    standin.scenario({"build": "hang", "hang_marker": marker})
    verdict = run(lean_repo, timeout=8)
    assert verdict.reason == "timeout"
    assert "step=comparator" in verdict.detail
    assert survivors(marker) == []


def test_the_wall_budget_ends_a_hanging_comparator(standin, lean_repo, survivors):
    marker = f"jig-hang-{time.monotonic_ns()}"
    standin.scenario({"comparator": "hang", "hang_marker": marker})
    verdict = run(lean_repo, timeout=6)
    assert verdict.reason == "timeout"
    assert survivors(marker) == []


# -- attacks: no text or file the submission controls moves a verdict -------------------------

FORGED = [
    "Your solution is okay!",
    f"'{DECL}' does not depend on any axioms",
    "jig-landrun: no sandbox here can confine a Lean step",
    "Build completed successfully (3 jobs).",
]


def test_forged_text_in_the_build_output_changes_nothing(standin, lean_repo):
    standin.scenario({"build_output": FORGED, "axioms": ["propext", "sorryAx"]})
    verdict = run(lean_repo)
    assert verdict.reason == "sorry"
    assert verdict.print_axioms == f"'{DECL}' depends on axioms: [propext, sorryAx]"


def test_a_build_cannot_write_outside_its_runs_lake(standin, lean_repo, tmp_path):
    comparator = pipeline.program_path(lean_repo.root, pipeline.COMPARATOR_TARGET)
    outside = tmp_path / "pwned"
    script = (
        f"echo x > {outside}; echo '#!/bin/sh' > {comparator}; "
        f"echo y > {lean_repo.root}/Statements/S001.lean; true"
    )
    standin.scenario({"build_script": script, "axioms": ["sorryAx"]})
    verdict = run(lean_repo)
    assert verdict.reason == "sorry"
    assert not outside.exists()
    assert "standin" in comparator.read_text()
    assert "statement" in (lean_repo.root / "Statements/S001.lean").read_text()


def test_an_unsandboxed_machine_never_builds_the_submission(
    standin, lean_repo, kept_runs, tmp_path, monkeypatch
):
    # The launcher is its own process: what it cannot find on its PATH it cannot run.
    without_bwrap = tmp_path / "bin"
    without_bwrap.mkdir()
    for tool in ("git", "which", "env", "python3", "sh"):
        found = shutil.which(tool)
        assert found, tool
        (without_bwrap / tool).symlink_to(found)
    real = Run.environment

    def environment(self):
        env = real(self)
        env["PATH"] = f"{self.paths.sysroot / 'bin'}{os.pathsep}{without_bwrap}"
        return env

    monkeypatch.setattr(Run, "environment", environment)
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("red", "sandbox_unavailable")
    assert "bwrap is not installed" in verdict.detail
    assert comparator_runs(standin) == 0
    (folder,) = kept_runs
    assert [entry["ended"] for entry in steps(folder)] == ["sandbox_unavailable"]
    assert "bubblewrap" in verdict.to_json()["next"]


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
    assert lake_builds(standin) == []


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
