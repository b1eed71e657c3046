"""`jig selftest` end to end through the command's `run` and the typer app, with the
verifier stood in for (the pipelines have their own tests; this is about the command)."""

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from jigcli.cli import app
from jigcli.commands.selftest import NothingToTest, run
from jigcli.errors import UsageError
from jigcli.schemas import validate


def _helpers():
    path = Path(__file__).resolve().parents[1] / "selftest" / "helpers.py"
    spec = importlib.util.spec_from_file_location("selftest_helpers", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


kit = _helpers()
A, B = "Submissions/S001/A.json", "Submissions/S001/B.json"
W = "Certificates/C001/submissions/w.json"


@pytest.fixture
def repo_root(tmp_path, monkeypatch):
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    root = kit.make_repo(tmp_path / "repo")
    kit.lean_manifest(root, A)
    kit.lean_manifest(root, B, "red", "restatement")
    kit.certificate_manifest(root, "C001", "w", "red", "invalid_witness")
    return root


@pytest.fixture
def fake(monkeypatch):
    verifier = kit.FakeVerifier()
    monkeypatch.setattr("jigcli.verify.submission.verify", verifier)
    return verifier


def selftest(root: Path, *paths: Path, **options) -> int:
    arguments: dict[str, Any] = {
        "jobs": 2,
        "shard": None,
        "use_cache": True,
        "require_lean": False,
        "as_json": False,
        "timeout": 60.0,
        "budget": None,
        "allow_no_netns": False,
        "root": root,
    }
    arguments.update(options)
    return run(list(paths), **arguments)


def json_run(root: Path, capsys, **options) -> tuple[int, dict]:
    code = selftest(root, as_json=True, **options)
    return code, json.loads(capsys.readouterr().out)


def test_all_matched_exits_0_with_a_table(repo_root, fake, capsys):
    assert selftest(repo_root) == 0
    shown = capsys.readouterr().out
    for header in ("manifest", "verdict", "reason", "hash", "expected", "matched", "cached"):
        assert header in shown
    assert A in shown and "restatement" in shown
    assert "3 matched, 0 failed, 0 skipped" in shown


def test_the_json_document_has_exactly_the_promised_shape(repo_root, fake, capsys):
    code, document = json_run(repo_root, capsys)
    assert code == 0
    assert set(document) == {
        "status", "exit_code", "results", "passed", "failed", "skipped", "unsearched"
    }  # fmt: skip
    assert (document["status"], document["exit_code"]) == ("ok", 0)
    assert document["unsearched"] == []
    assert (document["passed"], document["failed"], document["skipped"]) == (3, 0, 0)
    types = {
        "manifest": str,
        "kind": str,
        "expect": str,
        "expect_reason": (str, type(None)),
        "verdict": (str, type(None)),
        "reason": (str, type(None)),
        "matched": bool,
        "skipped": bool,
        "cached": bool,
        "elaborated_term_hash": (str, type(None)),
    }
    for entry in document["results"]:
        assert set(entry) == set(types)
        assert all(isinstance(entry[k], t) for k, t in types.items())
    green = next(e for e in document["results"] if e["manifest"] == A)
    assert green["kind"] == "lean" and green["elaborated_term_hash"].startswith("sha256:")
    assert green["expect_reason"] is None and green["verdict"] == "green"


def test_json_prints_nothing_else_on_stdout(repo_root, fake, capsys):
    selftest(repo_root, as_json=True)
    json.loads(capsys.readouterr().out)  # exactly one document


def test_a_wrong_reason_fails_with_exit_1_and_says_both_reasons(repo_root, fake, capsys):
    fake.answers[B] = kit.Answer("red", "build_failed", detail="unknown identifier 'foo'")
    assert selftest(repo_root) == 1
    shown = capsys.readouterr().out
    assert f"{B}: " in shown
    assert "expected red `restatement`, got red `build_failed`" in shown


def test_duplicate_greens_fail_the_selftest(repo_root, fake, capsys):
    kit.lean_manifest(repo_root, "Submissions/S001/C.json")
    fake.answers["Submissions/S001/C.json"] = kit.Answer("green", term_hash=kit.sha256_tagged(A))
    code, document = json_run(repo_root, capsys)
    assert code == 1 and document["failed"] == 2


def test_verdict_files_mirror_the_manifests(repo_root, fake):
    selftest(repo_root)
    for rel in (A, B, W):
        written = json.loads((repo_root / ".jig" / "verdicts" / rel).read_text())
        assert written["submission"] == rel
        assert validate(written, "verdict") == []


def test_a_rerun_with_nothing_changed_verifies_nothing_and_says_so(repo_root, fake, capsys):
    selftest(repo_root)
    capsys.readouterr()
    fake.calls.clear()
    assert selftest(repo_root) == 0
    assert fake.calls == []
    shown = capsys.readouterr().out
    assert "0 verified, 3 from the cache" in shown and "nothing was verified" in shown
    assert (repo_root / ".jig" / "verdicts" / A).is_file()


def test_cached_results_say_so_in_json(repo_root, fake, capsys):
    json_run(repo_root, capsys)
    _, document = json_run(repo_root, capsys)
    assert all(entry["cached"] for entry in document["results"])


def test_no_cache_verifies_everything_again(repo_root, fake, capsys):
    selftest(repo_root)
    capsys.readouterr()
    fake.calls.clear()
    _, document = json_run(repo_root, capsys, use_cache=False)
    assert len(fake.calls) == 3 and not any(e["cached"] for e in document["results"])


def test_lean_without_toolchain_is_skipped_and_passes(repo_root, fake, capsys):
    for rel in (A, B):
        fake.answers[rel] = kit.Answer("red", "toolchain_missing", detail="no lake on PATH")
    assert selftest(repo_root) == 0
    shown = capsys.readouterr().out
    assert "1 matched, 0 failed, 2 skipped" in shown
    assert "2 skipped (toolchain_missing): no matching Lean toolchain here. Install elan" in shown


def test_no_sandbox_fails_and_says_once_what_to_do(repo_root, fake, capsys):
    fake.answers[W] = kit.Answer("red", "sandbox_unavailable", detail="bubblewrap: not installed")
    assert selftest(repo_root) == 1
    shown = capsys.readouterr().out
    assert f"{W}: ● expected red `invalid_witness`, got red `sandbox_unavailable`\n" in shown
    assert "1 failed (sandbox_unavailable): no sandbox is available here. Install" in shown
    assert shown.count("bubblewrap: not installed") == 1  # the machine's story, told once


def test_require_lean_fails_without_toolchain(repo_root, fake, capsys):
    fake.answers[A] = kit.Answer("red", "toolchain_missing")
    code, document = json_run(repo_root, capsys, require_lean=True)
    assert code == 1 and document["failed"] == 1 and document["skipped"] == 0


def test_a_shard_runs_only_its_part(repo_root, fake, capsys):
    seen = []
    for index in (1, 2):
        _, document = json_run(repo_root, capsys, shard=f"{index}/2", use_cache=False)
        seen += [entry["manifest"] for entry in document["results"]]
    assert sorted(seen) == sorted([A, B, W])


def test_an_empty_shard_passes_and_says_why(repo_root, fake, capsys):
    codes = []
    for index in range(1, 6):
        codes.append(selftest(repo_root, shard=f"{index}/5", use_cache=False))
    assert codes == [0] * 5
    assert "holds none of the 3 examples" in capsys.readouterr().out


def test_a_bad_shard_is_a_usage_error(repo_root, fake):
    with pytest.raises(UsageError, match="I/N"):
        selftest(repo_root, shard="two of four")


def test_nothing_to_test_is_an_error_not_a_pass(tmp_path, fake):
    root = kit.make_repo(tmp_path / "empty")
    with pytest.raises(NothingToTest, match="No manifest with an `expect`") as raised:
        selftest(root)
    assert raised.value.exit_code == 2


def test_paths_limit_the_run(repo_root, fake, capsys):
    code = selftest(repo_root, repo_root / A, as_json=True)
    assert code == 0
    assert [e["manifest"] for e in json.loads(capsys.readouterr().out)["results"]] == [A]


def test_the_github_step_summary_gets_a_markdown_table(repo_root, fake, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    fake.answers[B] = kit.Answer("red", "build_failed", detail="a | pipe")
    selftest(repo_root, shard="1/1")
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert "| manifest | verdict | reason | hash | expected | matched | cached |" in text
    assert f"| `{B}` | red | build_failed |" in text
    # the problem, in a code span (a list item, not a table cell: its pipe stays as it is)
    assert "got red `build_failed`: a | pipe``" in text
    assert "❌ failed" in text and "shard 1/1" in text


def test_the_cli_passes_its_options_through(repo_root, fake, monkeypatch):
    monkeypatch.chdir(repo_root)
    result = CliRunner().invoke(
        app, ["selftest", "--json", "--jobs", "2", "--shard", "1/1", "--no-cache"]
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["passed"] == 3
    assert {call.options.timeout for call in fake.calls} == {1200.0}


def test_the_cli_turns_allow_no_netns_into_the_option(repo_root, fake, monkeypatch):
    monkeypatch.chdir(repo_root)
    CliRunner().invoke(app, ["selftest", "--allow-no-netns", "--timeout", "5", "--no-cache"])
    assert {(c.options.allow_no_netns, c.options.timeout) for c in fake.calls} == {(True, 5.0)}


def test_an_unwritable_step_summary_is_a_warning_not_a_failure(
    repo_root, fake, capsys, monkeypatch
):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(repo_root / "no-such-dir" / "summary.md"))
    assert selftest(repo_root) == 0
    assert "could not append to GITHUB_STEP_SUMMARY" in capsys.readouterr().err


def test_the_cli_passes_the_budget_as_a_cap_on_each_timeout(repo_root, fake, monkeypatch):
    monkeypatch.chdir(repo_root)
    result = CliRunner().invoke(
        app, ["selftest", "--budget", "30", "--timeout", "60", "--no-cache", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    timeouts = [call.options.timeout for call in fake.calls]
    assert len(timeouts) == 3 and all(0 < t <= 30 for t in timeouts)


def test_a_spent_budget_fails_the_rest_with_verdict_files_and_says_why(
    repo_root, fake, capsys, monkeypatch
):
    from jigcli.process import Deadline

    class Spent(Deadline):
        def remaining(self) -> float:
            return 0.0

    monkeypatch.setattr("jigcli.commands.selftest.Deadline", Spent)
    code, document = json_run(repo_root, capsys, budget=600.0)
    assert code == 1 and document["failed"] == 3 and fake.calls == []
    assert {e["reason"] for e in document["results"]} == {"timeout"}
    written = json.loads((repo_root / ".jig" / "verdicts" / W).read_text())
    assert written["reason"] == "timeout" and "600 s budget" in written["detail"]
    assert validate(written, "verdict") == []


def test_cases_the_budget_never_started_are_not_counted_as_verified(
    repo_root, fake, capsys, monkeypatch
):
    from jigcli.process import Deadline

    class Spent(Deadline):
        def remaining(self) -> float:
            return 0.0

    monkeypatch.setattr("jigcli.commands.selftest.Deadline", Spent)
    assert selftest(repo_root, budget=600.0) == 1
    assert "0 matched, 3 failed, 0 skipped · 0 verified, 0 from the cache" in (
        capsys.readouterr().out
    )


def press_ctrl_c_while_running(rel, data, options):
    """Start a long process, then send this process a real SIGINT once it runs."""
    import os
    import signal

    from jigcli.process import run_bounded

    run_bounded(
        ["sh", "-c", "echo up; sleep 30"],
        on_line=lambda line: os.kill(os.getpid(), signal.SIGINT),
    )


def test_ctrl_c_reports_what_finished_and_exits_130(repo_root, fake, capsys):
    fake.during = lambda rel, data, options: (
        press_ctrl_c_while_running(rel, data, options) if rel == W else None
    )
    try:
        code = selftest(repo_root, jobs=1, use_cache=False)
    except KeyboardInterrupt:
        pytest.fail("Ctrl-C escaped the selftest instead of ending it")
    assert code == 130
    captured = capsys.readouterr()
    assert (
        A in captured.out
        and B in captured.out
        and "selftest, interrupted: 2 matched" in (captured.out)
    )
    assert "interrupted: 1 of 3 examples were not verified" in captured.err
    assert (repo_root / ".jig" / "verdicts" / A).is_file()
    assert not (repo_root / ".jig" / "verdicts" / W).exists()


def test_ctrl_c_with_json_still_prints_one_document_of_what_finished(repo_root, fake, capsys):
    fake.during = lambda rel, data, options: (
        press_ctrl_c_while_running(rel, data, options) if rel == W else None
    )
    code, document = json_run(repo_root, capsys, jobs=1, use_cache=False)
    assert code == 130 and document["passed"] == 2
    assert sorted(e["manifest"] for e in document["results"]) == [A, B]


@pytest.mark.parametrize("folder", [".jig", ".jig/verdicts", ".jig/work"])
def test_a_committed_jig_link_is_refused_and_nothing_is_written_outside(
    repo_root, fake, tmp_path, folder
):
    outside = tmp_path / "outside"
    outside.mkdir()
    link = repo_root / folder
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside)
    with pytest.raises(UsageError, match="is a symbolic link"):
        selftest(repo_root)
    assert list(outside.iterdir()) == []


def test_format_github_annotates_each_failed_example_on_its_manifest(repo_root, fake, capsys):
    fake.answers[B] = kit.Answer("red", "build_failed", detail="::error::forged")
    assert selftest(repo_root, shard="1/1", output_format="github") == 1
    lines = capsys.readouterr().out.splitlines()
    token = lines[0].removeprefix("::stop-commands::")
    after = lines[lines.index(f"::{token}::") + 1 :]
    assert len(after) == 1 and after[0].startswith(f"::error file={B},title=jig selftest::")
    assert "expected red `restatement`, got red `build_failed`: ::error::forged" in after[0]


# -- hostile folders: names, depth, links (issue 22) -----------------------------------------


def _bad_manifest_case(rel: bytes, repo_root: Path) -> Path:
    path = Path(os.fsdecode(bytes(repo_root) + b"/" + rel))
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "schema": "conject.submission.v1",
        "kind": "certificate",
        "statement_id": "C001",
        "witness": "w.witness",
        "expect": "red",
        "expect_reason": "bad_manifest",
    }
    path.write_text(json.dumps(document))
    return path


@pytest.mark.parametrize(
    "name",
    [b"Certificates/C001/submissions/caf\xe9.json", b"Submissions/S001/" + b"n" * 245 + b".json"],
    ids=["not-utf8", "250-bytes"],
)
def test_an_oddly_named_manifest_is_its_own_bad_manifest_case_never_a_crash(
    repo_root, fake, capsys, name
):
    _bad_manifest_case(name, repo_root)
    code, document = json_run(repo_root, capsys)
    odd = [entry for entry in document["results"] if entry["reason"] == "bad_manifest"]
    assert len(odd) == 1 and odd[0]["matched"], document
    assert code == 0 and document["passed"] == 4
    json.dumps(document).encode("utf-8")  # printable, writable: no surrogate leaked


def test_a_lone_surrogate_in_a_manifest_is_a_bad_manifest_case(repo_root, fake, capsys):
    path = repo_root / "Submissions" / "S001" / "odd.json"
    path.write_text(
        '{"schema": "conject.submission.v1", "kind": "certificate", "statement_id": "\\ud800",'
        ' "witness": "w", "expect": "green"}'
    )
    code, document = json_run(repo_root, capsys)
    [entry] = [entry for entry in document["results"] if entry["manifest"].endswith("odd.json")]
    assert (entry["verdict"], entry["reason"], entry["matched"]) == ("red", "bad_manifest", False)
    assert code == 1


def test_a_folder_too_deep_to_search_fails_the_run_and_is_named(repo_root, fake, capsys):
    deep = repo_root / "Submissions" / "S001"
    for level in range(40):
        deep = deep / f"d{level}"
    deep.mkdir(parents=True)
    (deep / "x.json").write_text("{}")
    code, document = json_run(repo_root, capsys)
    assert code == 1
    [entry] = document["unsearched"]
    assert "deep" in entry["why"] and entry["path"].startswith("Submissions/S001/d0/")
    assert document["failed"] == 0  # every example found still ran and matched


def test_links_in_example_folders_are_never_followed_nor_read(repo_root, fake, capsys, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    _bad_manifest_case(b"x.json", outside)
    links = {
        repo_root / "Submissions" / "S001" / "linked.json": outside / "x.json",
        repo_root / "Submissions" / "S002": outside,
        repo_root / "Certificates" / "C001" / "kmsg": Path("/proc/kmsg"),
        repo_root / "Certificates" / "C001" / "pagemap": Path("/proc/self/pagemap"),
    }
    for link, target in links.items():
        link.symlink_to(target)
    fifo = repo_root / "Certificates" / "C001" / "submissions" / "f.json"
    os.mkfifo(fifo)
    code, document = json_run(repo_root, capsys)  # no hang: nothing behind a link is read
    assert code == 0 and document["passed"] == 3
    assert not any("linked" in entry["manifest"] for entry in document["results"])
