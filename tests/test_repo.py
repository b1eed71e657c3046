import json

import pytest

from jigcli.errors import RepoNotFound
from jigcli.repo import Repo, find_root


def test_root_is_the_first_folder_with_a_lakefile(tmp_path):
    (tmp_path / "lakefile.toml").write_text("")
    deep = tmp_path / "Submissions" / "S001"
    deep.mkdir(parents=True)
    assert find_root(deep) == tmp_path.resolve()


def test_no_root_is_one_sentence_with_what_to_do(tmp_path):
    with pytest.raises(RepoNotFound, match="--root"):
        find_root(tmp_path)


def test_pins_are_read_from_the_repo(tmp_path):
    (tmp_path / "lean-toolchain").write_text("leanprover/lean4:v4.33.0\n")
    (tmp_path / "lake-manifest.json").write_text(
        json.dumps({"packages": [{"name": "mathlib", "rev": "abc"}]})
    )
    repo = Repo(tmp_path)
    pins = repo.toolchain_pins()
    assert pins["lean_toolchain"] == "leanprover/lean4:v4.33.0"
    assert pins["mathlib_rev"] == "abc"
    assert str(pins["manifest_hash"]).startswith("sha256:")
    assert repo.lean_version == "4.33.0"


def test_module_path(tmp_path):
    assert Repo(tmp_path).module_path("Submissions.S001.A") == tmp_path / "Submissions/S001/A.lean"


def test_root_override_must_be_a_verifier_repo(tmp_path):
    from jigcli.errors import UsageError

    with pytest.raises(UsageError, match="not a verifier repo"):
        Repo.locate(tmp_path)
    (tmp_path / "jig.yaml").write_text("")
    assert Repo.locate(tmp_path).root == tmp_path.resolve()
