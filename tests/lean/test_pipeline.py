"""The Lean pipeline end to end through `jigcli.verify.verify`, driven by the stand-in
toolchain: every reason reachable, one build + one `lean` (+ one replay) per submission."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.schemas import validate
from jigcli.verdict import Verdict
from jigcli.verify import VerifyOptions, verify

ALICE = "Submissions/S001/AliceDirect.json"
DECL = "Submissions.S001.AliceDirect.proof"


def run(repo, manifest: str = ALICE, timeout: float = 60.0) -> Verdict:
    verdict = verify(repo.root / manifest, repo, VerifyOptions(timeout=timeout))
    assert validate(verdict.to_json(), "verdict") == []
    return verdict


def lean_runs(standin) -> int:
    return standin.count("lean", "--json")


def test_a_real_proof_is_green_with_one_build_one_lean_run_and_one_replay(standin, lean_repo):
    verdict = run(lean_repo)
    assert (verdict.verdict, verdict.reason) == ("green", "ok"), verdict.detail
    assert standin.count("lake", "build") == 1
    assert lean_runs(standin) == 1
    assert standin.count("leanchecker") == 1
    assert all(check.ok for check in verdict.checks.values())
    assert verdict.axioms == ["propext"]
    assert verdict.elaborated_term_hash and verdict.elaborated_term_hash.startswith("sha256:")
    assert verdict.term_hash_kind == "jig-normalized-v1"
    assert verdict.statement_hash and verdict.submission_source_hash
    assert verdict.print_axioms == f"'{DECL}' depends on axioms: [propext]"


def test_the_build_names_submission_statement_and_guard(standin, lean_repo):
    run(lean_repo)
    (build,) = [c for c in standin.calls() if c["tool"] == "lake" and c["argv"][0] == "build"]
    assert build["argv"][1:] == [
        "Submissions.S001.AliceDirect",
        "Statements.S001",
        "Verify.Guard",
    ]


def test_evidence_is_repo_relative_and_exists(standin, lean_repo):
    verdict = run(lean_repo)
    assert set(verdict.evidence) == {"check_file", "lean_output"}
    for path in verdict.evidence.values():
        assert not Path(path).is_absolute()
        assert (lean_repo.root / path).is_file()
    check = (lean_repo.root / verdict.evidence["check_file"]).read_text()
    assert check.startswith("import Statements.S001\nimport Submissions.S001.AliceDirect\n")


def test_two_different_proofs_hash_differently(standin, lean_repo):
    alice = run(lean_repo).elaborated_term_hash
    bob = run(lean_repo, "Submissions/S001/BobParity.json").elaborated_term_hash
    assert alice and bob and alice != bob


def test_a_weakened_statement_is_a_restatement_with_both_types(standin, lean_repo):
    standin.scenario(
        {
            "restatement": "mismatch",
            "submitted_type": "∀ (n : ℕ), Even n → Even (n * (n + 1))",
        }
    )
    verdict = run(lean_repo, "Submissions/S001/MalloryWeakened.json")
    assert verdict.reason == "restatement"
    assert verdict.submitted_type == "∀ (n : ℕ), Even n → Even (n * (n + 1))"
    assert verdict.canonical_statement == "∀ (n : ℕ), Even (n * (n + 1))"
    assert "Type mismatch" in verdict.checks["anti_restatement"].output


def test_an_exhausted_heartbeat_budget_is_a_timeout_not_a_restatement(standin, lean_repo):
    standin.scenario({"restatement": "heartbeats"})
    verdict = run(lean_repo)
    assert verdict.reason == "timeout"
    assert "step=anti_restatement" in verdict.detail


def test_a_kernel_timeout_on_the_bridge_is_a_timeout_not_a_restatement(standin, lean_repo):
    standin.scenario({"restatement": "kernel_timeout"})
    verdict = run(lean_repo)
    assert verdict.reason == "timeout"
    assert "step=anti_restatement" in verdict.detail


def test_a_redeclared_statement_is_shadowed(standin, lean_repo):
    # The policy refuses `namespace Statements…` (MalloryShadow); this is a redeclaration it
    # missed, so the source that reaches the build is one the policy accepts.
    standin.scenario(
        {
            "lean": "import_conflict",
            "import_conflict": {
                "module": "Submissions.S001.AliceDirect",
                "constant": "Statements.S001.statement",
                "origin": "Statements.S001",
            },
        }
    )
    verdict = run(lean_repo)
    assert verdict.reason == "shadowed_statement"
    assert "Statements.S001.statement" in verdict.detail
    assert verdict.checks["anti_restatement"].ok is None


def test_a_decl_declared_elsewhere_fails_provenance(standin, lean_repo):
    standin.scenario({"provenance": {DECL: "Mathlib.Algebra.Group.Nat.Even"}})
    verdict = run(lean_repo)
    assert verdict.reason == "provenance"
    assert "Mathlib.Algebra.Group.Nat.Even" in verdict.detail


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
    standin.scenario({"module_axioms": ["Submissions.S001.AliceDirect.cheat"]})
    verdict = run(lean_repo)
    assert verdict.reason == "disallowed_axiom"
    assert verdict.checks["no_new_axioms"].ok is False


def test_a_native_axiom_declared_in_the_module_counts_as_native_decide(standin, lean_repo):
    standin.scenario({"module_axioms": [f"{DECL}._native.native_decide.ax_1_1"]})
    assert run(lean_repo).reason == "native_decide"


def test_a_failing_build_is_build_failed_and_nothing_is_elaborated(standin, lean_repo):
    standin.scenario({"build": "error", "build_error": "Unknown identifier `Nat.foo`"})
    verdict = run(lean_repo)
    assert verdict.reason == "build_failed"
    assert verdict.detail.startswith("Submissions/S001/AliceDirect.lean:3:3:")
    assert lean_runs(standin) == 0 and standin.count("leanchecker") == 0
    assert verdict.checks["kernel_replay"].ok is None


def test_the_wall_budget_kills_the_build_and_its_group(standin, lean_repo, tmp_path, pid_alive):
    pid_file = tmp_path / "grandchild.pid"
    standin.scenario({"build": "hang", "hang_pid_file": str(pid_file)})
    verdict = run(lean_repo, timeout=3)
    assert verdict.reason == "timeout"
    assert "step=build" in verdict.detail
    assert gone(int(pid_file.read_text()), pid_alive)


def test_a_claimed_refutation_that_is_not_one(standin, lean_repo):
    standin.scenario({"refutation": False})
    verdict = run(lean_repo, "Submissions/S001/MalloryFalseRefutation.json")
    assert verdict.reason == "not_a_refutation"
    assert verdict.checks["refutation"].ok is False
    assert lean_runs(standin) == 1


def test_a_real_refutation_link_passes(standin, lean_repo):
    standin.scenario({"refutation": True})
    verdict = run(lean_repo, "Submissions/S001/MalloryFalseRefutation.json")
    assert verdict.checks["refutation"].ok is True


def test_a_kernel_replay_refusal_is_kernel_rejected(standin, lean_repo):
    standin.scenario({"replay": "rejected"})
    verdict = run(lean_repo)
    assert verdict.reason == "kernel_rejected"
    assert "leanchecker found a problem in Submissions.S001.AliceDirect" in verdict.detail


def test_without_a_toolchain_manifest_and_policy_still_run(standin, lean_repo):
    standin.uninstall()
    verdict = run(lean_repo)
    assert verdict.reason == "toolchain_missing"
    assert verdict.checks["manifest"].ok and verdict.checks["static_policy"].ok
    assert verdict.checks["build"].ok is None
    assert "elan" in verdict.to_json()["next"]


def test_a_different_lean_version_is_refused_naming_both(standin, lean_repo):
    standin.scenario({"version": "4.29.0"})
    verdict = run(lean_repo)
    assert verdict.reason == "toolchain_missing"
    assert "4.29.0" in verdict.detail and "4.33.0" in verdict.detail
    assert standin.count("lake", "build") == 0


def test_a_crashing_lean_is_a_verifier_error(standin, lean_repo):
    standin.scenario({"lean": "crash"})
    verdict = run(lean_repo)
    assert verdict.reason == "verifier_error"


def test_a_source_the_policy_rejects_is_never_built(standin, lean_repo):
    verdict = run(lean_repo, "Submissions/S001/MalloryAxiom.json")
    assert verdict.reason == "forbidden_syntax"
    assert verdict.detail.startswith("Submissions/S001/MalloryAxiom.lean:")
    assert standin.calls() == []
    for name in ("toolchain", "build", "provenance", "anti_restatement", "kernel_replay"):
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
    import time

    for _ in range(50):
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return False
