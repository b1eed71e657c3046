"""`jig verify` as a user runs it: a real process, the stand-in toolchain on PATH."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from jigcli.schemas import validate

ALICE = "Submissions/S001/AliceDirect.json"


@pytest.fixture
def repo(copy_repo):
    return copy_repo()


def jig(repo, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jigcli", *args],
        cwd=repo,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_green_exits_zero_and_says_why(standin, repo):
    done = jig(repo, "verify", ALICE)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("● Green · proves the canonical statement\n")
    assert "comparator accepted JigRun.goal (kernels: lean)" in done.stdout
    assert not (repo / ".jig" / "work").exists()  # each run's folder is outside the repo


def test_red_exits_one_and_says_what_next(standin, repo):
    standin.scenario({"axioms": ["propext", "sorryAx"]})
    done = jig(repo, "verify", ALICE)
    assert done.returncode == 1
    assert done.stdout.startswith("● Red · does not prove the canonical statement: sorry — ")
    assert "Next:" in done.stdout


def test_a_failed_check_says_failed_in_words_not_only_in_colour(standin, repo):
    standin.scenario({"axioms": ["propext", "sorryAx"]})
    lines = jig(repo, "verify", ALICE).stdout.splitlines()
    axioms = next(line for line in lines if line.strip().startswith("● axioms"))
    manifest = next(line for line in lines if line.strip().startswith("● manifest"))
    assert "failed: " in axioms and "failed" not in manifest


def test_json_prints_exactly_one_valid_verdict(standin, repo):
    done = jig(repo, "verify", ALICE, "--json")
    document = json.loads(done.stdout)
    assert validate(document, "verdict") == []
    assert document["verdict"] == "green" and done.returncode == 0


def test_out_writes_the_verdict_file(standin, repo, tmp_path):
    target = tmp_path / "verdicts" / "v.json"
    done = jig(repo, "verify", ALICE, "--out", str(target), "--json")
    assert json.loads(target.read_text()) == json.loads(done.stdout) | {
        "timestamp": json.loads(target.read_text())["timestamp"]
    }


def test_a_missing_manifest_is_one_sentence_and_exit_two(standin, repo):
    done = jig(repo, "verify", "Submissions/S001/Nope.json")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("jig: ") and len(done.stderr.strip().splitlines()) == 1


def test_a_malformed_manifest_is_a_red_bad_manifest(standin, repo):
    (repo / "Submissions/S001/Broken.json").write_text('{"schema": "conject.submission.v1"')
    done = jig(repo, "verify", "Submissions/S001/Broken.json", "--json")
    assert done.returncode == 1
    document = json.loads(done.stdout)
    assert document["reason"] == "bad_manifest"
    assert validate(document, "verdict") == []


def test_without_lean_the_verdict_is_toolchain_missing_and_exit_four(standin, repo):
    standin.uninstall()
    done = jig(repo, "verify", ALICE, "--json")
    document = json.loads(done.stdout)
    # red for CI, but a script can tell "not checked here" (4) from a wrong proof (1)
    assert (done.returncode, document["verdict"], document["reason"]) == (
        4,
        "red",
        "toolchain_missing",
    )
    assert document["checks"]["static_policy"]["ok"] is True


def test_without_lean_a_person_reads_not_checked_here_and_what_to_install(standin, repo):
    standin.uninstall()
    done = jig(repo, "verify", ALICE)
    headline = done.stdout.splitlines()[0]
    assert headline == "○ Not checked here: toolchain_missing — no matching Lean toolchain here"
    assert "Red" not in headline and "Install elan" in done.stdout
    # What is missing is said once, on the failed check's line, not again above the checks.
    assert done.stdout.count("lake and lean not found") == 1
    assert "● toolchain" in done.stdout.splitlines()[4]


@pytest.mark.parametrize("suffix", [".lean", ".tex", ".pdf"])
def test_a_source_where_the_manifest_belongs_is_a_usage_error_naming_the_manifest(
    standin, repo, suffix
):
    (repo / "Submissions/S001/AliceDirect.tex").write_text("\\documentclass{article}")
    (repo / "Submissions/S001/AliceDirect.pdf").write_bytes(b"%PDF-1.5")
    done = jig(repo, "verify", "Submissions/S001/AliceDirect" + suffix)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"jig: Submissions/S001/AliceDirect{suffix} is not a manifest; "
        "pass Submissions/S001/AliceDirect.json, which names it.\n"
    )
    assert standin.calls() == []


def test_out_naming_a_link_is_refused_before_anything_runs(standin, repo, tmp_path):
    outside = tmp_path / "outside.json"
    outside.write_text("untouched")
    link = tmp_path / "v.json"
    link.symlink_to(outside)
    done = jig(repo, "verify", ALICE, "--out", str(link))
    assert done.returncode == 2 and "is a symbolic link" in done.stderr
    assert standin.calls() == [] and outside.read_text() == "untouched"


def test_out_below_a_file_is_refused_before_anything_runs(standin, repo, tmp_path):
    (tmp_path / "plain").write_text("")
    done = jig(repo, "verify", ALICE, "--out", str(tmp_path / "plain" / "v.json"))
    assert done.returncode == 2 and "is not a folder" in done.stderr
    assert standin.calls() == []


def test_out_naming_a_folder_is_refused_before_anything_runs(standin, repo):
    done = jig(repo, "verify", ALICE, "--out", "Submissions")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("jig: Submissions is a folder")
    assert standin.calls() == []
    assert not (repo / "Submissions.tmp").exists()


def test_a_folder_is_every_manifest_in_it(standin, repo):
    """A folder is verified as its manifests are (`tests/commands/test_verify_batch.py`)."""
    done = jig(repo, "verify", "Submissions/S001", "--json")
    document = json.loads(done.stdout)
    assert validate(document, "batch") == []
    assert len(document["verdicts"]) == 9
    assert done.returncode == 1  # the examples include reds


def test_the_github_step_summary_gets_the_verdict_and_each_check(standin, repo, tmp_path):
    standin.scenario({"axioms": ["propext", "sorryAx"]})
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    done = jig(repo, "verify", ALICE, "--json", env={"GITHUB_STEP_SUMMARY": str(summary)})
    document = json.loads(done.stdout)  # --json still prints one document and nothing else
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert f"| `{ALICE}` | `S001` | red | sorry |" in text
    for name, check in document["checks"].items():
        result = {True: "✅ ok", False: "❌ failed", None: "⏭️ not run"}[check["ok"]]
        assert f"| {name} | {result} |" in text


def test_an_unwritable_step_summary_is_a_warning_not_a_failure(standin, repo, tmp_path):
    summary = tmp_path / "no-such-dir" / "summary.md"
    done = jig(repo, "verify", ALICE, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert done.returncode == 0, done.stderr
    assert "warning: could not append to GITHUB_STEP_SUMMARY" in done.stderr


def test_ctrl_c_kills_a_hanging_build_and_exits_130(standin, repo, survivors):
    """Ctrl-C reaches only jig's main thread; the build it started must die with it."""
    import signal
    import time

    marker = f"jig-hang-{time.monotonic_ns()}"
    standin.scenario({"build": "hang", "hang_marker": marker})
    process = subprocess.Popen(
        [sys.executable, "-m", "jigcli", "verify", ALICE, "--timeout", "300"],
        cwd=repo,
        env={**os.environ, "NO_COLOR": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):  # the hanging build starts its grandchild once it runs
            if survivors(marker):
                break
            time.sleep(0.1)
        assert survivors(marker), "the build never started"
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)  # far less than the 300 s budget
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130 and "Traceback" not in err
    assert out == ""  # no verdict is shown for a run that did not finish
    said = err.strip().splitlines()[-1]
    assert said.startswith("jig: interrupted while building and judging the proof with comparator")
    assert said.endswith(
        f"{ALICE} has no verdict and nothing was written; run jig verify again to check it."
    )
    for _ in range(50):
        if not survivors(marker):
            break
        time.sleep(0.1)
    assert survivors(marker) == []


