"""`jig verify` on the repo's certificate examples, through the real command line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jigcli.certificates import isolation
from jigcli.schemas import validate

REPO = Path(__file__).resolve().parents[2]
C001 = "Certificates/C001/submissions"


@pytest.fixture(autouse=True)
def _sandboxed():
    python = isolation.default_python()
    if isolation.choose(python) is None:
        pytest.skip("no isolation route works here: " + isolation.refusal(python))


def _jig(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jigcli", "verify", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _verdict(manifest: str) -> tuple[int, dict]:
    done = _jig(manifest, "--json")
    verdict = json.loads(done.stdout)  # exactly one JSON document, nothing else
    assert validate(verdict, "verdict") == []
    return done.returncode, verdict


def test_the_booker_sutherland_witness_is_green():
    code, verdict = _verdict(f"{C001}/booker-sutherland.json")
    assert (code, verdict["verdict"], verdict["kind"]) == (0, "green", "certificate")
    canonical = "-80538738812075974 12602123297335631 80435758145817515"
    assert f"{canonical}" in verdict["checker_stdout"]
    assert verdict["isolation"] not in (None, "none")


def test_a_permutation_of_the_witness_has_the_same_term_hash():
    _, original = _verdict(f"{C001}/booker-sutherland.json")
    code, permuted = _verdict(f"{C001}/permuted.json")
    assert code == 0
    assert permuted["elaborated_term_hash"] == original["elaborated_term_hash"]
    assert permuted["witness_hash"] != original["witness_hash"]


def test_a_wrong_triple_is_red_invalid_witness():
    code, verdict = _verdict(f"{C001}/off-by-one.json")
    assert (code, verdict["reason"]) == (1, "invalid_witness")
    assert "not 42" in verdict["detail"]


@pytest.mark.parametrize("manifest", sorted(REPO.glob("Certificates/*/submissions/*.json")))
def test_every_certificate_example_meets_its_expectation(manifest):
    expected = json.loads(manifest.read_text())
    code, verdict = _verdict(str(manifest.relative_to(REPO)))
    assert verdict["verdict"] == expected["expect"]
    assert verdict["reason"] == expected.get("expect_reason", "ok")
    assert code == (0 if expected["expect"] == "green" else 1)


def test_the_human_verdict_names_the_route_and_the_checks():
    done = _jig(f"{C001}/off-by-one.json")
    assert done.returncode == 1
    assert "Red · does not prove the canonical statement: invalid_witness" in done.stdout
    assert "isolation" in done.stdout and "not 42" in done.stdout


def test_an_unknown_lane_is_a_usage_error():
    done = _jig(f"{C001}/booker-sutherland.json", "--lane", "turbo")
    assert done.returncode == 2 and "--lane" in done.stderr
