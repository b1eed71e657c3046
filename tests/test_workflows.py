"""The GitHub Actions files: they load, they have what the product promises, and every
`jig …` they run parses against the real command line (a renamed option fails here, not in
CI)."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml

from jigcli.cli import app

REPO = Path(__file__).resolve().parent.parent
WORKFLOWS = REPO / ".github" / "workflows"
ACTION = REPO / ".github" / "actions" / "lean-setup" / "action.yml"
FILES = [WORKFLOWS / "verify.yml", ACTION]
# What a variable a script sets itself stands for.
SAMPLE_ASSIGNED = {
    "base": "0123456789abcdef0123456789abcdef01234567",
    "budget": "840",
    "status": "0",
}
# What a `${{ … }}` expression stands for when a run line is parsed here.
SAMPLE_EXPRESSIONS = {
    "matrix.shard": "2",
    "inputs.submission": "Submissions/S001/AliceDirect.json",
    "inputs.statement_id": "S001",
}


def load(path: Path) -> dict[Any, Any]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads a bare `on` key as the boolean True.
    on = workflow.get("on", workflow.get(True))
    assert isinstance(on, dict)
    return on


@pytest.fixture(scope="module")
def verify() -> dict[Any, Any]:
    return load(WORKFLOWS / "verify.yml")


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_file_loads_as_yaml_with_its_required_keys(path):
    document = load(path)
    if path == ACTION:
        assert document["runs"]["using"] == "composite" and document["runs"]["steps"]
    else:
        assert triggers(document) and document["jobs"]
        for job in document["jobs"].values():
            assert job["runs-on"] and job["steps"] and "timeout-minutes" in job


def test_verify_runs_on_pull_requests_pushes_to_main_and_dispatch(verify):
    on = triggers(verify)
    # the base's workflow, not the pull request's, and no path filter: every one is guarded
    assert "pull_request_target" in on and on["pull_request_target"] is None
    assert "pull_request" not in on
    assert on["push"]["branches"] == ["main"]
    inputs = on["workflow_dispatch"]["inputs"]
    assert {"statement_id", "submission", "ref"} <= set(inputs)
    assert inputs["statement_id"]["required"] and inputs["submission"]["required"]


def test_every_lean_job_is_capped_at_20_minutes_with_jigs_budget_at_15(verify):
    assert int(verify["env"]["JIG_BUDGET_SEC"]) == 15 * 60
    for job in (verify["jobs"]["selftest"], verify["jobs"]["dispatch"]):
        assert job["timeout-minutes"] == 20
        jig_steps = [s for s in job["steps"] if "jig " in s.get("run", "")]
        assert jig_steps and all('--timeout "$budget"' in s["run"] for s in jig_steps)
        # jig's deadline is what is left of the budget since the job's first step
        assert all('budget="$(python scripts/job_budget.py)"' in s["run"] for s in jig_steps)
        assert job["steps"][0]["run"] == 'echo "JIG_JOB_STARTED=$(date +%s)" >> "$GITHUB_ENV"'
        assert (REPO / "scripts" / "job_budget.py").is_file()


def test_the_selftest_shard_as_a_whole_keeps_to_jigs_budget(verify):
    # --timeout is per submission: two slow ones would outlast the job's cap without it.
    [run] = [
        s["run"] for s in verify["jobs"]["selftest"]["steps"] if "jig selftest" in s.get("run", "")
    ]
    assert '--budget "$budget"' in run


def verify_step(steps: list[dict[str, Any]]) -> dict[str, Any]:
    [step] = [s for s in steps if s.get("id") == "verify"]
    return step


def test_dispatch_verifies_one_submission_taking_only_its_folder_from_the_ref(verify):
    job = verify["jobs"]["dispatch"]
    assert "workflow_dispatch" in job["if"]
    [checkout] = checkouts(job)
    assert checkout["uses"].startswith("actions/checkout@")
    # jig, the judge, Commons and the statements come from the reviewed default branch
    assert checkout["with"]["ref"] == "${{ github.event.repository.default_branch }}"
    assert all("inputs.ref" not in str(step.get("with", {})) for step in job["steps"]), (
        "nothing but take_submission.py may check out the ref under test"
    )
    assert any(step.get("uses") == "./.github/actions/lean-setup" for step in job["steps"])
    step = verify_step(job["steps"])
    assert step["env"]["REF"] == "${{ inputs.ref }}"
    taking = step["run"].index('python scripts/take_submission.py "$SUBMISSION" "$REF"')
    assert taking < step["run"].index("jig verify")
    assert (REPO / "scripts" / "take_submission.py").is_file()


def fallback_step(steps: list[dict[str, Any]]) -> dict[str, Any]:
    [step] = [s for s in steps if "fallback_verdict.py" in s.get("run", "")]
    return step


def test_an_always_step_writes_a_verdict_after_verify_knowing_how_it_ended(verify):
    steps = verify["jobs"]["dispatch"]["steps"]
    step = verify_step(steps)
    fallback = fallback_step(steps)
    assert steps.index(fallback) > steps.index(step) and fallback["if"] == "always()"
    out = re.search(r"--out (\S+)", step["run"])
    assert out and out[1] in fallback["run"]  # it checks the file jig writes
    assert fallback["env"]["VERIFY_OUTCOME"] == "${{ steps.verify.outcome }}"
    assert fallback["env"]["VERIFY_EXIT_CODE"] == "${{ steps.verify.outputs.exit_code }}"
    assert fallback["env"]["JOB_STATUS"] == "${{ job.status }}"
    argv = shlex.split(fallback["run"])
    assert argv[:2] == ["python", "scripts/fallback_verdict.py"]
    assert (REPO / argv[1]).is_file()


@pytest.mark.parametrize(
    ("take_exits", "jig_exits", "reason"),
    [
        (0, 2, "bad_manifest"),
        (0, 3, "verifier_error"),
        (0, None, "runner_stopped"),
        (2, 0, "bad_manifest"),  # no such submission folder on the ref: jig never runs
        (1, 0, "verifier_error"),  # git failed
    ],
)
def test_the_dispatch_steps_tell_a_refused_manifest_and_a_crash_from_a_timeout(
    verify, tmp_path, take_exits, jig_exits, reason
):
    """Run the two steps' scripts as the runner would (`bash -e`), with a `jig` that exits
    without a verdict, or (None) a step the runner cancelled before it recorded anything, after
    taking the submission's folder from the ref (or failing to)."""
    steps = verify["jobs"]["dispatch"]["steps"]
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    (checkout / "jigcli").symlink_to(REPO / "jigcli")
    for script in ("fallback_verdict.py", "job_budget.py"):
        (checkout / "scripts" / script).symlink_to(REPO / "scripts" / script)
    # the ref's folder is taken (tests/scripts/test_take_submission.py shows how)
    (checkout / "scripts" / "take_submission.py").write_text(f"raise SystemExit({take_exits})\n")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").symlink_to(sys.executable)
    (bin_dir / "jig").write_text(f"#!/bin/sh\ntouch jig-ran\nexit {jig_exits or 0}\n")
    (bin_dir / "jig").chmod(0o755)
    env = {
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "SUBMISSION": "Submissions/S001/Gone.json",
        "STATEMENT_ID": "S001",
        "JIG_BUDGET_SEC": "900",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
    }
    outputs: dict[str, str] = {}
    outcome, job_status = "cancelled", "cancelled"
    if jig_exits is not None:
        ran = _bash(verify_step(steps)["run"], checkout, env)
        assert ran.returncode == (take_exits or jig_exits)
        assert (checkout / "jig-ran").exists() == (take_exits == 0)
        outputs = dict(line.split("=", 1) for line in (tmp_path / "output").read_text().split())
        outcome, job_status = "failure", "failure"
    fallback = fallback_step(steps)
    expressions = {
        "steps.verify.outcome": outcome,
        "steps.verify.outputs.exit_code": outputs.get("exit_code", ""),
        "job.status": job_status,
        "inputs.ref": "main",
    }
    step_env = {
        name: re.sub(r"\$\{\{(.*?)\}\}", lambda m: expressions[m[1].strip()], value)
        for name, value in fallback["env"].items()
    }
    assert _bash(fallback["run"], checkout, {**env, **step_env}).returncode == 0
    verdict = json.loads((checkout / "verdicts" / "verdict.json").read_text())
    assert (verdict["verdict"], verdict["reason"]) == ("red", reason)


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )


