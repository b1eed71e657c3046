"""`jig verify` on the repo's certificate examples, through the real command line."""

import functools
import json
import os
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


def _problem_repo(root: Path, checker: Path) -> Path:
    """A repo holding one certificate problem whose checker is `checker`, and a manifest."""
    problem = root / "Certificates" / "C900"
    (problem / "submissions").mkdir(parents=True)
    (root / "jig.yaml").write_text("")
    (problem / "checker.py").write_bytes(checker.read_bytes())
    limits = {"wall_sec": 20, "cpu_sec": 10, "address_space_mb": 512, "output_bytes": 65536}
    spec = {"schema": "conject.certificate.v1", "id": "C900", "title": "t", "statement": "s"}
    (problem / "spec.json").write_text(
        json.dumps({**spec, "witness_format": "w", "limits": limits})
    )
    (problem / "submissions" / "x.witness").write_text("w")
    manifest = problem / "submissions" / "x.json"
    fields = {"schema": "conject.submission.v1", "kind": "certificate", "statement_id": "C900"}
    manifest.write_text(json.dumps({**fields, "witness": "x.witness"}))
    return manifest


def test_a_checkers_escape_sequences_and_newlines_reach_no_terminal_or_summary(tmp_path):
    hostile = REPO / "tests" / "data" / "certificates" / "hostile" / "terminal_tricks.py"
    manifest = _problem_repo(tmp_path / "repo", hostile)
    summary = tmp_path / "summary.md"
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary)}
    run = functools.partial(
        subprocess.run, cwd=tmp_path / "repo", capture_output=True, text=True, env=env
    )
    human = run([sys.executable, "-m", "jigcli", "verify", str(manifest)])
    assert human.returncode == 1 and "invalid_witness" in human.stdout
    for text in (human.stdout, human.stderr, summary.read_text()):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert not any(line.lstrip().startswith("● Green") for line in text.splitlines())
    assert "\\x1b]52;c;" in human.stdout  # shown, not obeyed
    as_json = run([sys.executable, "-m", "jigcli", "verify", str(manifest), "--json"])
    verdict = json.loads(as_json.stdout)
    assert "\x1b]0;pwned\x07" in verdict["detail"]  # the JSON keeps the exact text
    assert "\n● Green" in verdict["detail"]
