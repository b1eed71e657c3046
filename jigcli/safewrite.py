"""jig's own writes (a verdict, the selftest's verdict files, the cache): never through a link.

A file is written beneath a folder jig trusts (the repo root, `--out`'s folder, the cache):
every folder below it is opened without following a link (made when missing), the data
goes to a fresh temporary file created there with O_EXCL under a random name, and that file
is renamed over the target, which itself must not be a link or a folder. A planted
`<out>.tmp` link, a committed `.jig` link or a folder where the file goes is refused in one
sentence (`UnsafeTarget`, an OSError whose `strerror` is that sentence), never followed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path, PurePosixPath

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class UnsafeTarget(OSError):
    """Where jig was to write is a link or a folder; `strerror` says so in a sentence."""

    def __init__(self, sentence: str) -> None:
        super().__init__(errno.EPERM, sentence)


def write_beneath(base: Path, relative: str, data: bytes) -> None:
    """Write `data` to `base/relative` atomically, through no link below `base`."""
    parts = PurePosixPath(relative).parts
    if not parts or ".." in parts or PurePosixPath(relative).is_absolute():
        raise ValueError(f"{relative!r} is not a path below {base}")
    folder = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for depth, part in enumerate(parts[:-1]):
            with contextlib.suppress(FileExistsError):
                os.mkdir(part, 0o755, dir_fd=folder)
            shown = base.joinpath(*parts[: depth + 1])
            following = _open_folder(part, folder, shown)
            os.close(folder)
            folder = following
        _replace(folder, parts[-1], data, base.joinpath(*parts))
    finally:
        os.close(folder)


def write_file(path: Path, data: bytes) -> None:
    """Write `data` to `path` atomically; its folders (made when missing) are the caller's
    to choose, the file itself must not be a link or a folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_beneath(path.parent, path.name, data)


def _open_folder(name: str, parent: int, shown: Path) -> int:
    if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
        raise UnsafeTarget(f"{shown} is a symbolic link; jig writes only into real folders")
    try:
        return os.open(name, _FOLDER, dir_fd=parent)  # O_NOFOLLOW: a swapped-in link fails
    except OSError:
        raise UnsafeTarget(f"{shown} is not a folder; jig cannot write below it") from None


def _replace(folder: int, name: str, data: bytes, shown: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
        if stat.S_ISLNK(mode):
            raise UnsafeTarget(f"{shown} is a symbolic link; jig does not write through one")
        if stat.S_ISDIR(mode):
            raise UnsafeTarget(f"{shown} is a folder; jig writes a file there")
    # Not derived from `name`: a name near the 255-byte limit must still get a temporary.
    temporary = f".jig-{os.urandom(8).hex()}.tmp"
    fd = os.open(temporary, _NEW, 0o644, dir_fd=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise


def check_folders(base: Path, relative: str) -> None:
    """Refuse (`UnsafeTarget`) when a folder of `base/relative` that exists is a link or not
    a folder: where jig is about to work, before it starts (a committed `.jig` link)."""
    current = base
    for part in PurePosixPath(relative).parts:
        current = current / part
        if current.is_symlink():
            raise UnsafeTarget(f"{current} is a symbolic link; jig writes only into real folders")
        if not current.exists():
            return
        if not current.is_dir():
            raise UnsafeTarget(f"{current} is not a folder; jig cannot write below it")