@pytest.mark.parametrize("planted", ["out-link", "tmp-link"])
def test_out_never_writes_through_a_link(standin, repo, tmp_path, planted):
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched")
    target = tmp_path / "verdicts" / "v.json"
    target.parent.mkdir()
    if planted == "out-link":
        target.symlink_to(outside)
    else:  # what the old writer used as its temporary file
        (tmp_path / "verdicts" / "v.json.tmp").symlink_to(outside)
    done = jig(repo, "verify", ALICE, "--out", str(target))
    assert outside.read_text() == "untouched"
    if planted == "out-link":
        assert done.returncode == 2 and "is a symbolic link" in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    else:
        assert done.returncode == 0 and json.loads(target.read_text())["verdict"] == "green"


@pytest.mark.parametrize("folder", [".jig", ".jig/work"])
def test_a_committed_jig_link_is_refused_before_anything_runs(standin, repo, tmp_path, folder):
    outside = tmp_path / "outside"
    outside.mkdir()
    link = repo / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    done = jig(repo, "verify", ALICE)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("jig: ") and "is a symbolic link" in done.stderr
    assert "run jig verify again" in done.stderr and "Traceback" not in done.stderr
    assert list(outside.iterdir()) == [] and standin.calls() == []


def test_paths_are_shown_from_the_working_folder_so_path_line_opens(standin, repo):
    folder = repo / "Submissions/S001"
    (folder / "Opaque.lean").write_text(
        "import Mathlib\nnamespace Submissions.S001.Opaque\n"
        "theorem proof : True := by native_decide\nend Submissions.S001.Opaque\n"
    )
    (folder / "Opaque.json").write_text(
        json.dumps(
            {
                "schema": "conject.submission.v1",
                "kind": "lean",
                "statement_id": "S001",
                "module": "Submissions.S001.Opaque",
                "decl": "Submissions.S001.Opaque.proof",
            }
        )
    )
    done = jig(folder, "verify", "Opaque.json")
    lines = done.stdout.splitlines()
    assert lines[1].startswith("  Opaque.json · S001")
    policy = next(line for line in lines if "static_policy" in line)
    assert "failed: Opaque.lean:3: native_decide" in policy
    document = json.loads(jig(folder, "verify", "Opaque.json", "--json").stdout)
    assert document["submission"] == "Submissions/S001/Opaque.json"  # files stay repo-relative


