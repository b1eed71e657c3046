"""The run folder jig writes for comparator: trusted text only, in the shapes comparator reads
(`Main.lean`'s `Config` at `v4.33.0`), never through a link or over a file."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest

from jigcli.lean.comparator import project
from jigcli.lean.comparator.project import Task
from jigcli.repo import Repo

SOURCE = b"import Statements.S001\n\ntheorem mine : Statements.S001.statement := by\n  decide\n"


def _task(**changes: object) -> Task:
    fields: dict[str, object] = {
        "statement_id": "S001",
        "module": "Submissions.S001.Alice",
        "decl": "mine",
        "refutes": None,
        "imports": ("Statements.S001", "Mathlib.Data.Nat.Basic"),
        "source": SOURCE,
    }
    fields.update(changes)
    return Task(**fields)  # type: ignore[arg-type]


def _write(tmp_path: Path, repo: Repo, task: Task, *, nanoda: bool = False) -> project.RunFolder:
    root = tmp_path / "run"
    root.mkdir(mode=0o700)
    return project.write(root, repo, task, nanoda=nanoda)


def test_the_challenge_states_the_goal_by_name_and_leaves_it_to_sorry():
    text = project.challenge_text(_task())
    assert text.splitlines()[:2] == ["import Statements.S001", "import Mathlib.Data.Nat.Basic"]
    assert "theorem JigRun.goal : Statements.S001.statement :=\n  sorry\n" in text
    assert "Submissions" not in text  # nothing of the submission is built with the challenge


def test_the_solution_is_the_same_theorem_proved_by_the_submitted_declaration():
    challenge, solution = project.challenge_text(_task()), project.solution_text(_task())
    assert "import Submissions.S001.Alice" in solution
    assert "theorem JigRun.goal : Statements.S001.statement :=\n  @mine\n" in solution
    # The two differ only in the submission's import and the proof term.
    assert solution.replace("import Submissions.S001.Alice\n", "").replace("@mine", "sorry") == (
        challenge
    )


def test_a_refutation_link_is_stated_in_both_files_and_judged_as_a_second_theorem():
    task = _task(statement_id="S002", refutes="S001")
    for text in (project.challenge_text(task), project.solution_text(task)):
        assert "import Statements.S002\nimport Statements.S001\n" in text
        assert (
            "theorem JigRun.refutes : Statements.S002.statement ↔ ¬ Statements.S001.statement :="
            "\n  Iff.rfl\n"
        ) in text
    config = json.loads(project.config_text(task, nanoda=False))
    assert config["theorem_names"] == ["JigRun.goal", "JigRun.refutes"]


def test_a_statement_imported_twice_is_imported_once():
    task = _task(refutes="S001", imports=("Statements.S001", "Statements.S001"))
    text = project.solution_text(task)
    assert text.count("import Statements.S001\n") == 1


def test_the_configuration_has_comparators_fields_and_the_three_permitted_axioms():
    config = json.loads(project.config_text(_task(), nanoda=True))
    assert config == {
        "challenge_module": "JigChallenge",
        "solution_module": "JigSolution",
        "theorem_names": ["JigRun.goal"],
        "permitted_axioms": ["propext", "Quot.sound", "Classical.choice"],
        "enable_nanoda": True,
    }


def test_the_lakefile_keeps_the_repos_name_and_requirements_and_builds_one_submission(
    copy_repo,
):
    repo = Repo(copy_repo())
    config = tomllib.loads(project.lakefile_text(repo, _task()))
    ours = tomllib.loads((repo.root / "lakefile.toml").read_text())
    assert config["name"] == ours["name"]
    assert config["require"] == ours["require"]
    libraries = {lib["name"]: lib for lib in config["lean_lib"]}
    assert libraries["JigSubmission"]["roots"] == ["Submissions.S001.Alice"]
    assert libraries["JigRun"]["roots"] == ["JigChallenge", "JigSolution"]
    assert libraries["Statements"]["globs"] == ["Statements.+"]
    assert "Submissions" not in libraries  # no glob over other people's submissions


def test_the_run_folder_holds_the_repos_pins_statements_and_the_scanned_bytes(tmp_path, copy_repo):
    repo = Repo(copy_repo())
    run = _write(tmp_path, repo, _task())
    where = run.project
    for name in ("lake-manifest.json", "lean-toolchain", "Statements/S001.lean"):
        assert (where / name).read_bytes() == (repo.root / name).read_bytes(), name
    assert (where / "Commons/Basic.lean").is_file()
    assert (where / "Submissions/S001/Alice.lean").read_bytes() == SOURCE
    assert (run.dot_lake / "packages").is_dir()
    assert json.loads(run.config.read_text())["solution_module"] == "JigSolution"
    # Other submissions of the repo are not there: the run builds one.
    assert not (where / "Submissions/S001/AliceDirect.lean").exists()
    for folder in (run.control, run.tmp, run.project, run.dot_lake):
        assert folder.stat().st_mode & 0o777 == 0o700, folder


def test_a_submission_whose_module_is_a_run_file_cannot_overwrite_it(tmp_path, copy_repo):
    """A module named like the challenge, or like a statement, would replace trusted text:
    the write refuses a file already there instead."""
    repo = Repo(copy_repo())
    for module in ("Statements.S001", "JigChallenge"):
        root = tmp_path / module
        root.mkdir(mode=0o700)
        task = _task(module=module)
        with pytest.raises(FileExistsError):
            project.write(root, repo, task, nanoda=False)
        if module == "Statements.S001":
            written = (root / "project/Statements/S001.lean").read_bytes()
            assert written == (repo.root / "Statements/S001.lean").read_bytes()


def test_a_linked_commons_file_in_the_repo_is_not_followed(tmp_path, copy_repo):
    repo = Repo(copy_repo())
    secret = tmp_path / "secret.lean"
    secret.write_text("-- not the repo's\n")
    os.symlink(secret, repo.root / "Commons" / "Linked.lean")
    run = _write(tmp_path, repo, _task())
    assert not (run.project / "Commons" / "Linked.lean").exists()
    assert (run.project / "Commons" / "Basic.lean").is_file()