def test_inputs_never_reach_a_shell_script_by_substitution(verify):
    for job in verify["jobs"].values():
        for step in job["steps"]:
            assert "${{ inputs." not in step.get("run", ""), step.get("name")


@pytest.mark.parametrize("job", ["dispatch", "selftest"])
def test_verdicts_and_judge_reports_are_staged_and_uploaded_even_on_failure(verify, job):
    steps = verify["jobs"][job]["steps"]
    uploads = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert len(uploads) == 1 and uploads[0]["if"] == "always()"
    [stage] = [s for s in steps if "stage_artifacts.py" in s.get("run", "")]
    assert stage["if"] == "always()" and steps.index(stage) == steps.index(uploads[0]) - 1
    argv = shlex.split(stage["run"])
    assert argv[:3] == ["python", "scripts/stage_artifacts.py", "--into=artifacts"]
    verdicts = "verdicts" if job == "dispatch" else ".jig/verdicts"
    assert argv[3] == "--" and set(argv[4:]) == {verdicts, ".jig/work"}
    # the staged copy holds hidden folders (.jig/work): the upload must not drop them
    assert uploads[0]["with"]["path"] == "artifacts/"
    assert uploads[0]["with"]["include-hidden-files"] is True


def test_the_selftest_is_a_sharded_matrix_that_requires_lean(verify):
    job = verify["jobs"]["selftest"]
    shards = job["strategy"]["matrix"]["shard"]
    assert job["strategy"]["fail-fast"] is False
    [run] = [s["run"] for s in job["steps"] if "jig selftest" in s.get("run", "")]
    assert "--require-lean" in run
    assert f'--shard "${{{{ matrix.shard }}}}/{len(shards)}"' in run
    assert sorted(shards) == list(range(1, len(shards) + 1))


