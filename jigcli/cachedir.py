"""Where jig keeps what it can always rebuild, and the one way it reads and writes there.

The folder is `$JIG_CACHE_DIR`, else the platform's user cache folder
(`platformdirs.user_cache_dir("jig")`; on Linux `$XDG_CACHE_HOME/jig`, else `~/.cache/jig`,
computed here without importing platformdirs, which a quick command would spend a good part
of its time loading).

What a cache holds decides things: the route probe says how a checker's processes are
capped, a kept verdict answers a self-test (the seccomp filter, which would decide what a
checker may call, is never kept: each process builds its own). So a cache is trusted only
as far as whoever can write it, and jig uses one only when that is the invoking user alone
(`private_root`):

- the folder is jig's own: owned by the user, not a link, mode 0700 (jig makes it so, under
  any umask; one it finds open to others it refuses, saying so once, and works without it);
- no folder above it lets another user swap it: each is owned by root or the user and is not
  writable by others unless sticky (as `/tmp` is);
- below it every folder and file is reached from the folder held open, through no link,
  and must be the user's and closed to others (`read_entry`, `keep`).

Each entry is one file named by a digest of everything it is made from, so a change to any
of it is a miss, never a stale hit; a damaged or refused entry is a miss, never an error and
never a verdict. Nothing kept here is code: the schema validators ship compiled in the
package (`jigcli.schemas.compiled`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from jigcli.errors import UsageError
from jigcli.safefiles import Unreadable, others_may_swap_in, read_from

_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def default_cache_dir() -> Path:
    override = os.environ.get("JIG_CACHE_DIR")
    if override:
        return Path(os.path.abspath(override))
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
        base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
        return base / "jig"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("jig"))


class NotPrivate(UsageError):
    """The cache folder could be written by someone other than the invoking user; the
    message is the sentence that says so and what to do (a usage error where a command
    needs the folder, a warning where the cache only saves time)."""


def private_root() -> Path:
    """The cache folder, made if missing, once it is private to the invoking user; else
    `NotPrivate` saying why (a command that needs a folder there says it as its error)."""
    root = default_cache_dir()
    _check_above(root)
    _make_private(root)
    return root


_warned: set[str] = set()
_warn_lock = threading.Lock()


def usable_root() -> Path | None:
    """`private_root`, or None when it is not private: a cache that only saves time is then
    not used, said once per process on stderr."""
    try:
        return private_root()
    except NotPrivate as refused:
        with _warn_lock:
            if str(refused) not in _warned:
                _warned.add(str(refused))
                sys.stderr.write(f"jig: warning: {refused}\n")
        return None


def _check_above(root: Path) -> None:
    """No folder above `root` lets another user rename or replace what lies below it."""
    for folder in reversed(root.parents):
        try:
            info = os.stat(folder)
        except FileNotFoundError:
            return  # made below by jig itself, private
        except OSError as error:
            raise NotPrivate(f"cannot look at {folder} ({error.strerror}); {_FIX}") from None
        if not stat.S_ISDIR(info.st_mode):
            raise NotPrivate(f"{folder} is not a folder; {_FIX}")
        if others_may_swap_in(info):
            raise NotPrivate(
                f"{folder} (above the cache folder {root}) can be changed by another user, "
                f"who could swap the cache; {_FIX}"
            )


_FIX = "set JIG_CACHE_DIR to a folder of your own (jig makes it, mode 0700)"


def _make_private(root: Path) -> None:
    """Make `root` (and any missing folder above it) mode 0700, or check that it is."""
    missing = [folder for folder in (root, *root.parents) if not os.path.lexists(folder)]
    try:
        for folder in reversed(missing):
            with contextlib.suppress(FileExistsError):
                os.mkdir(folder, 0o700)  # umask only clears bits: never wider than 0700
        info = os.lstat(root)
    except OSError as error:
        why = f"cannot make the cache folder {root} ({error.strerror}); {_FIX}"
        raise NotPrivate(why) from None
    refusal = _refusal(info, f"the cache folder {root}")
    if refusal is None:
        return
    if _only_too_readable(info):  # made 0755 by an older jig: nobody else could write in it
        os.chmod(root, 0o700, follow_symlinks=False)
        return
    raise NotPrivate(f"{refusal}; {_FIX}, or remove it (rm -r {root}) and jig remakes it")


def _refusal(info: os.stat_result, what: str) -> str | None:
    """Why a folder or file jig is to trust is not the user's alone, or None."""
    if stat.S_ISLNK(info.st_mode):
        return f"{what} is a symbolic link"
    if info.st_uid != os.geteuid():
        return f"{what} belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"{what} can be written by others (mode {stat.S_IMODE(info.st_mode):04o})"
    if stat.S_ISDIR(info.st_mode) and info.st_mode & 0o077:
        return f"{what} can be read by others (mode {stat.S_IMODE(info.st_mode):04o})"
    return None


