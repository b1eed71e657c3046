"""The git side of posing, on real repositories."""

from __future__ import annotations

import git
import pytest

from jigcli.errors import UsageError
from jigcli.pose.history import open_history


def test_a_folder_outside_git_has_no_history(tmp_path):
    assert open_history(tmp_path) is None


def test_ever_names_files_deleted_since_with_the_newest_commit(verifier):
    verifier.write("Statements/S009.lean", "-- posed\n")
    verifier.commit("Add S009", "Statements")
    (verifier.root / "Statements" / "S009.lean").unlink()
    removal = verifier.commit("Remove S009", "Statements")
    history = open_history(verifier.root)
    assert history.ever("Statements") == {
        "Statements/S001.lean": history.resolve("HEAD~2"),
        "Statements/S009.lean": removal,
    }


def test_ever_keeps_the_old_name_of_a_renamed_file(verifier):
    verifier.git.git.mv("Statements/S001.lean", "Statements/S001b.lean")
    verifier.commit("Rename", "Statements")
    found = open_history(verifier.root).ever("Statements")
    assert {"Statements/S001.lean", "Statements/S001b.lean"} <= set(found)


def test_ever_sees_a_file_that_lived_and_died_on_a_merged_side_branch(verifier):
    main = verifier.git.active_branch.name
    verifier.git.git.checkout("-b", "side")
    verifier.write("Statements/S007.lean", "-- briefly\n")
    verifier.commit("Add S007", "Statements")
    (verifier.root / "Statements" / "S007.lean").unlink()
    verifier.commit("Remove S007", "Statements")
    verifier.git.git.checkout(main)
    verifier.write("notes.txt", "main moves on\n")
    verifier.commit("Notes", "notes.txt")
    verifier.git.git.merge("--no-ff", "-m", "Merge side", "side")
    verifier.git.git.branch("-D", "side")
    found = open_history(verifier.root).ever("Statements", reachable_from="HEAD")
    assert "Statements/S007.lean" in found


def test_ever_from_one_commit_ignores_later_and_other_commits(verifier):
    base = verifier.git.head.commit.hexsha
    verifier.write("Statements/S002.lean", "-- later\n")
    verifier.commit("Add S002", "Statements")
    history = open_history(verifier.root)
    assert set(history.ever("Statements", reachable_from=base)) == {"Statements/S001.lean"}
    assert "Statements/S002.lean" in history.ever("Statements")


def test_a_repository_without_commits_has_empty_history(tmp_path):
    git.Repo.init(tmp_path)
    assert open_history(tmp_path).ever("Statements") == {}


def test_paths_are_relative_to_a_verifier_root_below_the_work_tree(tmp_path, git_repo):
    top = git_repo(tmp_path)
    top.write("verifier/Statements/S001.lean", "-- nested\n")
    top.write("Statements/Other.lean", "-- outside the verifier root\n")
    top.commit("Nested", ".")
    history = open_history(tmp_path / "verifier")
    assert set(history.ever("Statements")) == {"Statements/S001.lean"}
    head = history.resolve("HEAD")
    assert set(history.files_at(head, "Statements")) == {"Statements/S001.lean"}
    assert history.read(head, "Statements/S001.lean") == b"-- nested\n"


def test_files_at_and_read_see_the_commit_not_the_working_tree(verifier):
    history = open_history(verifier.root)
    head = history.resolve("HEAD")
    original = (verifier.root / "Statements" / "S001.lean").read_bytes()
    verifier.write("Statements/S001.lean", "-- edited, not committed\n")
    assert history.read(head, "Statements/S001.lean") == original
    assert history.read(head, "Statements/None.lean") is None
    assert history.files_at(head, "Nowhere") == {}


def test_a_ref_that_does_not_resolve_is_a_usage_error(verifier):
    with pytest.raises(UsageError, match="'no-such-branch' does not name a commit here"):
        open_history(verifier.root).resolve("no-such-branch")


def test_the_default_base_is_head_parent_without_origin_main(verifier):
    verifier.write("notes.txt", "x\n")
    verifier.commit("Notes", "notes.txt")
    history = open_history(verifier.root)
    assert history.default_base() == ("HEAD~1", history.resolve("HEAD~1"))


def test_the_default_base_is_the_merge_base_with_origin_main(verifier):
    fork = verifier.git.head.commit.hexsha
    verifier.write("a.txt", "1\n")
    verifier.commit("One", "a.txt")
    verifier.write("b.txt", "2\n")
    verifier.commit("Two", "b.txt")
    verifier.git.git.update_ref("refs/remotes/origin/main", fork)
    assert open_history(verifier.root).default_base() == ("merge base with origin/main", fork)


def test_a_single_commit_without_origin_main_has_no_default_base(verifier):
    with pytest.raises(UsageError, match="HEAD has no parent"):
        open_history(verifier.root).default_base()


def test_commit_only_commits_just_the_named_files(verifier):
    verifier.write("staged.txt", "keep staged\n")
    verifier.git.git.add("staged.txt")
    verifier.write("Statements/S003.lean", "-- new\n")
    commit = open_history(verifier.root).commit_only(["Statements/S003.lean"], "Add S003")
    assert list(verifier.git.commit(commit).stats.files) == ["Statements/S003.lean"]
    assert "A  staged.txt" in verifier.status().splitlines()