def test_the_lean_setup_fetches_the_mathlib_cache_and_never_builds_it():
    steps = load(ACTION)["runs"]["steps"]
    runs = "\n".join(step.get("run", "") for step in steps)
    assert "python3 scripts/install_elan.py" in runs and "lean-toolchain" in runs
    assert "curl" not in runs and "| sh" not in runs  # nothing piped into a shell
    assert "lake exe cache get" in runs and "lake build" not in runs
    [restore] = [s for s in steps if s.get("uses", "").startswith("actions/cache/restore@")]
    assert "hashFiles('lean-toolchain', 'lake-manifest.json')" in restore["with"]["key"]
    assert "bubblewrap" in runs


@pytest.mark.parametrize(
    "runs",
    [
        "\n".join(step.get("run", "") for step in load(ACTION)["runs"]["steps"]),
        "\n".join(
            s.get("run", "") for s in load(WORKFLOWS / "verify.yml")["jobs"]["guard"]["steps"]
        ),
    ],
    ids=["lean-setup", "guard"],
)
def test_jig_is_installed_from_the_hashed_lock_and_nothing_resolved_at_run_time(runs):
    installs = [line.strip() for line in runs.splitlines() if "pip install" in line]
    assert installs == [
        "pip install --require-hashes -r requirements.lock",
        "pip install --no-deps --no-build-isolation -e .",
    ]


