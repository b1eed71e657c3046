"""What `jig verify` checks of its arguments before any work (light: the certificate path's
start-up imports it)."""

from __future__ import annotations

import os
from pathlib import Path

from jigcli.errors import RepoNotFound, UsageError
from jigcli.repo import Repo
from jigcli.safewrite import UnsafeTarget

# Files people pass where a manifest belongs: the proof, a witness, a paper.
NOT_MANIFESTS = (".lean", ".tex", ".pdf", ".witness", ".txt", ".olean")


# Linux's limits on a path and on one of its names (PATH_MAX, NAME_MAX), in bytes.
PATH_BYTES, NAME_BYTES = 4096, 255


def check_path_length(path: Path) -> None:
    """Refuse a path no system call can take (a usage error, not a crash), shown cut short."""
    from jigcli.display import one_line

    raw = os.fsencode(path)
    longest = max((len(part) for part in raw.split(b"/")), default=0)
    if len(raw) < PATH_BYTES and longest <= NAME_BYTES:
        return
    shown = one_line(path, 60)
    if len(raw) >= PATH_BYTES:
        why = f"is {len(raw)} bytes long, past the system's limit of {PATH_BYTES - 1}"
    else:
        why = f"has a name of {longest} bytes, past the system's limit of {NAME_BYTES}"
    raise UsageError(f"{shown} {why}; pass a shorter path to the manifest.")


def check_manifest_argument(manifest: Path) -> None:
    """Refuse, before any work, an argument that cannot be a manifest, naming the right file."""
    check_path_length(manifest)
    if manifest.suffix in NOT_MANIFESTS:
        beside = manifest.with_suffix(".json")
        hint = f"pass {beside}" if beside.is_file() else "pass the submission's manifest (.json)"
        raise UsageError(f"{manifest} is not a manifest; {hint}, which names it.")
    if not manifest.is_file():
        raise UsageError(f"{manifest}: no such manifest; pass the path of a submission's .json.")


def check_work_folder(repo: Repo) -> None:
    """`.jig/work`, where each verification's scratch folder is, must be a real folder."""
    try:
        repo.check_work_folders("work")
    except UnsafeTarget as refused:
        raise UsageError(f"{refused.strerror}; remove it and run jig verify again") from None


def repo_for(manifest: Path, root: Path | None) -> Repo:
    """`--root`, else the repo above the working directory, else the one above the manifest."""
    try:
        return Repo.locate(root)
    except RepoNotFound:
        return Repo.locate(start=manifest.resolve().parent)
