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


def test_lake_names_the_toolchain_and_the_trusted_search_path_that_exists(standin, repo):
    (repo.root / ".lake/build/lib/lean").mkdir(parents=True)
    paths = backend.lean_paths(backend.detect(repo), repo, timeout=30)
    assert paths.lean == paths.sysroot / "bin" / "lean" and paths.lean.is_file()
    assert paths.search_path == (repo.root / ".lake/build/lib/lean",)
    env = [c["argv"] for c in standin.calls() if c["tool"] == "lake" and c["argv"][0] == "env"]
    assert env == [["env", "printenv", "LEAN_SYSROOT", "LEAN_PATH"]]


def test_a_lake_that_cannot_say_where_lean_is_is_a_problem_said_in_a_sentence(standin, repo):
    standin.scenario({"lake_env": "fail"})
    with pytest.raises(backend.LakeEnvProblem) as problem:
        backend.lean_paths(backend.detect(repo), repo, timeout=30)
    assert str(problem.value) == (
        "`lake env` did not say where Lean and the trusted build are: "
        "error: lakefile.toml: configuration has errors"
    )


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


def gone(pid: int, pid_alive) -> bool:
    """SIGKILL is delivered asynchronously: allow a loaded machine a moment to reap."""
    import time

    for _ in range(50):
        if not pid_alive(pid):
            return True
        time.sleep(0.1)
    return False
