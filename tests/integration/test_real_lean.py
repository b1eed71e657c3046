"""Every `Submissions/S001/*.json` through the real Lean toolchain, checked against its
`expect` / `expect_reason`. Runs only where `lake` and the Mathlib cache are present (the
shipped GitHub workflow fetches both); skipped with the reason otherwise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.lean import backend
from jigcli.repo import Repo
from jigcli.verify import VerifyOptions, verify

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
        hashes.append(verdict.elaborated_term_hash)
    assert hashes[0] != hashes[1]