def _only_too_readable(info: os.stat_result) -> bool:
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o022


class Entry(NamedTuple):
    """One kept file: `kind`/`name` below the cache folder."""

    kind: str
    name: str

    def shown(self) -> Path:
        return default_cache_dir() / self.kind / self.name


def entry(kind: str, stamp: object, suffix: str) -> Entry:
    """The entry in the cache folder's `kind` folder for what `stamp` (everything it is made
    from, with a stable `repr`) determines."""
    digest = hashlib.sha256(repr(stamp).encode()).hexdigest()
    return Entry(kind, f"{digest}{suffix}")


def read_entry(kept: Entry, cap: int) -> bytes | None:
    """What was kept; None when nothing usable is (no private cache, absent, a link, not the
    user's alone, not a regular file, over `cap` bytes, unreadable)."""
    with _kind_folder(kept.kind, make=False) as folder:
        if folder is None:
            return None
        try:
            return read_from(folder, kept.name, cap, private=True)
        except (Unreadable, OSError):
            return None


def keep(kept: Entry, data: bytes) -> None:
    """Keep `data` for later processes: written to a fresh file of mode 0600 beside it and
    renamed over it, all through the folder held open; a cache that cannot be written is
    skipped."""
    with _kind_folder(kept.kind, make=True) as folder:
        if folder is None:
            return
        temporary = f".jig-{os.urandom(8).hex()}.tmp"
        try:
            fd = os.open(temporary, _NEW, 0o600, dir_fd=folder)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(temporary, kept.name, src_dir_fd=folder, dst_dir_fd=folder)
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=folder)


def forget(kept: Entry) -> None:
    with _kind_folder(kept.kind, make=False) as folder:
        if folder is not None:
            with contextlib.suppress(OSError):
                os.unlink(kept.name, dir_fd=folder)


@contextlib.contextmanager
def _kind_folder(kind: str, *, make: bool) -> Iterator[int | None]:
    """The `kind` folder below the private cache folder, held open; None when there is none
    to use (yields rather than returns, so that it is always closed)."""
    fd = _open_kind(kind, make=make)
    try:
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _open_kind(kind: str, *, make: bool) -> int | None:
    root = usable_root()
    if root is None:
        return None
    try:
        parent = os.open(root, _FOLDER)
    except OSError:
        return None
    try:
        return open_private_folder(parent, kind, make=make)
    finally:
        os.close(parent)


def open_private_folder(parent: int, relative: str, *, make: bool) -> int | None:
    """`relative` (folders separated by `/`) below the folder `parent`, held open: each part
    reached through no link, made mode 0700 when `make` and missing, and each the user's
    alone; None when one is missing (and not made) or is not."""
    current = os.dup(parent)
    try:
        for part in relative.split("/"):
            if make:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o700, dir_fd=current)
            try:
                following = os.open(part, _FOLDER, dir_fd=current)
            except OSError as error:
                if error.errno not in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
                    raise
                return None
            os.close(current)
            current = following
            info = os.fstat(current)
            if _refusal(info, part) is not None:
                if not _only_too_readable(info):
                    return None
                os.fchmod(current, 0o700)  # an older jig's 0755: nobody else wrote in it
        opened, current = current, -1
        return opened
    except OSError:
        return None
    finally:
        if current >= 0:
            os.close(current)
