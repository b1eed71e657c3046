"""Write-once names: a statement label or a problem id is used once, ever.

A name is taken when its file (or folder) is in the tree now, or was in any commit of the
history, even if it has been deleted since: a proposition posted under a label is what every
green verdict for that label meant, so the label can never mean anything else. A name that
differs from a taken one only in case is taken too: the two files would collide on
case-insensitive file systems (macOS, Windows), where a checkout would silently mix them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

from jigcli.pose.history import History, short


def names_in(folder: Path) -> set[str]:
    """The entries of a folder in the working tree (none when it does not exist)."""
    return {entry.name for entry in folder.iterdir()} if folder.is_dir() else set()


def names_ever(
    history: History | None, folder: str, *, reachable_from: str | None = None
) -> dict[str, str]:
    """The first path component under `folder` of every path the history ever held there,
    each with the newest commit naming it."""
    if history is None:
        return {}
    found: dict[str, str] = {}
    for path, commit in history.ever(folder, reachable_from=reachable_from).items():
        name = path.removeprefix(folder + "/").split("/", 1)[0]
        found.setdefault(name, commit)
    return found


def reuse_problem(
    name: str,
    folder: str,
    *,
    present: Iterable[str],
    past: Mapping[str, str],
    rule: str,
) -> str | None:
    """Why `folder/name` cannot be created, or None. `present`: names in the tree now;
    `past`: names the history held (name → newest commit); `rule`: what to do instead."""
    target = f"{folder}/{name}"
    present = set(present)
    if name in present:
        return f"{target} already exists: {rule}"
    if name in past:
        return (
            f"{target} existed before (commit {short(past[name])} touched it last; deleting "
            f"does not free a name): {rule}"
        )
    for other in sorted(present | set(past)):
        if other.casefold() == name.casefold():
            return (
                f"{folder}/{other} is taken, and {target} differs from it only in case, so the "
                f"two would collide on case-insensitive file systems: {rule}"
            )
    return None
