"""jig's cache folder: the override, else the platform's user cache folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from jigcli.cachedir import default_cache_dir


def test_jig_cache_dir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"


@pytest.mark.parametrize("xdg", [None, "/somewhere/cache", "relative/cache", ""])
def test_without_it_the_folder_is_the_one_platformdirs_names(
    xdg: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from platformdirs import user_cache_dir

    monkeypatch.delenv("JIG_CACHE_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert default_cache_dir() == Path(user_cache_dir("jig"))
