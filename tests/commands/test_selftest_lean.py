"""`jig selftest` on this repo's Lean examples through the stand-in toolchain (tests/standin):
greens carry distinct term hashes, equal hashes are caught, and `--require-lean` turns a
missing toolchain into failures."""

import json
import shutil
from pathlib import Path

import pytest

from jigcli.commands.selftest import run

REPO = Path(__file__).resolve().parents[2]
GREENS = ["Submissions/S001/AliceDirect.json", "Submissions/S001/BobParity.json"]


@pytest.fixture
def copy(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    root = tmp_path / "repo"
    for name in ("Commons", "Statements", "Submissions", "Verify"):
        shutil.copytree(REPO / name, root / name, ignore=shutil.ignore_patterns(".lake"))
    for name in ("lakefile.toml", "lean-toolchain", "lake-manifest.json"):
        shutil.copy2(REPO / name, root / name)
    return root


def selftest(root: Path, capsys, *, require_lean: bool = True) -> tuple[int, dict]:
    code = run(
        [root / rel for rel in GREENS],
        jobs=2,
        shard=None,
        use_cache=False,
        require_lean=require_lean,
        as_json=True,
        timeout=60.0,
        budget=None,
        allow_no_netns=False,
        root=root,
    )
    return code, json.loads(capsys.readouterr().out)


def test_two_different_lean_proofs_pass_with_different_hashes(copy, capsys, standin):
    code, document = selftest(copy, capsys)
    assert code == 0, document
    hashes = {e["elaborated_term_hash"] for e in document["results"]}
    assert len(hashes) == 2 and all(h and h.startswith("sha256:") for h in hashes)


def test_two_lean_proofs_with_one_term_hash_fail(copy, capsys, standin):
    standin.scenario({"term": "(fun n => Nat.even_mul_succ_self n)"})
    code, document = selftest(copy, capsys)
    assert code == 1 and document["failed"] == 2
    assert len({e["elaborated_term_hash"] for e in document["results"]}) == 1


def test_require_lean_fails_where_no_toolchain_is(copy, capsys, standin):
    standin.uninstall()
    code, document = selftest(copy, capsys)
    assert code == 1 and document["failed"] == 2
    assert {e["reason"] for e in document["results"]} == {"toolchain_missing"}
    code, document = selftest(copy, capsys, require_lean=False)
    assert code == 0 and document["skipped"] == 2
