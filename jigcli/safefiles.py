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
from typing import NamedTuple

_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
_FOLDER = os.O_RDONLY | os.O_NOFOLLOW | os.O_DIRECTORY | os.O_CLOEXEC
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


LINK, MISSING, KIND, SIZE, NAME, ERROR = "link", "missing", "kind", "size", "name", "error"
_LINKED = "is, or lies behind, a symbolic link; jig follows none"
_BAD_NAME = "is not a name a file can have (a NUL or a lone surrogate)"


class Unreadable(Exception):
    """The file cannot be used; `str()` says why, to follow the file's name in a sentence;
    `kind` says which way (`LINK`, `MISSING`, `KIND`, `SIZE`, `NAME`, `ERROR`)."""

    def __init__(self, why: str, kind: str = ERROR, size: int | None = None) -> None:
        super().__init__(why)
        self.kind = kind
        self.size = size


def others_may_swap_in(info: os.stat_result) -> bool:
    """Whether another user could rename or replace what lies in the folder `info` describes:
    it is not root's or the invoking user's, or others may write in it (group: unless it is
    the user's own group) without the sticky bit, which `/tmp` has."""
    others_write = info.st_mode & stat.S_IWOTH or (
        info.st_mode & stat.S_IWGRP and info.st_gid != os.getegid()
    )
    return info.st_uid not in (0, os.geteuid()) or bool(
        others_write and not info.st_mode & stat.S_ISVTX
    )


def read_file(path: Path, cap: int) -> bytes:
    """The bytes of `path`, whose last part must not be a link (its folders may be)."""
    return _read(lambda: os.open(path, _FILE), cap)


def read_beneath(folder: Path, relative: str, cap: int) -> bytes:
    """The bytes of `relative` under `folder`, no part of which may be a link, `..` or
    absolute (`folder` itself may be reached through links)."""
    parts = _parts(relative)
    with open_folder(folder, "/".join(parts[:-1])) as opened:
        return opened.read(parts[-1], cap)


