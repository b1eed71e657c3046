import json

import pytest

from jigcli.errors import UsageError
from jigcli.repo import Repo
from jigcli.selftest.discover import discover


def test_finds_expecting_manifests_in_submissions_and_certificate_folders(repo_root, kit):
    kit.lean_manifest(repo_root, "Submissions/S001/Alice.json")
    kit.lean_manifest(repo_root, "Submissions/S002/deep/Bob.json", "red", "sorry")
    kit.certificate_manifest(repo_root, "C001", "good")
    cases = discover(Repo(repo_root))
    assert [c.rel for c in cases] == [
        "Certificates/C001/submissions/good.json",
        "Submissions/S001/Alice.json",
        "Submissions/S002/deep/Bob.json",
    ]
    assert [c.kind for c in cases] == ["certificate", "lean", "lean"]
    assert cases[2].expect == "red" and cases[2].expect_reason == "sorry"


def test_skips_manifests_without_expect_and_json_that_is_no_manifest(repo_root, kit):
    kit.lean_manifest(repo_root, "Submissions/S001/Alice.json")
    contributed = kit.lean_manifest(repo_root, "Submissions/S001/Carol.json")
    data = json.loads(contributed.read_text())
    del data["expect"]
    contributed.write_text(json.dumps(data))
    folder = repo_root / "Certificates/C001/submissions"
    folder.mkdir(parents=True)
    (folder / "witness.json").write_text('{"expect": "green", "edges": []}')
    (folder / "broken.json").write_text('{"schema": "conject.submission.v1", ')
    (folder / "list.json").write_text("[1, 2]")
    assert [c.rel for c in discover(Repo(repo_root))] == ["Submissions/S001/Alice.json"]


def test_skips_hidden_folders(repo_root, kit):
    kit.lean_manifest(repo_root, "Submissions/.lake/S001/Cached.json")
    kit.lean_manifest(repo_root, "Submissions/S001/Alice.json")
    assert [c.rel for c in discover(Repo(repo_root))] == ["Submissions/S001/Alice.json"]


def test_certificate_manifests_outside_submissions_folders_are_not_examples(repo_root, kit):
    kit.write_json(
        repo_root / "Certificates/C001/spec.json",
        {"schema": "conject.submission.v1", "kind": "certificate", "expect": "green"},
    )
    kit.certificate_manifest(repo_root, "C001", "good")
    assert [c.rel for c in discover(Repo(repo_root))] == ["Certificates/C001/submissions/good.json"]


def test_paths_restrict_the_search_to_files_and_folders(repo_root, kit):
    alice = kit.lean_manifest(repo_root, "Submissions/S001/Alice.json")
    kit.lean_manifest(repo_root, "Submissions/S002/Bob.json")
    kit.certificate_manifest(repo_root, "C001", "good")
    cases = discover(Repo(repo_root), [alice, repo_root / "Certificates"])
    assert [c.rel for c in cases] == [
        "Certificates/C001/submissions/good.json",
        "Submissions/S001/Alice.json",
    ]


def test_a_path_given_twice_is_one_case(repo_root, kit):
    alice = kit.lean_manifest(repo_root, "Submissions/S001/Alice.json")
    assert len(discover(Repo(repo_root), [alice, alice.parent, alice])) == 1


def test_a_missing_path_is_a_usage_error(repo_root):
    with pytest.raises(UsageError, match="no such file or folder"):
        discover(Repo(repo_root), [repo_root / "Submissions/Nope.json"])


def test_a_path_outside_the_repo_is_a_usage_error(repo_root, tmp_path, kit):
    outside = kit.lean_manifest(tmp_path / "elsewhere", "Submissions/S001/Alice.json")
    with pytest.raises(UsageError, match="outside the repo"):
        discover(Repo(repo_root), [outside])


def test_a_file_without_expect_given_by_path_is_a_usage_error(repo_root):
    path = repo_root / "notes.json"
    path.write_text("{}")
    with pytest.raises(UsageError, match="not a submission manifest with an `expect`"):
        discover(Repo(repo_root), [path])


def test_no_example_folders_means_no_cases(repo_root):
    assert discover(Repo(repo_root)) == []
