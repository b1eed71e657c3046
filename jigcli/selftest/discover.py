"""Find the example manifests a selftest checks: submission manifests that declare `expect`.

By default the places examples live: every `.json` under `Submissions/` and under each
`Certificates/<ID>/submissions/`. A file there is a manifest when it is a JSON object whose
`schema` is `conject.submission.v1` (a certificate's witness may be JSON too, or even
deliberately broken JSON, so anything else is skipped, never an error). A PATH given on the
command line must be a manifest with an `expect`, or a folder searched the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.errors import UsageError
from jigcli.manifest import MAX_MANIFEST_BYTES
from jigcli.repo import Repo

SUBMISSION_SCHEMA = "conject.submission.v1"


@dataclass(frozen=True)
class Case:
    """One example to verify: where its manifest is and what it expects."""

    path: Path  # absolute
    rel: str  # repo-relative POSIX path: the case's identity everywhere
    data: dict[str, Any]  # the manifest as read (validated later, by `jig verify`'s core)
    raw: bytes  # the bytes `data` was read from (the cache key hashes exactly these)

    @property
    def kind(self) -> str:
        kind = self.data.get("kind")
        return kind if isinstance(kind, str) else "unknown"

    @property
    def expect(self) -> str:
        return str(self.data["expect"])

    @property
    def expect_reason(self) -> str | None:
        reason = self.data.get("expect_reason")
        return reason if isinstance(reason, str) else None

    @property
    def statement_id(self) -> str | None:
        statement = self.data.get("statement_id")
        return statement if isinstance(statement, str) else None

    @property
    def duplicate_of(self) -> str | None:
        other = self.data.get("duplicate_of")
        return other if isinstance(other, str) else None


def discover(repo: Repo, paths: Iterable[Path] = ()) -> list[Case]:
    """The cases under `paths` (default: the repo's example folders), sorted by path."""
    given = list(paths)
    found: dict[str, Case] = {}
    if given:
        for path in given:
            for case in _cases_at(repo, path):
                found[case.rel] = case
    else:
        for folder in default_folders(repo):
            for case in _cases_in(repo, folder):
                found[case.rel] = case
    return [found[rel] for rel in sorted(found)]


def default_folders(repo: Repo) -> list[Path]:
    folders = [repo.submissions_dir]
    if repo.certificates_dir.is_dir():
        folders += sorted(p / "submissions" for p in repo.certificates_dir.iterdir() if p.is_dir())
    return [folder for folder in folders if folder.is_dir()]


def _cases_at(repo: Repo, path: Path) -> Iterator[Case]:
    resolved = path.resolve()
    if not resolved.exists():
        raise UsageError(f"{path}: no such file or folder; pass a manifest or a folder of them.")
    if not resolved.is_relative_to(repo.root):
        raise UsageError(f"{path} is outside the repo at {repo.root}; pass a path inside it.")
    if resolved.is_dir():
        yield from _cases_in(repo, resolved)
        return
    read = _manifest(resolved)
    if read is None or "expect" not in read[0]:
        raise UsageError(
            f"{path} is not a submission manifest with an `expect`; "
            "selftest compares against it (use jig verify for a single submission)."
        )
    yield Case(resolved, _rel(repo, resolved), *read)


def _cases_in(repo: Repo, folder: Path) -> Iterator[Case]:
    for path in sorted(folder.rglob("*.json")):
        if not path.is_file() or _hidden(path.relative_to(folder)):
            continue
        read = _manifest(path)
        if read is not None and "expect" in read[0]:
            resolved = path.resolve()
            yield Case(resolved, _rel(repo, resolved), *read)


def _rel(repo: Repo, resolved: Path) -> str:
    try:
        return resolved.relative_to(repo.root).as_posix()
    except ValueError:
        return repo.rel(resolved)


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _manifest(path: Path) -> tuple[dict[str, Any], bytes] | None:
    """The manifest's JSON object and bytes, or None when the file is not a manifest."""
    try:
        if path.stat().st_size > MAX_MANIFEST_BYTES:
            return None
        raw = path.read_bytes()
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and data.get("schema") == SUBMISSION_SCHEMA:
        return data, raw
    return None
