"""jig's cache folder: where it is, and that it is used only while it is the invoking user's
alone, every entry reached through no link and written closed to others."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from jigcli import cachedir
from jigcli.cachedir import NotPrivate, default_cache_dir, private_root

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to plant another user's file")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv("JIG_CACHE_DIR", str(root))
    monkeypatch.setattr(cachedir, "_warned", set())
    return root


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


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


def test_an_entry_is_named_by_all_it_is_made_from_and_read_through_no_link(cache: Path) -> None:
    kept = cachedir.entry("probes", ["bwrap", 1], ".json")
    assert kept.shown().parent == cache / "probes" and kept.name.endswith(".json")
    assert cachedir.entry("probes", ["bwrap", 2], ".json") != kept
    assert cachedir.read_entry(kept, 64) is None  # nothing kept yet: a miss
    cachedir.keep(kept, b"{}")
    assert cachedir.read_entry(kept, 64) == b"{}"
    assert cachedir.read_entry(kept, 1) is None  # over its cap: a miss
    secret = cache.parent / "secret"
    secret.write_bytes(b"not a cache entry")
    kept.shown().unlink()
    kept.shown().symlink_to(secret)
    assert cachedir.read_entry(kept, 64) is None  # a link is never followed
    cachedir.keep(kept, b"[]")  # nor written through: it is replaced
    assert secret.read_bytes() == b"not a cache entry"
    cachedir.forget(kept)
    assert not kept.shown().exists() and not kept.shown().is_symlink()


def test_under_umask_000_everything_jig_makes_is_the_users_alone(cache: Path) -> None:
    old = os.umask(0)
    try:
        cachedir.keep(cachedir.entry("seccomp", ["rules"], ".bpf"), b"\0" * 8)
    finally:
        os.umask(old)
    assert _mode(cache) == 0o700 and _mode(cache / "seccomp") == 0o700
    (kept,) = (cache / "seccomp").iterdir()
    assert _mode(kept) == 0o600


def test_missing_folders_above_the_cache_are_made_closed_too(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("JIG_CACHE_DIR", str(tmp_path / "a" / "b" / "jig"))
    old = os.umask(0)
    try:
        private_root()
    finally:
        os.umask(old)
    assert _mode(tmp_path / "a") == _mode(tmp_path / "a" / "b") == 0o700


def test_a_subfolder_swapped_for_a_link_is_neither_read_nor_written(cache: Path) -> None:
    kept = cachedir.entry("probes", ["bwrap"], ".json")
    cachedir.keep(kept, b'{"mechanism": "cgroup"}')
    elsewhere = cache.parent / "elsewhere"
    (cache / "probes").rename(elsewhere)
    (cache / "probes").symlink_to(elsewhere)
    assert cachedir.read_entry(kept, 1024) is None
    cachedir.keep(kept, b'{"mechanism": null}')
    assert (elsewhere / kept.name).read_bytes() == b'{"mechanism": "cgroup"}'


def test_a_cache_folder_open_to_others_is_refused_once_and_not_used(cache, capsys) -> None:
    kept = cachedir.entry("probes", ["bwrap"], ".json")
    cachedir.keep(kept, b"planted?")
    os.chmod(cache, 0o777)  # what an old jig made under umask 000: anyone could plant entries
    with pytest.raises(NotPrivate, match="can be written by others \\(mode 0777\\)"):
        private_root()
    assert cachedir.read_entry(kept, 1024) is None
    cachedir.keep(cachedir.entry("probes", ["other"], ".json"), b"x")
    assert cachedir.read_entry(kept, 1024) is None
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and said[0].startswith("jig: warning: the cache folder ")
    assert "set JIG_CACHE_DIR to a folder of your own" in said[0]
    assert len(list((cache / "probes").iterdir())) == 1  # nothing written into it


def test_a_cache_folder_only_others_could_read_is_closed_and_used(cache: Path) -> None:
    private_root()
    os.chmod(cache, 0o755)  # an older jig's; nobody else could write in it
    kept = cachedir.entry("probes", ["bwrap"], ".json")
    cachedir.keep(kept, b"{}")
    assert _mode(cache) == 0o700 and cachedir.read_entry(kept, 64) == b"{}"


def test_a_cache_folder_that_is_a_link_is_refused(cache: Path) -> None:
    real = cache.parent / "real"
    real.mkdir(mode=0o700)
    cache.symlink_to(real)
    with pytest.raises(NotPrivate, match="is a symbolic link"):
        private_root()


def test_a_folder_above_that_others_may_write_without_the_sticky_bit_is_refused(
    tmp_path, monkeypatch
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # another user could rename jig's folder and put theirs there
    monkeypatch.setenv("JIG_CACHE_DIR", str(shared / "jig"))
    with pytest.raises(NotPrivate, match="can be changed by another user"):
        private_root()
    os.chmod(shared, 0o1777)  # sticky, as /tmp is: only the owner may rename what is in it
    assert private_root() == shared / "jig"


def test_a_file_open_to_others_is_a_miss(cache: Path) -> None:
    kept = cachedir.entry("probes", ["bwrap"], ".json")
    cachedir.keep(kept, b"{}")
    os.chmod(kept.shown(), 0o666)
    assert cachedir.read_entry(kept, 64) is None


@as_root
def test_a_cache_folder_of_another_user_is_refused(cache: Path) -> None:
    cache.mkdir(mode=0o700)
    os.chown(cache, NOBODY, NOBODY)
    with pytest.raises(NotPrivate, match=f"belongs to another user \\(uid {NOBODY}\\)"):
        private_root()


@as_root
def test_an_entry_another_user_planted_is_a_miss(cache: Path) -> None:
    kept = cachedir.entry("seccomp", ["rules"], ".bpf")
    cachedir.keep(kept, b"\x06\0\0\0\0\0\xff\x7f")  # one instruction: allow everything
    os.chown(kept.shown(), NOBODY, NOBODY)
    assert cachedir.read_entry(kept, 1024) is None
    os.chown(cache / "seccomp", NOBODY, NOBODY)  # or the folder it lies in
    os.chown(kept.shown(), 0, 0)
    assert cachedir.read_entry(kept, 1024) is None


def test_a_cache_folder_that_cannot_be_made_is_a_warning_and_no_cache(
    tmp_path, monkeypatch, capsys
):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("JIG_CACHE_DIR", str(blocker / "jig"))  # as for nobody's /nonexistent
    monkeypatch.setattr(cachedir, "_warned", set())
    kept = cachedir.entry("probes", ["bwrap"], ".json")
    cachedir.keep(kept, b"{}")
    assert cachedir.read_entry(kept, 64) is None
    (said,) = capsys.readouterr().err.splitlines()
    assert said.startswith("jig: warning: ") and "set JIG_CACHE_DIR" in said


def test_an_older_jigs_open_to_read_folders_are_closed_and_used(cache: Path) -> None:
    kept = cachedir.entry("seccomp", ["rules"], ".bpf")
    cachedir.keep(kept, b"\0" * 8)
    os.chmod(cache / "seccomp", 0o755)  # as jig made them before it made them private
    os.chmod(kept.shown(), 0o644)
    assert cachedir.read_entry(kept, 64) == b"\0" * 8
    assert _mode(cache / "seccomp") == 0o700


# -- with a real second user: the host's nobody, as the tests run as root ---------------------

SYSTEM_PYTHON = "/usr/bin/python3"
as_root_with_a_second_user = pytest.mark.skipif(
    os.geteuid() != 0 or not Path(SYSTEM_PYTHON).exists(),
    reason="needs root and the system Python, to act as nobody",
)


def _as_nobody(code: str) -> str:
    from .conftest import run_as_nobody

    done = run_as_nobody([SYSTEM_PYTHON, "-c", code], env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def reachable(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder under /tmp that nobody can reach (pytest's own is root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="jig-cache-test-"))
    folder.chmod(0o755)
    monkeypatch.setattr(cachedir, "_warned", set())
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@as_root_with_a_second_user
def test_another_user_can_neither_plant_nor_swap_an_entry_of_a_private_cache(
    reachable: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = reachable / "jig"
    monkeypatch.setenv("JIG_CACHE_DIR", str(cache))
    kept = cachedir.entry("probes", ["bwrap"], ".json")
    cachedir.keep(kept, b'{"ok": true}')
    said = _as_nobody(
        "import os\n"
        f"for attempt in (lambda: open({str(kept.shown())!r}, 'wb'),\n"
        f"                lambda: open({str(cache / 'probes' / 'planted.json')!r}, 'wb'),\n"
        f"                lambda: os.rename({str(cache)!r}, {str(reachable / 'moved')!r})):\n"
        "    try:\n"
        "        attempt()\n"
        "        print('done')\n"
        "    except OSError as error:\n"
        "        print(type(error).__name__)\n"
    )
    assert said.split() == ["PermissionError"] * 3, said
    assert cachedir.read_entry(kept, 64) == b'{"ok": true}'


@as_root_with_a_second_user
def test_a_cache_another_user_made_in_a_shared_folder_is_refused(
    reachable: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = reachable / "shared"
    shared.mkdir()
    shared.chmod(0o777)  # writable by all, without the sticky bit
    root = shared / "jig"
    # nobody makes the cache folder first, closed to others as jig makes its own, and plants a
    # probe there
    assert (
        _as_nobody(
            "import os\n"
            f"os.makedirs({str(root / 'probes')!r}, mode=0o700)\n"
            f"open({str(root / 'probes' / 'forged.json')!r}, 'w').write('{{}}')\n"
            "print('planted')\n"
        )
        == "planted"
    )
    monkeypatch.setenv("JIG_CACHE_DIR", str(root))
    with pytest.raises(NotPrivate):
        private_root()
    # Nor would a folder of root's own there do: nobody could rename it and put its own there.
    assert (
        _as_nobody(f"import os\nos.rename({str(root)!r}, {str(shared / 'gone')!r})\nprint('moved')")
        == "moved"
    )
    root.mkdir(mode=0o700)
    with pytest.raises(NotPrivate):
        private_root()
