"""`jig verify M1 M2 …`, folders and globs, as a user runs it: a real process, the stand-in
toolchain on PATH for the Lean side, real sandboxed checkers for certificates."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from jigcli.schemas import validate

ALICE = "Submissions/S001/AliceDirect.json"
BOB = "Submissions/S001/BobParity.json"
GREEN = "Certificates/C001/submissions/booker-sutherland.json"
RED = "Certificates/C001/submissions/off-by-one.json"
PERMUTED = "Certificates/C001/submissions/permuted.json"
BROKEN = "Certificates/C001/submissions/broken.json"
# What differs between two verifications of the same submission.
VOLATILE = ("timestamp", "timings_sec")


@pytest.fixture
def repo(copy_repo):
    root = copy_repo("Commons", "Statements", "Submissions", "Certificates")
    (root / BROKEN).write_text('{"schema": "conject.submission.v1", "kind": "certificate"\n')
    return root


def jig(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jigcli", *args],
        cwd=repo,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
    )


def steady(document: dict) -> dict:
    """The document without what two runs of the same verification differ in: the clock."""
    text = json.dumps({k: v for k, v in document.items() if k not in VOLATILE})
    return json.loads(re.sub(r"ran in [0-9.]+ s", "ran in … s", text))


def test_a_mixed_batch_gives_each_manifest_the_verdict_a_single_verify_gives(
    standin, repo, sandboxed
):
    standin.uninstall()  # no Lean here: the Lean proof is "not checked here"
    named = [GREEN, RED, ALICE, BROKEN]
    done = jig(repo, "verify", *named, "--json")
    document = json.loads(done.stdout)
    assert validate(document, "batch") == []
    assert done.returncode == 1 == document["exit_code"]  # a red outweighs "not checked here"
    assert [v["submission"] for v in document["verdicts"]] == named
    assert [v["reason"] for v in document["verdicts"]] == [
        "ok",
        "invalid_witness",
        "toolchain_missing",
        "bad_manifest",
    ]
    assert document["counts"] == {"green": 1, "red": 2, "not_checked_here": 1, "not_run": 0}
    # Progress still names each manifest as it starts, on stderr: stdout is the document's.
    assert all(f": {manifest}" in done.stderr for manifest in named), done.stderr
    for manifest, verdict in zip(named, document["verdicts"], strict=True):
        assert validate(verdict, "verdict") == []
        alone = json.loads(jig(repo, "verify", manifest, "--json").stdout)
        assert steady(verdict) == steady(alone), manifest


@pytest.mark.parametrize(
    ("named", "status"),
    [([GREEN, PERMUTED], 0), ([GREEN, ALICE], 4), ([ALICE, RED], 1)],
)
def test_the_exit_status_is_the_worst_verdicts(standin, repo, sandboxed, named, status):
    standin.uninstall()
    assert jig(repo, "verify", *named).returncode == status


def test_a_manifest_named_twice_by_path_folder_and_glob_is_verified_once(repo, sandboxed):
    named = [
        GREEN,
        "Certificates/C001/submissions",
        "Certificates/*/submissions/booker-*.json",
        f"./{GREEN}",
    ]
    document = json.loads(jig(repo, "verify", *named, "--json").stdout)
    # First-named order, then the folder's; a .json there that is no manifest (a witness may be
    # JSON, even broken JSON) is not one to verify.
    assert [v["submission"] for v in document["verdicts"]] == [GREEN, RED, PERMUTED]
    assert document["exit_code"] == 1
    done = jig(repo, "verify", *named)
    assert done.stderr.count("booker-sutherland.json") == 1  # started once
    assert done.stdout.count("booker-sutherland.json") == 1


def test_the_human_output_has_a_line_per_verdict_and_a_count(repo, sandboxed):
    done = jig(repo, "verify", GREEN, RED)
    lines = done.stdout.splitlines()
    assert lines[-1] == "2 manifests: 1 green, 1 red"
    assert any(line.endswith(f"{GREEN}  green") for line in lines)
    red = next(line for line in lines if RED in line)
    assert "red: invalid_witness" in red
    assert any(line.strip().startswith("Next:") for line in lines)
    # Progress on stderr names each manifest as it starts.
    assert f"[1/2]: {GREEN}" in done.stderr or f"[1/2]: {RED}" in done.stderr
    assert GREEN in done.stderr and RED in done.stderr


def test_out_writes_each_verdict_to_its_own_file_in_the_folder(repo, sandboxed, tmp_path):
    folder = tmp_path / "verdicts"
    done = jig(repo, "verify", GREEN, RED, "--out", str(folder), "--json")
    document = json.loads(done.stdout)
    written = sorted(path.name for path in folder.iterdir())
    assert written == [
        "Certificates__C001__submissions__booker-sutherland.json",
        "Certificates__C001__submissions__off-by-one.json",
    ]
    for verdict in document["verdicts"]:
        name = verdict["submission"].removesuffix(".json").replace("/", "__") + ".json"
        assert json.loads((folder / name).read_text()) == verdict


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([GREEN, "Certificates/C001/submissions/nope.json"], "no such manifest"),
        ([GREEN, "Submissions/S001/AliceDirect.lean"], "is not a manifest"),
        ([GREEN, "Certificates/*/nothing-*.json"], "matches no file"),
        ([GREEN, RED, "--out", "file.txt"], "is not a folder"),
        (["Commons"], "no submission manifest under Commons"),
        ([GREEN, RED, "--jobs", "0"], "--jobs"),
    ],
)
def test_a_usage_error_exits_2_before_anything_runs(repo, tmp_path, args, said):
    (repo / "file.txt").write_text("not a folder\n")
    done = jig(repo, "verify", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
    assert not (repo / ".jig" / "work" / "verify").exists()  # nothing started


def test_lean_submissions_share_the_trusted_build_and_nothing_else(standin, repo, confined):
    done = jig(repo, "verify", ALICE, BOB, "--json", "--jobs", "2")
    document = json.loads(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [v["verdict"] for v in document["verdicts"]] == ["green", "green"]
    trusted = [
        call
        for call in standin.calls()
        if call["tool"] == "lake" and "@Comparator/comparator" in call["argv"]
    ]
    assert len(trusted) == 1
    details = [v["checks"]["trusted_build"]["detail"] for v in document["verdicts"]]
    assert sum("built once for this run" in detail for detail in details) == 1
    # Each submission had its own run folder and its own comparator run.
    configs = [c["argv"][0] for c in standin.calls() if c["tool"] == "comparator"]
    assert len(configs) == 2 and configs[0] != configs[1]
    hashes = {v["elaborated_term_hash"] for v in document["verdicts"]}
    assert len(hashes) == 2


def test_a_failed_trusted_build_is_tried_again_by_the_next_submission(standin, repo, confined):
    standin.scenario({"trusted_build": "error"})
    done = jig(repo, "verify", ALICE, BOB, "--json", "--jobs", "1")
    document = json.loads(done.stdout)
    assert [v["reason"] for v in document["verdicts"]] == ["verifier_error", "verifier_error"]
    trusted = [c for c in standin.calls() if "@Comparator/comparator" in c["argv"]]
    assert len(trusted) == 2


def test_ctrl_c_keeps_the_verdicts_written_and_names_the_ones_not_run(
    standin, repo, sandboxed, confined, survivors, tmp_path
):
    marker = f"jig-hang-{time.monotonic_ns()}"
    standin.scenario({"build": "hang", "hang_marker": marker})
    folder = tmp_path / "verdicts"
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "jigcli", "verify", ALICE, GREEN, "--jobs", "2"),
            *("--out", str(folder), "--timeout", "300"),
        ],
        cwd=repo,
        env={**os.environ, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    written = folder / "Certificates__C001__submissions__booker-sutherland.json"
    try:
        for _ in range(600):
            if survivors(marker) and written.exists():
                break
            time.sleep(0.1)
        assert survivors(marker) and written.exists(), "the build or the checker never ran"
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130 and "Traceback" not in stderr
    assert json.loads(written.read_text())["verdict"] == "green"
    assert "not verified (Submissions/S001/AliceDirect.json)" in stderr
    assert "1 green" in stdout and "1 not run" in stdout
    assert not (folder / "Submissions__S001__AliceDirect.json").exists()
    for _ in range(50):
        if not survivors(marker):
            break
        time.sleep(0.1)
    assert survivors(marker) == []


def test_a_folder_verifies_a_manifest_with_a_mistyped_schema_rather_than_skip_it(repo, sandboxed):
    folder = repo / "Certificates" / "C001" / "submissions"
    typo = json.loads((repo / GREEN).read_text())
    typo["schema"] = "conject.submision.v1"
    (folder / "typo.json").write_text(json.dumps(typo))
    unschemed = {k: v for k, v in typo.items() if k != "schema"}
    (folder / "unschemed.json").write_text(json.dumps(unschemed))
    # A verdict jig wrote there (`--out`), and a witness in JSON, are not manifests.
    verdict = {"schema": "conject.verdict.v1", "statement_id": "C001", "verdict": "green"}
    (folder / "a-verdict.json").write_text(json.dumps(verdict))
    (folder / "witness.json").write_text('{"cubes": [1, 2')
    document = json.loads(jig(repo, "verify", str(folder.relative_to(repo)), "--json").stdout)
    by_name = {Path(v["submission"]).name: v for v in document["verdicts"]}
    expected = ["booker-sutherland.json", "off-by-one.json", "permuted.json"]
    assert sorted(by_name) == sorted([*expected, "typo.json", "unschemed.json"])
    for name in ("typo.json", "unschemed.json"):
        assert (by_name[name]["verdict"], by_name[name]["reason"]) == ("red", "bad_manifest")
