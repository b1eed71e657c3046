"""jig's own writes: atomic, beneath a trusted folder, never through a link."""

import pytest

from jigcli.safewrite import UnsafeTarget, write_beneath, write_file


def test_a_file_is_written_and_replaced_atomically(tmp_path):
    write_beneath(tmp_path, "a/b/c.json", b"one")
    write_beneath(tmp_path, "a/b/c.json", b"two")
    assert (tmp_path / "a/b/c.json").read_bytes() == b"two"
    assert sorted(p.name for p in (tmp_path / "a/b").iterdir()) == ["c.json"]  # no temporary


def test_a_linked_folder_below_the_base_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / ".jig").symlink_to(outside)
    with pytest.raises(UnsafeTarget, match="is a symbolic link"):
        write_beneath(tmp_path / "repo", ".jig/verdicts/x.json", b"x")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("planted", ["link", "folder", "file-as-folder"])
def test_a_link_or_a_folder_where_the_file_goes_is_refused(tmp_path, planted):
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched")
    target = tmp_path / "out" / "v.json"
    target.parent.mkdir()
    if planted == "link":
        target.symlink_to(outside)
    elif planted == "folder":
        target.mkdir()
    else:
        (tmp_path / "out" / "sub").write_text("a file")
        target = tmp_path / "out" / "sub" / "v.json"
    with pytest.raises(OSError):  # UnsafeTarget, or the folder that cannot be made
        write_file(target, b"verdict")
    assert outside.read_text() == "untouched"