def test_every_action_is_pinned_by_a_full_commit_sha_with_its_tag_beside_it():
    pinned = 0
    for path in FILES:
        for line in path.read_text(encoding="utf-8").splitlines():
            used = re.search(r"uses:\s*(\S+)", line)
            if used is None or used[1].startswith("./"):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", used[1]), line
            assert re.search(r"# v\d+\.\d+\.\d+$", line), f"no tag comment: {line}"
            pinned += 1
    assert pinned >= 8


def test_the_mathlib_cache_is_saved_right_after_it_is_fetched_whatever_the_job_does_later():
    steps = load(ACTION)["runs"]["steps"]
    [get] = [s for s in steps if s.get("run") == "lake exe cache get"]
    restore, save = steps[steps.index(get) - 1], steps[steps.index(get) + 1]
    assert restore["uses"].startswith("actions/cache/restore@")
    assert save["uses"].startswith("actions/cache/save@")
    assert save["with"] == restore["with"]  # the same path under the same key
    assert save["if"] == f"steps.{restore['id']}.outputs.cache-hit != 'true'"
    assert not any(s.get("uses", "").startswith("actions/cache@") for s in steps)


def test_the_lean_setup_lets_bubblewrap_create_its_namespaces():
    runs = "\n".join(step.get("run", "") for step in load(ACTION)["runs"]["steps"])
    assert "kernel.apparmor_restrict_unprivileged_userns=0" in runs
    assert runs.index("apt-get install -y -qq bubblewrap") < runs.index("bwrap --")


# -- a pull request is judged by the base's jig --------------------------------------------------


