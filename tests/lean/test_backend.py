import pytest

from jigcli.lean import backend
from jigcli.repo import Repo


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    (root / "lakefile.toml").write_text('name = "x"\n')
    (root / "lean-toolchain").write_text("leanprover/lean4:v4.33.0\n")
    return Repo(root)


def test_detect_reads_the_version_of_the_stand_in(standin, repo):
    toolchain = backend.detect(repo)
    assert toolchain.lean_version == "4.33.0"
    assert toolchain.leanchecker is not None


def test_detect_refuses_a_different_version_naming_both(standin, repo):
    standin.scenario({"version": "4.32.0"})
    with pytest.raises(backend.ToolchainProblem) as problem:
        backend.detect(repo)
    assert problem.value.kind == "version"
    assert "4.32.0" in str(problem.value) and "4.33.0" in str(problem.value)


def test_detect_without_lean_says_what_is_missing(standin, repo):
    standin.uninstall()
    with pytest.raises(backend.ToolchainProblem) as problem:
        backend.detect(repo)
    assert problem.value.kind == "missing" and "lake" in str(problem.value)


def test_build_runs_one_lake_build_with_every_target(standin, repo):
    run = backend.build(backend.detect(repo), repo, ["A.B", "Statements.S001"], timeout=30)
    assert run.ok
    builds = [c for c in standin.calls() if c["tool"] == "lake" and c["argv"][0] == "build"]
    assert [c["argv"] for c in builds] == [["build", "A.B", "Statements.S001"]]


def test_a_failing_build_reports_its_diagnostics(standin, repo):
    standin.scenario({"build": "error", "build_error": "Unknown identifier `foo`"})
    run = backend.build(backend.detect(repo), repo, ["Submissions.S.M"], timeout=30)
    assert not run.ok
    assert run.diagnostics[0].where() == "Submissions/S/M.lean:3:3:"


def test_elaborate_parses_the_json_messages(standin, repo, tmp_path):
    check = tmp_path / "Check.lean"
    check.write_text("#print axioms «A».«b»\n")
    standin.scenario({"axioms": ["propext", "sorryAx"]})
    run = backend.elaborate(backend.detect(repo), repo, check, timeout=30)
    (message,) = run.output.messages
    assert message.data == "'A.b' depends on axioms: [propext, sorryAx]"
    assert not run.crashed


def test_elaborate_reports_a_crash(standin, repo, tmp_path):
    check = tmp_path / "Check.lean"
    check.write_text("\n")
    standin.scenario({"lean": "crash"})
    run = backend.elaborate(backend.detect(repo), repo, check, timeout=30)
    assert run.crashed and "Stack overflow" in run.result.stderr


def test_replay_passes_and_rejects(standin, repo):
    toolchain = backend.detect(repo)
    assert backend.replay(toolchain, repo, "M", timeout=30).status == "passed"
    standin.scenario({"replay": "rejected"})
    rejected = backend.replay(toolchain, repo, "M", timeout=30)
    assert rejected.status == "rejected" and "found a problem in M" in rejected.detail


def test_replay_rejection_is_found_after_lines_lake_printed_first(standin, repo):
    warning = "warning: mathlib: repository '.lake/packages/mathlib' has local changes"
    standin.scenario({"replay": "rejected", "lake_warning": warning})
    rejected = backend.replay(backend.detect(repo), repo, "M", timeout=30)
    assert rejected.status == "rejected"
    assert rejected.detail.startswith("leanchecker found a problem in M")


def test_replay_without_leanchecker_is_unavailable_never_passed(standin, repo, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("lake", "lean"):
        (bin_dir / name).symlink_to(standin_bin() / name)
    standin.monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    toolchain = backend.detect(repo)
    assert toolchain.leanchecker is None
    assert backend.replay(toolchain, repo, "M", timeout=30).status == "unavailable"


def test_a_run_past_its_deadline_is_killed_with_its_group(standin, repo, tmp_path, pid_alive):
    pid_file = tmp_path / "grandchild.pid"
    standin.scenario({"build": "hang", "hang_pid_file": str(pid_file)})
    run = backend.build(backend.detect(repo), repo, ["M"], timeout=2)
    assert run.result.timed_out
    assert gone(int(pid_file.read_text()), pid_alive)


def test_describe_reports_programs_pins_and_cache(standin, repo):
    report = backend.describe(repo)
    assert report["programs"]["lean"].endswith("lean")
    assert report["pins"]["lean_version"] == "4.33.0"
    assert report["mathlib_cache"]["present"] is False
    assert report["ready"] is False and "cache" in report["problem"]


def standin_bin():
    from pathlib import Path

    return Path(__file__).resolve().parent.parent / "standin" / "bin"


def gone(pid: int, pid_alive) -> bool:
    """SIGKILL is delivered asynchronously: allow a loaded machine a moment to reap."""
    import time

    for _ in range(50):
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return False