class Folder:
    """A folder held open: the files read through it are the ones in *this* folder, even if
    its path is swapped for a link after it was opened (no window between check and use)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def read(self, name: str, cap: int) -> bytes:
        """The bytes of the regular file `name` in this folder, not a link, at most `cap`."""
        return read_from(self.fd, name, cap)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def open_folder(root: Path, relative: str = "") -> Folder:
    """`root/relative` held open, reached from `root` (trusted: it may be reached through
    links) through no link, `..` or absolute part. `Unreadable` says why not."""
    parts = _parts(relative) if relative else ()
    try:
        current = os.open(root, _FOLDER & ~os.O_NOFOLLOW)
    except OSError as error:
        raise _unreadable(error) from None
    try:
        for part in parts:
            following = _open_child(current, part)
            os.close(current)
            current = following
    except BaseException:
        os.close(current)
        raise
    return Folder(current)


def _open_child(parent: int, name: str) -> int:
    try:
        return os.open(name, _FOLDER, dir_fd=parent)
    except ValueError:  # a NUL, or a lone surrogate no file name can hold
        raise Unreadable(_BAD_NAME, NAME) from None
    except OSError as error:
        # With O_DIRECTORY, some kernels say ENOTDIR for a link rather than ELOOP.
        if error.errno == errno.ENOTDIR and _is_link(parent, name):
            raise Unreadable(_LINKED, LINK) from None
        raise _unreadable(error) from None


def _is_link(parent: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _parts(relative: str) -> tuple[str, ...]:
    path = PurePosixPath(relative)
    parts = path.parts
    if not parts or path.is_absolute() or ".." in parts:
        raise Unreadable("is not a path inside its folder", LINK)
    return parts


def read_from(folder: int, name: str, cap: int, *, private: bool = False) -> bytes:
    """The bytes of the regular file `name` in the open folder `folder`, not a link, at most
    `cap`; with `private`, only a file the invoking user owns and no one else can write."""
    if "/" in name or name in ("", ".", ".."):
        raise Unreadable("is not a file name", LINK)
    return _read(lambda: os.open(name, _FILE, dir_fd=folder), cap, private=private)


def _read(opener: Callable[[], int], cap: int, *, private: bool = False) -> bytes:
    try:
        fd = opener()
    except ValueError:
        raise Unreadable(_BAD_NAME, NAME) from None
    except OSError as error:
        raise _unreadable(error) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = _KINDS.get(stat.S_IFMT(info.st_mode), "not a regular file")
            raise Unreadable(f"is {kind}, not a regular file", KIND)
        if private and (info.st_uid != os.geteuid() or info.st_mode & 0o022):
            raise Unreadable("is not the invoking user's alone", KIND)
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
        return Unreadable(_LINKED, LINK)
    if error.errno == errno.ENOENT:
        return Unreadable("does not exist", MISSING)
    if error.errno == errno.ENOTDIR:
        return Unreadable("lies behind something that is not a folder", KIND)
    return Unreadable(f"cannot be opened: {error.strerror}")


# -- walking a folder ------------------------------------------------------------------------


class WalkLimits(NamedTuple):
    """How far a walk goes: folders below its start, entries in all, bytes in one name."""

    depth: int = 16
    entries: int = 20000
    name_bytes: int = 128


WALK_LIMITS = WalkLimits()


class Walk(NamedTuple):
    """What a walk found below its folder, as repo-style relative paths (`a/b.json`).

    `files`: regular files by the folder's own listing (read them with `read_beneath`, which
    checks again); `odd`: entries whose name is not valid UTF-8, too long or holds a control
    character, with why (the name shown with escapes); `unsearched`: what the walk did not
    look into and why (too deep, too many entries, not readable). Links and special files
    are never entered nor listed."""

    files: list[str]
    odd: list[Odd]
    unsearched: list[tuple[str, str]]


class Odd(NamedTuple):
    """An entry whose name cannot name a case: shown with escapes, why, and where it is (its
    folder relative to the walk's start, and its name as the OS gave it), to open it still."""

    path: str
    why: str
    folder: str
    name: str


def walk(
    root: Path,
    relative: str = "",
    *,
    limits: WalkLimits = WALK_LIMITS,
    skip: Callable[[str], bool] | None = None,
) -> Walk:
    """Every regular file below `root/relative` (itself opened as `open_folder` does), never
    through a link; `skip(path)` leaves a file or folder out. Each list comes sorted."""
    found = Walk([], [], [])
    with open_folder(root, relative) as top:
        pending: list[tuple[int, str, int]] = [(os.dup(top.fd), "", 0)]
    budget = [limits.entries]
    try:
        while pending:
            fd, prefix, depth = pending.pop()
            try:
                _list(fd, prefix, depth, limits, skip, found, pending, budget)
            finally:
                os.close(fd)
    finally:
        for fd, _, _ in pending:
            os.close(fd)
    for listed in (found.files, found.odd, found.unsearched):
        listed.sort()
    return found


def _list(
    fd: int,
    prefix: str,
    depth: int,
    limits: WalkLimits,
    skip: Callable[[str], bool] | None,
    found: Walk,
    pending: list[tuple[int, str, int]],
    budget: list[int],
) -> None:
    """One folder's entries into `found`, its sub-folders onto `pending` (opened)."""
    try:
        entries = list(os.scandir(fd))
    except OSError as error:
        found.unsearched.append((prefix.rstrip("/") or ".", f"cannot be listed: {error.strerror}"))
        return
    for entry in entries:
        shown = prefix + shown_name(entry.name)
        budget[0] -= 1
        if budget[0] < 0:
            found.unsearched.append(
                (prefix.rstrip("/") or ".", f"more than {limits.entries} entries")
            )
            for leftover, _, _ in pending:  # the walk ends here: nothing more is opened
                os.close(leftover)
            pending.clear()
            return
        why = name_problem(entry.name, limits.name_bytes)
        if why is not None and entry.is_dir(follow_symlinks=False):
            found.unsearched.append((shown, why))
        elif why is not None:
            found.odd.append(Odd(shown, why, prefix.rstrip("/"), entry.name))
        elif skip is not None and skip(shown):
            continue
        elif entry.is_file(follow_symlinks=False):
            found.files.append(shown)
        elif entry.is_dir(follow_symlinks=False):
            if depth + 1 > limits.depth:
                found.unsearched.append((shown, f"more than {limits.depth} folders deep"))
                continue
            try:
                pending.append((_open_child(fd, entry.name), shown + "/", depth + 1))
            except Unreadable as why_not:
                found.unsearched.append((shown, str(why_not)))


def name_problem(name: str, max_bytes: int = WalkLimits.name_bytes) -> str | None:
    """Why `name` (as the OS gave it, undecodable bytes escaped) cannot name a case or an
    input, else None."""
    raw = os.fsencode(name)
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "its name is not valid UTF-8; rename it"
    if len(raw) > max_bytes:
        return f"its name is {len(raw)} bytes long, more than the {max_bytes} allowed; shorten it"
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in name):
        return "its name holds a control character; rename it"
    return None


def shown_name(name: str) -> str:
    """`name` as text that can be printed and written as JSON: undecodable bytes escaped."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")
