"""`jig pose certificate` on real git repositories, its checker run in this machine's sandbox."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jigcli.certificates import isolation
from jigcli.certificates.spec import read_spec
from jigcli.errors import UsageError
from jigcli.pose.certificate import CertificatePose, pose_certificate
from jigcli.repo import Repo
from jigcli.sandbox import probe as probing
from jigcli.schemas import validate

CERTS = Path(__file__).resolve().parents[2] / "tests" / "data" / "pose" / "certificates"
CHECKER = CERTS / "square_checker.py"
SEVEN, MINUS_SEVEN, SIX, WORD = (CERTS / f for f in ("seven.txt", "minus-seven.txt", "six.txt",
                                                     "word.txt"))  # fmt: skip


@pytest.fixture(autouse=True)
def _a_sandbox_route():
    if isolation.choose(isolation.default_python()) is None:
        pytest.skip(
            "no isolation route works here: " + isolation.refusal(isolation.default_python())
        )


def _request(**changes) -> CertificatePose:
    fields = {
        "problem_id": "C100",
        "title": "A square root of 49",
        "statement": "Exhibit an integer whose square is 49.",
        "witness_format": "one decimal integer",
        "checker": CHECKER,
        "green": SEVEN,
        "red": [SIX],
        **changes,
    }
    return CertificatePose(**fields)


def _pose(verifier, **changes):
    return pose_certificate(Repo(verifier.root), _request(**changes))


def _refused(verifier, **changes) -> str:
    return verifier.refused(lambda: _pose(verifier, **changes))


def test_posing_writes_the_problem_after_the_checker_judged_every_example(verifier):
    posed = _pose(verifier)
    folder = verifier.root / "Certificates" / "C100"
    assert posed.files == [
        "Certificates/C100/spec.json",
        "Certificates/C100/checker.py",
        "Certificates/C100/submissions/seven.witness",
        "Certificates/C100/submissions/seven.json",
        "Certificates/C100/submissions/six.witness",
        "Certificates/C100/submissions/six.json",
    ]
    spec = read_spec(folder)  # valid by the schema, its id the folder's name
    assert (spec.title, spec.limits.wall_sec, spec.limits.cpu_sec) == (
        "A square root of 49",
        20,
        10,
    )
    assert (folder / "checker.py").read_bytes() == CHECKER.read_bytes()
    assert (folder / "submissions" / "seven.witness").read_bytes() == SEVEN.read_bytes()
    green = json.loads((folder / "submissions" / "seven.json").read_text())
    red = json.loads((folder / "submissions" / "six.json").read_text())
    assert green == {
        "schema": "conject.submission.v1",
        "kind": "certificate",
        "statement_id": "C100",
        "witness": "seven.witness",
        "expect": "green",
        "expect_reason": "ok",
    }
    assert (red["expect"], red["expect_reason"]) == ("red", "invalid_witness")
    assert validate(green, "submission") == validate(red, "submission") == []
    assert [(j.example.expect, j.outcome.reason) for j in posed.judged] == [
        ("green", "ok"),
        ("red", "invalid_witness"),
    ]
    assert all(j.outcome.isolation not in (None, "none") for j in posed.judged)


def test_the_given_limits_go_into_the_spec(verifier):
    _pose(verifier, wall_sec=5.5, cpu_sec=3, address_space_mb=256, output_bytes=4096)
    limits = read_spec(verifier.root / "Certificates" / "C100").limits
    assert (limits.wall_sec, limits.cpu_sec, limits.address_space_mb, limits.output_bytes) == (
        5.5,
        3,
        256,
        4096,
    )


def test_limits_past_the_default_lane_are_run_lowered_and_said(verifier):
    posed = _pose(verifier, wall_sec=100)
    assert posed.lowered == ["wall_sec 100 → 60"]


def test_a_green_witness_the_checker_rejects_is_refused(verifier):
    sentence = _refused(verifier, green=SIX, red=[])
    assert sentence.startswith("the green witness six.txt does not come out green: invalid_witness")
    assert "6^2 = 36" in sentence


def test_a_red_witness_the_checker_accepts_is_refused(verifier):
    sentence = _refused(verifier, red=[SIX, MINUS_SEVEN])
    assert sentence.startswith("the red witness minus-seven.txt comes out green")


def test_a_checker_that_crashes_on_a_red_witness_is_refused(verifier):
    sentence = _refused(verifier, red=[WORD])
    assert sentence.startswith("the checker fails on the red witness word.txt (checker_error")


def test_no_sandbox_is_refused_unless_allowed(verifier, monkeypatch):
    monkeypatch.setattr(probing, "choose", lambda job, allow_none=False, only=None: None)
    assert "--allow-no-netns" in _refused(verifier)


@pytest.mark.parametrize("problem_id", ["C.1", "../C1", "C/1", "-C1", ""])
def test_an_id_that_is_not_a_plain_name_is_refused(verifier, problem_id):
    assert f"id {problem_id!r} is not a plain name" in _refused(verifier, problem_id=problem_id)


def test_an_existing_problem_is_refused(verifier):
    _pose(verifier)
    assert "Certificates/C100 already exists" in _refused(verifier, green=MINUS_SEVEN)


def test_a_problem_id_used_before_stays_taken(verifier):
    _pose(verifier, commit=True)
    verifier.git.git.rm("-r", "-q", "Certificates/C100")
    verifier.git.git.commit("-m", "Remove C100")
    assert "Certificates/C100 existed before" in _refused(verifier)


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"cpu_sec": 0}, "limits.cpu_sec: 0 is less than the minimum of 1"),
        ({"title": "  "}, "title:"),
    ],
)
def test_a_spec_the_schema_refuses_is_refused(verifier, changes, said):
    sentence = _refused(verifier, **changes)
    assert sentence.startswith("the spec would break its schema") and said in sentence


def test_a_witness_larger_than_a_witness_may_be_is_refused(verifier, tmp_path):
    big = tmp_path / "big.txt"
    big.write_bytes(b"7" + b" " * (1024 * 1024))
    assert "more than the 1048576 a witness may have" in _refused(verifier, green=big)


def test_two_witnesses_with_one_name_are_refused(verifier, tmp_path):
    (tmp_path / "seven.dat").write_bytes(b"6\n")
    sentence = _refused(verifier, red=[tmp_path / "seven.dat"])
    assert "would both become submissions/seven.witness" in sentence


def test_a_missing_checker_is_a_usage_error(verifier, tmp_path):
    with pytest.raises(UsageError, match="--checker"):
        _pose(verifier, checker=tmp_path / "none.py")


def test_commit_holds_exactly_the_new_files_with_the_message(verifier):
    posed = _pose(verifier, commit=True)
    head = verifier.git.head.commit
    assert head.message.strip() == "Add certificate problem C100"
    assert sorted(head.stats.files) == sorted(posed.files)
    assert verifier.status() == ""
