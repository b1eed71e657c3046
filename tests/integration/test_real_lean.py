"""Every `Submissions/S001/*.json` through the real Lean toolchain and the real judge
(`Verify/Judge.lean`) and exporter (`Verify/Export.lean`), built by the pipeline's trusted
build,, checked against its `expect` /
`expect_reason`; and the judge's report read directly. Runs only where `lake` and the Mathlib
cache are present (the shipped GitHub workflow fetches both); skipped with the reason
otherwise."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jigcli.lean import backend
from jigcli.lean.build import build, export
from jigcli.lean.header import imports
from jigcli.lean.judge import JudgeRequest, read_report
from jigcli.repo import Repo
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

ROOT = Path(__file__).resolve().parents[2]
REPO = Repo(ROOT)
MANIFESTS = sorted((ROOT / "Submissions" / "S001").glob("*.json"))

pytestmark = pytest.mark.lean


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
def test_example_meets_its_expectation(real_lean, manifest, tmp_path):
    expected = json.loads(manifest.read_text(encoding="utf-8"))
    options = VerifyOptions(timeout=1200, work_dir=tmp_path / "work")
    verdict = verify(manifest, REPO, options)
    assert (verdict.verdict, verdict.reason) == (
        expected["expect"],
        expected.get("expect_reason", "ok"),
    ), f"{verdict.detail}\n{json.dumps(verdict.to_json()['checks'], indent=1)}"


def test_the_two_green_proofs_hash_differently(real_lean, tmp_path):
    hashes = []
    for name in ("AliceDirect", "BobParity"):
        manifest = ROOT / "Submissions" / "S001" / f"{name}.json"
        verdict = verify(manifest, REPO, VerifyOptions(timeout=1200, work_dir=tmp_path / name))
        assert verdict.green, verdict.detail
        assert verdict.evidence["judge_output"]
        hashes.append(verdict.elaborated_term_hash)
    assert hashes[0] != hashes[1]


def _judged(request: JudgeRequest, tmp_path: Path) -> dict[str, Any]:
    """The real judge run by hand on the export of a module the real sandboxed build made and
    the real exporter exported, in the same sandbox."""
    toolchain = backend.detect(REPO)
    targets = [backend.JUDGE_EXE, backend.EXPORTER_EXE, request.statement_module, "Commons"]
    assert backend.build(toolchain, REPO, targets, timeout=1200).ok
    paths = backend.lean_paths(toolchain, REPO, timeout=60)
    source = REPO.module_path(request.module)
    folder = tmp_path / "build"
    folder.mkdir()
    text = source.read_bytes()
    built = build(paths, REPO, request.module, text, REPO.rel(source), folder, wall_sec=1200)
    assert built.reason == "ok" and built.sandbox is not None, f"{built.detail}\n{built.output}"
    exported = export(paths, REPO, request.module, folder, built.sandbox, wall_sec=1200)
    assert exported.export is not None, f"{exported.detail}\n{exported.output}"
    copy, out = tmp_path / "export.ndjson", tmp_path / "report.json"
    copy.write_bytes(exported.export.data)
    args = request.args(out, copy, imports(text.decode()))
    result = backend.judge(toolchain, REPO, args, timeout=1200)
    assert result.ok and result.stdout.strip() == "", result.output
    return read_report(out, request)


def test_the_real_exporter_writes_lean4exports_format_with_helpers_before_their_users(
    real_lean, tmp_path
):
    module = "Submissions.S001.BobParity"
    toolchain = backend.detect(REPO)
    assert backend.build(toolchain, REPO, [backend.EXPORTER_EXE], timeout=1200).ok
    paths = backend.lean_paths(toolchain, REPO, timeout=60)
    source = REPO.module_path(module)
    folder = tmp_path / "build"
    folder.mkdir()
    built = build(paths, REPO, module, source.read_bytes(), REPO.rel(source), folder, wall_sec=1200)
    assert built.sandbox is not None, built.detail
    exported = export(paths, REPO, module, folder, built.sandbox, wall_sec=1200)
    assert exported.export is not None, exported.detail
    names = exported.export.declarations
    assert names.index(f"{module}.parity_split") < names.index(f"{module}.proof")


def test_the_real_judge_replays_alice_and_finds_only_trusted_axioms(real_lean, tmp_path):
    module = "Submissions.S001.AliceDirect"
    report = _judged(JudgeRequest("S001", module, f"{module}.proof"), tmp_path)
    assert report["failure"] is None
    assert report["replay"]["verdict"] == "accepted"
    assert report["bridge"]["verdict"] == "accepted"
    assert set(report["axioms"]) <= {"propext", "Classical.choice", "Quot.sound"}
    assert report["imports"]["refused"] == []


def test_the_real_judge_refuses_the_weakened_statement_in_the_kernel(real_lean, tmp_path):
    module = "Submissions.S001.MalloryWeakened"
    report = _judged(JudgeRequest("S001", module, f"{module}.proof"), tmp_path)
    assert report["bridge"]["verdict"] == "rejected"
    assert report["types"]["submitted"]


def test_the_real_judge_replays_a_recursive_definition_without_its_compiler_copy(
    real_lean, tmp_path
):
    module = "Submissions.S001.CarolRecursive"
    report = _judged(JudgeRequest("S001", module, f"{module}.proof"), tmp_path)
    assert report["failure"] is None
    # `tri._unsafe_rec`, the partial copy Lean's compiler adds, is not user code to refuse
    assert report["unchecked"] == []
    assert report["replay"]["verdict"] == "accepted"
    assert report["bridge"]["verdict"] == "accepted"