def checkouts(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@")]


@pytest.mark.parametrize("job", ["guard", "selftest"])
def test_a_pull_request_job_runs_the_bases_side_with_the_head_beside_it_as_data(verify, job):
    steps = verify["jobs"][job]["steps"]
    trusted, head = checkouts(verify["jobs"][job])
    # pull_request_target's github.sha is the base branch's commit; a push's, the pushed one
    assert trusted["with"] == {"ref": "${{ github.sha }}", "persist-credentials": False}
    assert steps.index(trusted) <= 1  # after noting the job's start, at most
    assert head["with"]["path"] == "head" and head["with"]["persist-credentials"] is False
    assert head["with"]["ref"] == "${{ github.event.pull_request.head.sha || github.sha }}"
    assert head["with"]["fetch-depth"] == 0  # the merge base must be there
    runs = [step.get("run", "") for step in steps[steps.index(head) :]]
    assert all("pip install" not in run for run in runs), "nothing of the head is installed"


def test_the_guard_runs_the_bases_pose_check_on_the_head(verify):
    job = verify["jobs"]["guard"]
    assert job["if"] == "github.event_name != 'workflow_dispatch'"
    [step] = [s for s in job["steps"] if "pose check" in s.get("run", "")]
    assert "jig pose check --root head --base" in step["run"]
    assert "scripts/pull_request.py base --head head" in step["run"]


def test_the_selftest_waits_for_the_guard_and_takes_only_what_a_pull_request_may_bring(verify):
    job = verify["jobs"]["selftest"]
    assert job["needs"] == "guard"
    steps = job["steps"]
    [take] = [s for s in steps if "pull_request.py take" in s.get("run", "")]
    [setup] = [s for s in steps if s.get("uses") == "./.github/actions/lean-setup"]
    [selftest] = [s for s in steps if "jig selftest" in s.get("run", "")]
    # the Mathlib cache is saved by the set-up, before any byte of the head is here
    assert steps.index(setup) < steps.index(checkouts(job)[1]) < steps.index(take)
    assert steps.index(take) < steps.index(selftest)
    assert take["run"].rstrip().endswith("rm -rf head")


def test_pull_request_runs_cancel_their_predecessors_and_a_dispatch_never(verify):
    concurrency = verify["concurrency"]
    assert concurrency["cancel-in-progress"] == "${{ github.event_name == 'pull_request_target' }}"
    group = " ".join(concurrency["group"].split())
    assert "github.event_name == 'workflow_dispatch' && github.run_id" in group
    assert "github.event.pull_request.number" in group


def test_the_run_is_named_after_the_submission(verify):
    name = " ".join(verify["run-name"].split())
    assert "inputs.submission" in name and "inputs.statement_id" in name
    assert "github.event.pull_request.number" in name


def test_the_token_can_only_read(verify):
    assert verify["permissions"] == {"contents": "read"}
    assert all("permissions" not in job for job in verify["jobs"].values())
    for job in verify["jobs"].values():
        for checkout in checkouts(job):
            assert checkout["with"]["persist-credentials"] is False


# The reviewed main the pull request is based on: this repo's own trusted files.
SEED = (
    "lakefile.toml",
    "lake-manifest.json",
    "lean-toolchain",
    "Statements/S001.lean",
    "Commons/Basic.lean",
    "jigcli/pose/check.py",
    ".github/workflows/verify.yml",
    "Submissions/S001/AliceDirect.json",
    "Submissions/S001/AliceDirect.lean",
)
# What a head that wants its loosened statement to pass would also rewrite: the guard itself
# (it leaves a mark if it is ever imported), the workflow, the trusted Commons.
HEAD_GUARD = """import pathlib
pathlib.Path({mark!r}).touch()
def _is_protected(path):
    return False
"""


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


def _pull_request(tmp_path: Path, changes: dict[str, str]) -> tuple[str, Path]:
    """Make origin's main from SEED and a pull request's head with `changes`; check them out
    as the workflow does: the trusted side in `work/` (here, this repo's scripts), the head
    into `work/head`. Return (the base commit, the workspace)."""
    origin = tmp_path / "origin"
    for rel in SEED:
        (origin / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(REPO / rel, origin / rel)
    _git(origin, "init", "-q", "-b", "main")
    _git(origin, "config", "user.email", "t@example.com")
    _git(origin, "config", "user.name", "t")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "reviewed")
    base = _git(origin, "rev-parse", "HEAD")
    _git(origin, "checkout", "-q", "-b", "pr")
    for rel, text in changes.items():
        (origin / rel).parent.mkdir(parents=True, exist_ok=True)
        (origin / rel).write_text(text, encoding="utf-8")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-q", "-m", "the pull request")
    head_commit = _git(origin, "rev-parse", "HEAD")
    work = tmp_path / "work"
    work.mkdir()
    (work / "scripts").symlink_to(REPO / "scripts")
    _git(tmp_path, "clone", "-q", str(origin), str(work / "head"))
    _git(work / "head", "checkout", "-q", "--detach", head_commit)
    return base, work


def _run_step(verify, job: str, needle: str, work: Path, base: str):
    [step] = [s for s in verify["jobs"][job]["steps"] if needle in s.get("run", "")]
    expressions = {"github.event.pull_request.base.sha || github.event.before": base}
    env = {
        name: re.sub(r"\$\{\{(.*?)\}\}", lambda m: expressions[m[1].strip()], value)
        for name, value in step["env"].items()
    }
    bin_dir = work.parent / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python").symlink_to(sys.executable)
    # the base's jig: the one installed from this checkout, never anything under head/
    jig = Path(sys.executable).parent / "jig"
    (bin_dir / "jig").symlink_to(jig)
    path = f"{bin_dir}:{os.environ['PATH']}"
    return _bash(step["run"], work, {**env, "PATH": path, "HOME": str(work.parent)})


LOOSENED = "abbrev statement : Prop := True"


def test_a_pull_request_rewriting_the_guard_the_workflow_and_commons_is_refused(verify, tmp_path):
    mark = tmp_path / "the heads guard ran"
    statement = (REPO / "Statements/S001.lean").read_text(encoding="utf-8")
    loosened = re.sub(r"abbrev statement : Prop :=[^\n]*", LOOSENED, statement)
    assert loosened != statement
    base, work = _pull_request(
        tmp_path,
        {
            "Statements/S001.lean": loosened,
            "jigcli/pose/check.py": HEAD_GUARD.format(mark=str(mark)),
            ".github/workflows/verify.yml": "name: verify\non: push\njobs: {}\n",
            "Commons/Basic.lean": "-- says green to everything\n",
        },
    )
    ran = _run_step(verify, "guard", "pose check", work, base)
    said = ran.stdout + ran.stderr
    assert ran.returncode == 1, said
    assert re.search(r"Statements/S001\.lean: .*changed since", said), said
    assert re.search(r"Commons/Basic\.lean: .*changed since", said), said
    assert not mark.exists(), "the head's own guard ran"


def test_a_pull_request_that_only_submits_passes_the_guard(verify, tmp_path):
    base, work = _pull_request(tmp_path, {"Submissions/S001/Dana.lean": "-- a proof\n"})
    ran = _run_step(verify, "guard", "pose check", work, base)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "all hold" in ran.stdout


def test_the_selftest_takes_the_heads_submission_but_keeps_the_bases_statement(verify, tmp_path):
    statement = (REPO / "Statements/S001.lean").read_text(encoding="utf-8")
    base, work = _pull_request(
        tmp_path,
        {
            "Statements/S001.lean": LOOSENED + "\n",
            "Commons/Basic.lean": "-- says green to everything\n",
            "Submissions/S001/Dana.lean": "-- a proof\n",
        },
    )
    (work / "Statements").mkdir()
    (work / "Statements/S001.lean").write_text(statement, encoding="utf-8")
    ran = _run_step(verify, "selftest", "pull_request.py take", work, base)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert (work / "Submissions/S001/Dana.lean").read_text() == "-- a proof\n"
    assert (work / "Statements/S001.lean").read_text(encoding="utf-8") == statement
    assert not (work / "Commons").exists() and not (work / "head").exists()


# -- every jig command line parses against the typer app --------------------------------------


def jig_invocations() -> Iterator[tuple[str, list[str]]]:
    """(where, argv after `jig`) for every `jig …` command in every run line."""
    for path in FILES:
        document = load(path)
        env = {k: str(v) for k, v in (document.get("env") or {}).items()}
        for step in _steps(document):
            script = step.get("run", "")
            values = {**env, **{k: str(v) for k, v in (step.get("env") or {}).items()}}
            # a variable the script sets itself (`base="$(…)"`) stands for a commit id
            assigned = re.findall(r"^\s*(\w+)=", script, flags=re.MULTILINE)
            values |= {name: SAMPLE_ASSIGNED[name] for name in assigned}
            for line in _commands(script):
                if line.split()[0] == "jig":
                    yield f"{path.name}: {line[:60]}", shlex.split(_expand(line, values))[1:]


def _steps(document: dict[Any, Any]) -> Iterator[dict[str, Any]]:
    if "jobs" in document:
        for job in document["jobs"].values():
            env = job.get("env") or {}
            for step in job["steps"]:
                yield {**step, "env": {**env, **(step.get("env") or {})}}
    else:
        yield from document["runs"]["steps"]


def _commands(script: str) -> Iterator[str]:
    """Each simple command of a script: lines, and the parts of `a && b`, `a; b`, `a | b`."""
    for line in script.replace("\\\n", " ").splitlines():
        yield from (part.strip() for part in re.split(r"&&|\|\||;|\|", line) if part.strip())


def _expand(line: str, values: dict[str, str]) -> str:
    def expression(match: re.Match[str]) -> str:
        name = match[1].strip()
        return values.get(name, SAMPLE_EXPRESSIONS[name])

    line = re.sub(r"\$\{\{(.*?)\}\}", expression, line)
    return re.sub(r"\$\{?(\w+)\}?", lambda m: _variable(m[1], values), line)


def _variable(name: str, values: dict[str, str]) -> str:
    if name in values:
        return _expand(values[name], {k: v for k, v in values.items() if k != name})
    raise AssertionError(f"${name} is set neither in the workflow nor in the step")


def test_the_workflows_call_jig():
    called = {tuple(argv[:2]) for _, argv in jig_invocations()}
    assert ("verify", "Submissions/S001/AliceDirect.json") in called
    assert any(argv[0] == "selftest" for argv in called)
    assert ("pose", "check") in called


@pytest.mark.parametrize(("where", "argv"), list(jig_invocations()), ids=lambda x: str(x)[:70])
def test_every_jig_command_line_parses(where, argv):
    """Walk the subcommands, then let click parse the rest exactly as `jig` would: an unknown
    option, a missing argument or a value of the wrong type raises here."""
    command: Any = typer.main.get_command(app)
    rest = list(argv)
    while hasattr(command, "get_command"):  # a group (typer may bundle its own click)
        assert rest and not rest[0].startswith("-"), f"{where}: expected a subcommand"
        name, *rest = rest
        sub = command.get_command(command.make_context("jig", [], resilient_parsing=True), name)
        assert sub is not None, f"{where}: jig has no command {name!r}"
        command = sub
    context = command.make_context(command.name or "", rest)
    assert not context.args, f"{where}: left over {context.args}"


# -- CODEOWNERS covers the trusted side ---------------------------------------------------------


def _owners(path: str) -> list[str]:
    """The owners CODEOWNERS gives `path` (the last matching line wins), for the patterns it
    uses: anchored at the root, a folder with a trailing `/`, `*` inside one part."""
    import fnmatch

    owners: list[str] = []
    for line in (REPO / ".github" / "CODEOWNERS").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        pattern, *named = line.split()
        assert pattern.startswith("/"), f"unanchored pattern {pattern!r}"
        pattern = pattern[1:]
        if pattern.endswith("/"):
            matched = path.startswith(pattern)
        else:
            matched = fnmatch.fnmatchcase(path, pattern) and path.count("/") == pattern.count("/")
        if matched:
            owners = named
    return owners


def _trusted_paths() -> list[str]:
    from jigcli.pose.check import PIN_FILES, TRUSTED_FOLDERS

    return [
        *(f"{folder}/Some.lean" for folder in TRUSTED_FOLDERS),
        *PIN_FILES,
        "Statements/S001.lean",
        "Certificates/C001/checker.py",
        "Certificates/C001/spec.json",
        "jigcli/pose/check.py",
        "scripts/pull_request.py",
        ".github/workflows/verify.yml",
        ".github/actions/lean-setup/action.yml",
        ".github/CODEOWNERS",
        ".ci/run",
        "pyproject.toml",
        "requirements.lock",
        "requirements.in",
    ]


@pytest.mark.parametrize("path", _trusted_paths())
def test_every_trusted_path_has_a_code_owner(path):
    owners = _owners(path)
    assert owners and all(owner.startswith("@") for owner in owners), path


def test_a_submission_needs_no_code_owner():
    # contributors' proofs are judged by the workflow, not held for a maintainer's review
    assert _owners("Submissions/S001/AliceDirect.lean") == []
    assert _owners("Certificates/C001/submissions/w.json") == []


def test_the_selftest_checks_the_policys_token_table_against_leans():
    steps = load(WORKFLOWS / "verify.yml")["jobs"]["selftest"]["steps"]
    runs = [s.get("run", "") for s in steps]
    check = next(run for run in runs if "check_token_table.py" in run)
    assert "lake env lean scripts/token_table.lean > token-table.txt" in check
    # after the set-up that fetches Mathlib, before any byte of the head is here
    names = [s.get("name") or s.get("uses", "") for s in steps]
    at = next(i for i, s in enumerate(steps) if "check_token_table.py" in s.get("run", ""))
    assert (
        names.index("./.github/actions/lean-setup")
        < at
        < names.index("Check out the head, as data")
    )
