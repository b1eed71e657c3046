"""`jig selftest` on this repo's Lean examples through the stand-in toolchain (tests/standin):
greens carry distinct term hashes, equal hashes are caught, and `--require-lean` turns a
missing toolchain into failures."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jigcli.commands.selftest import run

REPO = Path(__file__).resolve().parents[2]
GREENS = ["Submissions/S001/AliceDirect.json", "Submissions/S001/BobParity.json"]


@pytest.fixture
def copy(tmp_path, monkeypatch, copy_repo) -> Path:
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return copy_repo()


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


def test_ctrl_c_stops_a_hanging_build_at_once_and_exits_130(copy, standin, survivors):
    """A real `jig selftest` process: one example is rejected by the policy (never built),
    the other's build hangs with a grandchild; Ctrl-C must kill that build rather than wait
    out its 300 s timeout, report the finished example, and exit 130."""
    jig = [sys.executable, "-m", "jigcli"]
    marker = f"jig-hang-{time.monotonic_ns()}"
    standin.scenario({"build": "hang", "hang_marker": marker})
    rejected, hanging = (
        "Submissions/S001/MalloryAxiom.json",
        "Submissions/S001/MalloryWeakened.json",
    )
    process = subprocess.Popen(
        [*jig, "selftest", "--no-cache", "--jobs", "1", "--timeout", "300", rejected, hanging],
        cwd=copy,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    try:
        for _ in range(600):  # the hanging build starts its grandchild once it runs
            if survivors(marker):
                break
            time.sleep(0.1)
        assert survivors(marker), "the build never started"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)  # far less than the build's 300 s
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert rejected in out and "Traceback" not in err
    assert "interrupted: 1 of 2 examples were not verified" in err
    for _ in range(50):  # SIGKILL is sent; give the kernel a moment to finish it
        if not survivors(marker):
            break
        time.sleep(0.1)
    assert survivors(marker) == []
