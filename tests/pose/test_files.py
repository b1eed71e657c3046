"""Writing a pose's files: never over an existing file, and all or none."""

from __future__ import annotations

import pytest

from jigcli.pose import PoseRefused
from jigcli.pose.files import WriteFailed, json_bytes, write_new


def test_write_new_creates_every_file_and_its_folders(tmp_path):
    written = write_new(tmp_path, {"A/B/one.txt": b"1", "two.txt": b"2"})
    assert written == ["A/B/one.txt", "two.txt"]
    assert (tmp_path / "A" / "B" / "one.txt").read_bytes() == b"1"


def test_write_new_refuses_an_existing_file_before_writing_any(tmp_path):
    (tmp_path / "two.txt").write_bytes(b"theirs")
    with pytest.raises(PoseRefused, match=r"two\.txt already exists"):
        write_new(tmp_path, {"one.txt": b"1", "two.txt": b"2"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["two.txt"]
    assert (tmp_path / "two.txt").read_bytes() == b"theirs"


def test_a_dangling_link_counts_as_taken(tmp_path):
    (tmp_path / "one.txt").symlink_to(tmp_path / "nowhere")
    with pytest.raises(PoseRefused):
        write_new(tmp_path, {"one.txt": b"1"})


def test_a_failed_write_takes_back_the_files_and_folders_it_made(tmp_path):
    (tmp_path / "blocker").write_bytes(b"a file where a folder is needed")
    with pytest.raises(WriteFailed, match=r"could not write blocker/x\.txt"):
        write_new(tmp_path, {"New/Deep/a.txt": b"a", "blocker/x.txt": b"x"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_json_bytes_is_indented_utf8_with_a_final_newline():
    assert json_bytes({"title": "ℕ"}) == '{\n  "title": "ℕ"\n}\n'.encode()
