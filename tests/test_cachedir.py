"""jig's cache folder: the override, else the platform's user cache folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from jigcli import cachedir
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


def test_an_entry_is_named_by_all_it_is_made_from_and_read_through_no_link(tmp_path, monkeypatch):
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path))
    kept = cachedir.entry("probes", ["bwrap", 1], ".json")
    assert kept.parent == tmp_path / "probes" and kept.suffix == ".json"
    assert cachedir.entry("probes", ["bwrap", 2], ".json") != kept
    assert cachedir.read_entry(kept, 64) is None  # nothing kept yet: a miss
    cachedir.keep(kept, b"{}")
    assert cachedir.read_entry(kept, 64) == b"{}"
    assert cachedir.read_entry(kept, 1) is None  # over its cap: a miss
    secret = tmp_path / "secret"
    secret.write_bytes(b"not a cache entry")
    kept.unlink()
    kept.symlink_to(secret)
    assert cachedir.read_entry(kept, 64) is None  # a link is never followed
    cachedir.keep(kept, b"[]")  # nor written through
    assert secret.read_bytes() == b"not a cache entry"
    cachedir.forget(kept)
    assert not kept.exists() and not kept.is_symlink()
