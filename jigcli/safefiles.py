"""Reading a file that someone else put in the repo (a problem's spec and checker, a witness)
without being led anywhere by it.

Each file is opened without following a symbolic link at any step below the folder it is
named from, without blocking (a FIFO must not hang jig until its budget runs out), and must
be a regular file no larger than its cap, which is checked on the open file before a byte
is read (a multi-GB sparse file costs nothing) and again by reading at most one byte more.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath

_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_FOLDER = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


LINK, MISSING, KIND, SIZE, ERROR = "link", "missing", "kind", "size", "error"


class Unreadable(Exception):
    """The file cannot be used; `str()` says why, to follow the file's name in a sentence;
    `kind` says which way (`LINK`, `MISSING`, `KIND`, `SIZE`, `ERROR`)."""

    def __init__(self, why: str, kind: str = ERROR, size: int | None = None) -> None:
        super().__init__(why)
        self.kind = kind
        self.size = size


def read_file(path: Path, cap: int) -> bytes:
    """The bytes of `path`, whose last part must not be a link (its folders may be)."""
    return _read(lambda: os.open(path, _FILE), cap)


def read_beneath(folder: Path, relative: str, cap: int) -> bytes:
    """The bytes of `relative` under `folder`, no part of which may be a link, `..` or
    absolute (`folder` itself may be reached through links)."""
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
        raise Unreadable("is not a path inside its folder", LINK)

    def opened() -> int:
        current = os.open(folder, _FOLDER)
        try:
            for part in parts[:-1]:
                if stat.S_ISLNK(os.stat(part, dir_fd=current, follow_symlinks=False).st_mode):
                    raise OSError(errno.ELOOP, "a symbolic link", part)
                following = os.open(part, _FOLDER, dir_fd=current)  # O_NOFOLLOW: a race fails
                os.close(current)
                current = following
            return os.open(parts[-1], _FILE, dir_fd=current)
        finally:
            os.close(current)

    return _read(opened, cap)


def _read(opener: Callable[[], int], cap: int) -> bytes:
    try:
        fd = opener()
    except OSError as error:
        raise _unreadable(error) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise Unreadable(f"is {kind}, not a regular file", KIND)
        if info.st_size > cap:
            raise Unreadable(f"is {info.st_size} bytes; at most {cap} are read", SIZE, info.st_size)
        data = _read_up_to(fd, cap + 1)
    except OSError as error:
        raise Unreadable(f"cannot be read: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > cap:
        raise Unreadable(f"grew past {cap} bytes while it was read", SIZE)
    return data


def _read_up_to(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _unreadable(error: OSError) -> Unreadable:
    if error.errno == errno.ELOOP:
        return Unreadable("is, or lies behind, a symbolic link; jig follows none", LINK)
    if error.errno == errno.ENOENT:
        return Unreadable("does not exist", MISSING)
    if error.errno == errno.ENOTDIR:
        return Unreadable("lies behind something that is not a folder", KIND)
    return Unreadable(f"cannot be opened: {error.strerror}")
