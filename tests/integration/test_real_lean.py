"""Every `Submissions/S001/*.json`, and comparator's own adversarial test projects restated as
jig submissions, through the real toolchain: comparator and lean4export at `v4.33.0` as this
repo's trusted build makes them, Lake building in jig's sandbox. Runs only where `lake` and
the Mathlib cache are present (the shipped GitHub workflow fetches both); skipped with the
reason otherwise.

comparator's projects (`tests/projects/` at `v4.33.0`, read with the search tool's fetch) each
pair a `Challenge.lean` and a `Solution.lean` and expect comparator's exit status. jig's shape
is one statement and one decl, so each is restated with the statement in `Statements/` and
the solution's theorem as the decl. The static policy would refuse most of them before any
build (an `axiom`, `run_elab`, `prelude`); these tests turn it off, so what they show is that
comparator alone refuses them. Not restated: `def_hole*` (jig's statements have no definition
holes), `theorem_hole_issue` (several theorems in one challenge), `numeric_namespace` (a
module path `Challenge/12.34/5.lean`, which jig's manifest names refuse), `char_ofnat_issue`
(a `prelude` file redefining `False` and `Char`, which cannot be imported beside the
statement's `Init`; jig's solution imports both, so it fails to build before comparator looks).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from jigcli.lean import backend, pipeline
from jigcli.repo import Repo
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

ROOT = Path(__file__).resolve().parents[2]
REPO = Repo(ROOT)
MANIFESTS = sorted((ROOT / "Submissions" / "S001").glob("*.json"))

pytestmark = pytest.mark.lean

STATEMENTS = {
    "T001": "False",
    "T002": "∀ n m : Nat, n + m = m + n",
}
# (name, statement, body of the submitted module, expected verdict, expected reasons)
PROJECTS = [
    (
        "SimpleMatch",
        "T002",
        "theorem proof : ∀ n m : Nat, n + m = m + n := by\n  grind\n",
        "green",
        {"ok"},
    ),
    (
        "SimpleAxiomIssue",
        "T002",
        "axiom helper {α : Sort u} : α\n\n"
        "theorem proof : ∀ n m : Nat, n + m = m + n := by\n  exact helper\n",
        "red",
        {"disallowed_axiom"},
    ),
    (
        "SimpleMismatch",
        "T002",
        "axiom proof (n m : Nat) : m + m = m + m\n",
        "red",
        {"restatement"},
    ),
    (
        "OpaqueValue",
        "T001",
        "axiom f : False\nopaque v : False := f\ntheorem proof : False := v\n",
        "red",
        {"disallowed_axiom"},
    ),
    (
        "PrimitiveIssue",
        "T001",
        "def Nat.gcd (_ _ : Nat) : Nat := 0\n\n"
        "theorem thm1 a b : Nat.gcd a b = 0 := by\n  unfold Nat.gcd\n  rfl\n\n"
        "theorem thm2 : Nat.gcd 1 1 = 1 := rfl\n\n"
        "theorem proof : False :=\n  Nat.noConfusion <| Eq.trans (thm1 1 1).symm thm2\n",
        "red",
        {"build_failed", "shadowed_statement", "kernel_rejected"},
    ),
    (
        "OleanIssue",
        "T001",
        "open Lean\n\n"
        "unsafe def badNatUnsafe : Nat := unsafeCast (-4294967296 : Int)\n\n"
        "@[implemented_by badNatUnsafe] opaque badNatVal : Nat\n\n"
        "run_elab\n  addDecl <| .defnDecl {\n"
        '    name        := .str .anonymous "badNat"\n    levelParams := []\n'
        "    type        := .const ``Nat []\n    value       := .lit <| .natVal badNatVal\n"
        "    hints       := .opaque\n    safety      := .safe\n  }\n\n"
        "theorem proof : False := by\n"
        "  have h0 : ¬badNat ≤ 9223372036854775807 := by decide\n"
        "  have h1 : ¬9223372036854775807 < badNat := by decide\n  omega\n",
        "red",
        {"kernel_rejected", "build_failed"},
    ),
]


def _why_not() -> str | None:
    if backend.find_program("lake") is None:
        return "no `lake` on PATH or in ~/.elan/bin: install elan to run the real-Lean tests"
    if not backend.mathlib_cache(REPO).is_dir():
        return "no Mathlib cache in .lake/packages/mathlib/.lake/build: run `lake exe cache get`"
    return None


@pytest.fixture(scope="module")
def real_lean() -> None:
    reason = _why_not()
    if reason:
        pytest.skip(reason)


@pytest.mark.parametrize("manifest", MANIFESTS, ids=lambda p: p.stem)
def test_example_meets_its_expectation(real_lean, manifest):
    expected = json.loads(manifest.read_text(encoding="utf-8"))
    verdict = verify(manifest, REPO, VerifyOptions(timeout=1800))
    assert (verdict.verdict, verdict.reason) == (
        expected["expect"],
        expected.get("expect_reason", "ok"),
    ), f"{verdict.detail}\n{json.dumps(verdict.to_json()['checks'], indent=1)}"


def test_the_two_green_proofs_hash_differently(real_lean):
    hashes = []
    for name in ("AliceDirect", "BobParity"):
        manifest = ROOT / "Submissions" / "S001" / f"{name}.json"
        verdict = verify(manifest, REPO, VerifyOptions(timeout=1800))
        assert verdict.green, verdict.detail
        assert verdict.extra["kernels"][0] == "lean"
        hashes.append(verdict.elaborated_term_hash)
    assert hashes[0] != hashes[1]


@pytest.fixture
def projects_repo(real_lean, tmp_path) -> Repo:
    """This repo with comparator's projects as statements and submissions; its `.lake` is the
    real one (the Mathlib cache and the trusted build are reused, never written by a run)."""
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("lakefile.toml", "lake-manifest.json", "lean-toolchain"):
        shutil.copy2(ROOT / name, root / name)
    for folder in ("Commons", "Statements"):
        shutil.copytree(ROOT / folder, root / folder)
    (root / ".lake").symlink_to(ROOT / ".lake")
    for sid, text in STATEMENTS.items():
        (root / "Statements" / f"{sid}.lean").write_text(
            f"namespace Statements.{sid}\n\nabbrev statement : Prop := {text}\n\n"
            f"theorem target : statement := sorry\n\nend Statements.{sid}\n",
            encoding="utf-8",
        )
    for name, sid, body, *_ in PROJECTS:
        folder = root / "Submissions" / sid
        folder.mkdir(parents=True, exist_ok=True)
        module = f"Submissions.{sid}.{name}"
        header = "import Lean\n\n" if "Lean" in body else ""
        (folder / f"{name}.lean").write_text(
            f"{header}namespace {module}\n\n{body}\nend {module}\n", encoding="utf-8"
        )
        manifest = {
            "schema": "conject.submission.v1",
            "kind": "lean",
            "statement_id": sid,
            "module": module,
            "decl": f"{module}.proof",
            "author": "comparator-tests",
        }
        (folder / f"{name}.json").write_text(json.dumps(manifest), encoding="utf-8")
    return Repo(root)


@pytest.mark.parametrize(
    ("name", "sid", "body", "verdict", "reasons"), PROJECTS, ids=[p[0] for p in PROJECTS]
)
def test_comparators_own_projects_as_jig_submissions(
    projects_repo, monkeypatch, name, sid, body, verdict, reasons
):
    def policy_off(submission, found: Verdict, context) -> bool:
        return found.record("static_policy", True, "turned off by the test: comparator decides")

    monkeypatch.setattr(pipeline, "_policy", policy_off)
    manifest = projects_repo.root / "Submissions" / sid / f"{name}.json"
    found = verify(manifest, projects_repo, VerifyOptions(timeout=1800))
    assert found.verdict == verdict, f"{found.reason}: {found.detail}"
    assert found.reason in reasons, found.detail
