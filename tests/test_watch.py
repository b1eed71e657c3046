"""The one --watch loop: which edits check again, and what Ctrl-C leaves as the exit code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jigcli.watch import Checked, check_on_every_edit


class Watcher:
    """A stand-in for `watchfiles.watch`: one batch of changes per list, then maybe a Ctrl-C;
    it keeps the folders it was asked to watch."""

    def __init__(self, *changed: list[Path], interrupt: bool = False) -> None:
        self.changed = changed
        self.interrupt = interrupt
        self.folders: tuple[Path, ...] = ()

    def __call__(self, *folders: Path, **options: Any) -> Iterator[set[tuple[int, str]]]:
        self.folders = folders
        for paths in self.changed:
            yield {(2, str(path)) for path in paths}
        if self.interrupt:
            raise KeyboardInterrupt


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "paper" / "chapters").mkdir(parents=True)
    (tmp_path / "project").mkdir()
    names = {
        "root": "paper/paper.tex",
        "chapter": "paper/chapters/one.tex",
        "other": "project/Lib.lean",
    }
    found = {key: tmp_path / name for key, name in names.items()}
    for path in found.values():
        path.write_text("x")
    return found


def test_only_an_edit_of_a_file_the_check_read_checks_again(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "watchfiles.watch", Watcher([tmp_path / "paper" / "paper.log"], [files["chapter"]])
    )
    firsts: list[bool] = []

    def check(first: bool) -> Checked:
        firsts.append(first)
        return Checked(len(firsts), lambda: None)

    assert check_on_every_edit(check, lambda: set(files.values())) == 2
    assert firsts == [True, False]


def test_one_watch_per_folder_none_below_another(
    files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    watcher = Watcher()
    monkeypatch.setattr("watchfiles.watch", watcher)
    check_on_every_edit(lambda first: Checked(0, lambda: None), lambda: set(files.values()))
    assert sorted(watcher.folders) == [tmp_path / "paper", tmp_path / "project"]


def test_ctrl_c_while_watching_ends_with_the_last_checks_exit_code(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("watchfiles.watch", Watcher([files["root"]], interrupt=True))
    codes = iter([1, 0])
    watched = {files["root"]}
    assert (
        check_on_every_edit(lambda first: Checked(next(codes), lambda: None), lambda: watched) == 0
    )


def test_ctrl_c_while_showing_keeps_the_exit_code_of_the_check_it_interrupted(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("watchfiles.watch", Watcher([files["root"]]))

    def interrupted() -> None:
        raise KeyboardInterrupt

    results = iter([Checked(0, lambda: None), Checked(1, interrupted)])
    watched = {files["root"]}
    assert check_on_every_edit(lambda first: next(results), lambda: watched) == 1


def test_a_check_with_nothing_to_do_keeps_the_last_exit_code(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("watchfiles.watch", Watcher([files["root"]], [files["root"]]))
    results = iter([Checked(1, lambda: None), None, None])
    assert check_on_every_edit(lambda first: next(results), lambda: {files["root"]}) == 1