def test_format_github_puts_a_red_verdict_on_its_manifest(standin, repo):
    standin.scenario({"axioms": ["propext", "sorryAx"]})
    done = jig(repo, "verify", ALICE, "--format=github")
    assert done.returncode == 1
    last = done.stdout.splitlines()[-1]
    assert last.startswith(f"::error file={ALICE},title=jig verify::red sorry — ")
    assert done.stdout.startswith("::stop-commands::")


def test_under_github_actions_a_green_verdict_annotates_nothing(standin, repo):
    done = jig(repo, "verify", ALICE, env={"GITHUB_ACTIONS": "true"})
    assert done.returncode == 0
    token = done.stdout.splitlines()[0].removeprefix("::stop-commands::")
    assert done.stdout.splitlines()[-1] == f"::{token}::"


def test_a_verdict_not_checked_here_is_a_warning_not_an_error(standin, repo):
    standin.uninstall()
    done = jig(repo, "verify", ALICE, "--format", "github")
    assert done.returncode == 4
    assert done.stdout.splitlines()[-1].startswith(f"::warning file={ALICE},title=jig verify::")


def test_checks_not_run_for_one_reason_are_said_once(repo):
    done = jig(repo, "verify", "Submissions/S001/MalloryNative.json")
    lines = done.stdout.splitlines()
    not_run = [line for line in lines if "not run:" in line]
    assert done.returncode == 1
    assert len(not_run) == 1
    assert "○ toolchain … term_hash (9)" in not_run[0]
    assert not_run[0].endswith("not run: the static policy rejected the source; it was not built")
    assert sum(line.startswith("  ● ") for line in lines) == 2  # manifest, static_policy


def test_at_80_columns_a_long_check_hangs_under_its_words(monkeypatch, tmp_path):
    import io

    from rich.console import Console

    from jigcli.commands.verify import show
    from jigcli.verdict import Verdict

    screen = Console(file=io.StringIO(), force_terminal=True, width=80, color_system=None)
    monkeypatch.setattr("jigcli.commands.verify.out", lambda: screen)
    verdict = Verdict(submission="Certificates/C001/submissions/off-by-one.json")
    verdict.record("manifest", True, "conject.submission.v1, valid")
    said = "the checker says: the cubes sum to -476440534803748392286740494497549, not 42"
    verdict.record("certificate", False, said)
    verdict.fail("invalid_witness", said)
    show(verdict.finish(), tmp_path)
    lines = screen.file.getvalue().splitlines()
    assert all(len(line) <= 80 for line in lines)
    at = next(i for i, line in enumerate(lines) if "● certificate  failed:" in line)
    assert lines[at + 1] == " " * 17 + "-476440534803748392286740494497549, not 42"
    assert lines[at + 2].startswith("Next: ") and lines[at + 3].startswith(" " * 6)
