"""What `jig verify` checks of its arguments before any work (light: the certificate path's
start-up imports it)."""

from __future__ import annotations

from pathlib import Path

from jigcli.errors import RepoNotFound, UsageError
from jigcli.repo import Repo
from jigcli.safewrite import UnsafeTarget

# Files people pass where a manifest belongs: the proof, a witness, a paper.
NOT_MANIFESTS = (".lean", ".tex", ".pdf", ".witness", ".txt", ".olean")


def check_manifest_argument(manifest: Path) -> None:
    """Refuse, before any work, an argument that cannot be a manifest, naming the right file."""
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
