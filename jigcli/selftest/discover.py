"""Find the example manifests a selftest checks: submission manifests that declare `expect`.

By default the places examples live: every `.json` under `Submissions/` and under each
`Certificates/<ID>/submissions/`. A file there is a manifest when it is a JSON object whose
`schema` is `conject.submission.v1` (a certificate's witness may be JSON too, or even
deliberately broken JSON, so anything else is skipped, never an error; `jig verify` over a
folder also takes a JSON object naming a `statement_id` with no submission `schema`, which
then verifies red `bad_manifest`). A PATH given on the command line must be a manifest with an
`expect`, or a folder searched the same way.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from jigcli.errors import UsageError
from jigcli.manifest import MAX_MANIFEST_BYTES
from jigcli.repo import Repo
from jigcli.safefiles import Odd, Unreadable, open_folder, read_beneath, walk

SUBMISSION_SCHEMA = "conject.submission.v1"


@dataclass(frozen=True)
class Case:
    """One example to verify: where its manifest is and what it expects."""

    path: Path  # absolute
    rel: str  # repo-relative POSIX path: the case's identity everywhere
    data: dict[str, Any]  # the manifest as read (validated later, by `jig verify`'s core)
    raw: bytes  # the bytes `data` was read from (the cache key hashes exactly these)
    # Why the case cannot be verified at all (its file name is not valid UTF-8, too long,
    # odd): it is a red `bad_manifest` without running anything.
    problem: str | None = None

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


def discover(
    repo: Repo, paths: Iterable[Path] = (), unsearched: list[tuple[str, str]] | None = None
) -> list[Case]:
    """The cases under `paths` (default: the repo's example folders), sorted by path. What a
    bounded walk did not look into (too deep, too many entries) is added to `unsearched`."""
    given = list(paths)
    found: dict[str, Case] = {}
    skipped: list[tuple[str, str]] = []
    if given:
        for path in given:
            for case in _cases_at(repo, path, skipped):
                found[case.rel] = case
    else:
        for folder in default_folders(repo):
            for case in _cases_in(repo, folder, skipped):
                found[case.rel] = case
    if unsearched is not None:
        unsearched.extend(sorted(set(skipped)))
    return [found[rel] for rel in sorted(found)]


def default_folders(repo: Repo) -> list[Path]:
    folders = [repo.submissions_dir]
    if repo.certificates_dir.is_dir():
        folders += sorted(p / "submissions" for p in repo.certificates_dir.iterdir() if p.is_dir())
    return [folder for folder in folders if folder.is_dir()]


def _cases_at(repo: Repo, path: Path, skipped: list[tuple[str, str]]) -> Iterator[Case]:
    resolved = path.resolve()
    if not resolved.exists():
        raise UsageError(f"{path}: no such file or folder; pass a manifest or a folder of them.")
    if not resolved.is_relative_to(repo.root):
        raise UsageError(f"{path} is outside the repo at {repo.root}; pass a path inside it.")
    if resolved.is_dir():
        yield from _cases_in(repo, resolved, skipped)
        return
    rel = _rel(repo, resolved)
    read = _manifest(repo, rel)
    if read is None or "expect" not in read[0]:
        raise UsageError(
            f"{path} is not a submission manifest with an `expect`; "
            "selftest compares against it (use jig verify for a single submission)."
        )
    yield Case(repo.root / rel, rel, *read)


def _cases_in(
    repo: Repo, folder: Path, skipped: list[tuple[str, str]], *, examples_only: bool = True
) -> Iterator[Case]:
    """Every manifest with an `expect` (with `examples_only=False`, every submission manifest)
    below `folder`, found by a bounded walk that follows no link and reads no special file;
    an oddly named one is a case with its `problem`."""
    lexical = repo.inside(folder)
    start = _rel(repo, lexical if lexical is not None else folder.resolve())
    start = "" if start == "." else start
    try:
        found = walk(repo.root, start, skip=lambda path: _hidden(PurePosixPath(path)))
    except Unreadable as why:
        skipped.append((start, str(why)))
        return
    skipped.extend((_join(start, path), why) for path, why in found.unsearched)
    for path in found.files:
        if path.endswith(".json"):
            rel = _join(start, path)
            read = _manifest(repo, rel)
            if read is not None and ("expect" in read[0] or not examples_only):
                yield Case(repo.root / rel, rel, *read)
            elif read is None and not examples_only:
                yield from _near_miss(repo, rel)
    for odd in found.odd:
        if odd.path.endswith(".json"):
            yield from _odd_case(repo, start, odd, examples_only)


def manifests_in(repo: Repo, folder: Path, skipped: list[tuple[str, str]]) -> list[Case]:
    """Every submission manifest below `folder` (inside the repo), example or not, sorted."""
    return sorted(_cases_in(repo, folder, skipped, examples_only=False), key=lambda c: c.rel)


# Documents of jig's own that name a statement too, and are no manifest (`--out` verdicts).
_OTHER_DOCUMENTS = frozenset({"conject.verdict.v1", "jig.verify.batch.v1", "jig.audit.v1"})


def _near_miss(repo: Repo, rel: str) -> Iterator[Case]:
    """A JSON object naming a `statement_id` with no submission `schema` (a typo, or one left
    out): meant as a manifest, so `jig verify` over its folder verifies it (a red
    `bad_manifest` saying what is wrong) rather than skip it unseen. A witness, even broken
    JSON, names no statement, and jig's own verdicts say what they are."""
    try:
        raw = read_beneath(repo.root, rel, MAX_MANIFEST_BYTES)
        data = json.loads(raw.decode("utf-8"))
    except (Unreadable, UnicodeDecodeError, ValueError, RecursionError):
        return
    named = isinstance(data, dict) and "statement_id" in data
    if named and data.get("schema") not in _OTHER_DOCUMENTS:
        yield Case(repo.root / rel, rel, _text(data), raw)


def _odd_case(repo: Repo, start: str, odd: Odd, examples_only: bool = True) -> Iterator[Case]:
    """A manifest whose file name cannot be used, read through its folder to see whether it
    is an example at all; if so a case that will be red `bad_manifest`."""
    try:
        with open_folder(repo.root, _join(start, odd.folder)) as folder:
            read = _parsed(folder.read(odd.name, MAX_MANIFEST_BYTES))
    except Unreadable:
        return
    if read is not None and ("expect" in read[0] or not examples_only):
        rel = _join(start, odd.path)
        yield Case(repo.root / rel, rel, read[0], read[1], f"{rel}: {odd.why}")


def _rel(repo: Repo, resolved: Path) -> str:
    try:
        return resolved.relative_to(repo.root).as_posix()
    except ValueError:
        return repo.rel(resolved)


def _join(*parts: str) -> str:
    return "/".join(part for part in parts if part and part != ".")


def _hidden(relative: PurePosixPath) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _manifest(repo: Repo, rel: str) -> Read | None:
    """The manifest's JSON object and bytes, or None when the file is not a manifest (or
    is not a regular file reached through no link)."""
    try:
        raw = read_beneath(repo.root, rel, MAX_MANIFEST_BYTES)
    except Unreadable:
        return None
    return _parsed(raw)


_SURROGATE = "the manifest holds a lone surrogate (an escape like \\ud800 alone), not text"
Read = tuple[dict[str, Any], bytes, str | None]  # the manifest, its bytes, why it is unusable


def _parsed(raw: bytes) -> Read | None:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    if isinstance(data, dict) and data.get("schema") == SUBMISSION_SCHEMA:
        text = _text(data)
        problem = None if text == data else _SURROGATE
        return text, raw, problem
    return None


def _text(value: Any) -> Any:
    """`value` with every lone surrogate (JSON's `\\ud800` alone) made U+FFFD, so the case
    can be named, reported and written; such a case is red `bad_manifest` (`_parsed`)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return "".join("\ufffd" if 0xD800 <= ord(char) <= 0xDFFF else char for char in value)
        return value
    if isinstance(value, dict):
        return {_text(key): _text(child) for key, child in value.items()}
    if isinstance(value, list):
        return [_text(child) for child in value]
    return value
