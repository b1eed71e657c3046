"""Which jig decided: its version and, when it runs from a git checkout, that checkout's commit.

Every verdict records both (`verifier: {version, commit}`), so a verdict can be matched to the
exact verifier that wrote it (a CI run checks out the default branch at some commit, and the
commit of the branch under test says nothing about the judge). The commit is read from the
checkout's own `.git` files, with no process run (jig runs processes only through
`jigcli.process`, and this module must stay standard-library only for the CI fallback script);
`None` when jig is not a git checkout (installed from a wheel) or the files cannot be read.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from jigcli import __version__

_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
_SOURCE = Path(__file__).resolve().parent.parent


@functools.cache
def identity() -> dict[str, str | None]:
    """`{"version": …, "commit": …}` for the jig running now."""
    return {"version": __version__, "commit": checkout_commit(_SOURCE)}


def checkout_commit(folder: Path) -> str | None:
    """The commit `folder`'s git checkout has out (HEAD, through one symbolic ref at most)."""
    git_dir = _git_dir(folder / ".git")
    if git_dir is None:
        return None
    head = _read(git_dir / "HEAD")
    if head is None:
        return None
    if _COMMIT.fullmatch(head):
        return head  # a detached HEAD, as actions/checkout leaves it
    ref = head.removeprefix("ref: ")
    if ref == head or not ref.startswith("refs/") or ".." in ref:
        return None
    common = _common_dir(git_dir)
    for place in (git_dir, common):
        found = _read(place / ref)
        if found is not None and _COMMIT.fullmatch(found):
            return found
    return _packed(common / "packed-refs", ref)


def _git_dir(dot_git: Path) -> Path | None:
    """The git dir: `.git` itself, or where a worktree's `.git` file points."""
    if dot_git.is_dir():
        return dot_git
    pointer = _read(dot_git)
    if pointer is None or not pointer.startswith("gitdir: "):
        return None
    target = Path(pointer.removeprefix("gitdir: "))
    return target if target.is_absolute() else (dot_git.parent / target)


def _common_dir(git_dir: Path) -> Path:
    """A worktree's refs live in the main repository's git dir (`commondir`)."""
    pointer = _read(git_dir / "commondir")
    if pointer is None:
        return git_dir
    target = Path(pointer)
    return target if target.is_absolute() else (git_dir / target)


def _packed(packed_refs: Path, ref: str) -> str | None:
    text = _read(packed_refs, whole=True)
    for line in (text or "").splitlines():
        commit, _, name = line.partition(" ")
        if name == ref and _COMMIT.fullmatch(commit):
            return commit
    return None


def _read(path: Path, whole: bool = False) -> str | None:
    try:
        with path.open(encoding="utf-8") as handle:
            text = handle.read(1 << 20)
    except (OSError, UnicodeDecodeError):
        return None
    return text if whole else text.strip()
