"""The verdict cache: a verdict is reused only when nothing that could change it changed.

The key of a case is the SHA-256 of every input its verdict depends on:

- always: the cache format, jig's version and the bytes of jig's own sources (a developer
  editing a pipeline must not be served verdicts the old code reached), the manifest's
  repo-relative path and bytes;
- Lean: the submitted module's source, `Statements/<id>.lean` (and the statement it
  `refutes`), everything under `Commons/`, and the pins (`lean-toolchain`,
  `lake-manifest.json`, `lakefile.toml` / `lakefile.lean`);
- certificates: the witness bytes, everything in `Certificates/<id>/` outside
  `submissions/` (checker, spec and any helper they read), the Python that runs the
  checker, and whether isolation may be skipped (`--allow-no-netns`).

Verdicts that say something about this machine or this moment rather than the submission
are never stored (`NEVER_CACHED`). The cache lives in `platformdirs.user_cache_dir("jig")`,
or in `$JIG_CACHE_DIR` when set (`jigcli.cachedir`); a cache that cannot be read or written is
a miss, never an error.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from functools import cache, cached_property
from pathlib import Path, PurePosixPath
from typing import Any

import jigcli
from jigcli.hashing import sha256_hex
from jigcli.manifest import path_problem
from jigcli.repo import Repo
from jigcli.safefiles import MISSING, Unreadable, read_beneath, walk
from jigcli.safewrite import write_beneath
from jigcli.selftest.discover import Case

CACHE_FORMAT = "jig-selftest-cache-v2"  # v2: each entry names its key
# Timeouts, crashes, a missing toolchain or sandbox, a crashed checker (often a signal or an
# exhausted limit on a loaded machine): none of these is a fact about the submission.
NEVER_CACHED = frozenset(
    {"timeout", "verifier_error", "toolchain_missing", "sandbox_unavailable", "checker_error"}
)
PACKAGE = Path(jigcli.__file__).resolve().parent
PIN_FILES = ("lean-toolchain", "lake-manifest.json", "lakefile.toml", "lakefile.lean")
_ENTRY_CAP = 64 * 1024 * 1024  # one cached verdict, read back
_FILE_CAP = 256 * 1024 * 1024  # one file hashed into a key
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_']*(\.[A-Za-z_][A-Za-z0-9_']*)*$")


def cacheable(document: dict[str, Any]) -> bool:
    return document.get("verdict") in ("green", "red") and document.get("reason") not in (
        NEVER_CACHED | {None}
    )


class VerdictCache:
    """Verdict documents stored by key below `root` (jig's cache folder: `usable_root`), one
    small file each, written atomically and read through no link below `root`.

    A stored verdict carries the key it was stored under, and is a miss under any other: an
    entry copied or renamed to another case's name never answers for that case."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _name(self, key: str) -> str:
        return f"verdicts/{CACHE_FORMAT}/{key[:2]}/{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            stored = json.loads(read_beneath(self.root, self._name(key), _ENTRY_CAP))
        except (Unreadable, OSError, ValueError):
            return None
        if not isinstance(stored, dict) or stored.get("key") != key:
            return None
        document = stored.get("verdict")
        if not isinstance(document, dict) or not cacheable(document):
            return None
        return document

    def put(self, key: str, document: dict[str, Any]) -> bool:
        """Store `document` if it may be cached; False when it was not stored."""
        if not cacheable(document):
            return False
        try:
            self.root.mkdir(mode=0o700, parents=True, exist_ok=True)
            data = json.dumps({"key": key, "verdict": document}, ensure_ascii=False)
            write_beneath(self.root, self._name(key), data.encode("utf-8"))  # through no link
        except OSError:
            return False
        return True


class Keys:
    """Cache keys for the cases of one run; repo-wide digests are computed once."""

    def __init__(self, repo: Repo, *, allow_no_netns: bool) -> None:
        self.repo = repo
        self.allow_no_netns = allow_no_netns
        self._trees: dict[str, str] = {}

    def key(self, case: Case) -> str:
        parts: list[tuple[str, str]] = [
            ("format", CACHE_FORMAT),
            ("jig", self._jig),
            ("manifest", case.rel),
            ("manifest-bytes", sha256_hex(case.raw)),
        ]
        if case.kind == "lean":
            parts += self._lean_parts(case)
        elif case.kind == "certificate":
            parts += self._certificate_parts(case)
        return sha256_hex(json.dumps(parts))

    def _lean_parts(self, case: Case) -> list[tuple[str, str]]:
        module = case.data.get("module")
        source = (
            _file_digest(self.repo.root, module.replace(".", "/") + ".lean")
            if isinstance(module, str) and _MODULE.match(module)
            else "invalid"
        )
        parts = [("source", source)]
        for field in ("statement_id", "refutes"):
            name = case.data.get(field)
            if isinstance(name, str) and _NAME.match(name):
                parts.append((field, _file_digest(self.repo.root, f"Statements/{name}.lean")))
        parts += [
            ("commons", self._tree(self.repo.commons_dir)),
            ("verify", self._tree(self.repo.verify_dir)),
            ("pins", self._pins),
        ]
        return parts

    def _certificate_parts(self, case: Case) -> list[tuple[str, str]]:
        parts = [
            ("witness", _witness_digest(self.repo.root, case)),
            ("python", f"{sys.executable} {sys.version}"),
            ("allow_no_netns", str(self.allow_no_netns)),
        ]
        problem = case.statement_id
        if problem is not None and _NAME.match(problem):
            parts.append(("problem", self._tree(self.repo.certificates_dir / problem)))
        return parts

    @property
    def _jig(self) -> str:
        return f"{jigcli.__version__} {jig_sources_digest(PACKAGE)}"

    @cached_property
    def _pins(self) -> str:
        return " ".join(_file_digest(self.repo.root, name) for name in PIN_FILES)

    def _tree(self, folder: Path) -> str:
        """One digest over every file under `folder` (paths and bytes), `submissions/` and
        hidden or cache folders excluded; memoised for the run."""
        memo = str(folder)
        if memo not in self._trees:
            self._trees[memo] = _tree_digest(
                self.repo.root, folder.relative_to(self.repo.root).as_posix(), None
            )
        return self._trees[memo]


@cache
def jig_sources_digest(package: Path) -> str:
    """jig's own code and schemas, once per process."""
    return _tree_digest(package, "", (".py", ".json"))


def _tree_digest(root: Path, relative: str, suffixes: tuple[str, ...] | None) -> str:
    """Every file below `root/relative` (a bounded walk through no link), its path and bytes;
    what the walk could not look into or read goes into the digest by name and why."""
    try:
        found = walk(root, relative, skip=lambda path: _excluded(PurePosixPath(path)))
    except Unreadable as why:
        return "absent" if why.kind == MISSING else f"unusable: {why.kind}"
    digest = hashlib.sha256()
    for path in found.files:
        if suffixes is not None and PurePosixPath(path).suffix not in suffixes:
            continue
        digest.update(path.encode("utf-8") + b"\0")
        whole = f"{relative}/{path}" if relative else path
        digest.update(_file_digest(root, whole).encode("ascii") + b"\n")
    for odd in found.odd:
        digest.update(f"odd {odd.path}\0".encode())
    for where, said in found.unsearched:
        digest.update(f"unsearched {where}: {said}\0".encode())
    return digest.hexdigest()


def _excluded(relative: PurePosixPath) -> bool:
    first = relative.parts[0] if relative.parts else ""
    return first == "submissions" or any(
        part.startswith(".") or part == "__pycache__" for part in relative.parts
    )


def _witness_digest(root: Path, case: Case) -> str:
    """The witness's SHA-256, read as the pipeline reads it (no link, no FIFO, at most the
    heavy lane's cap); a word for each way it cannot be, which its verdict will say too."""
    from jigcli.certificates.spec import HEAVY_LANE, LANES

    witness = case.data.get("witness")
    if not isinstance(witness, str) or path_problem(witness) is not None:
        return "invalid"
    try:
        where = (PurePosixPath(case.rel).parent / witness).as_posix()
        data = read_beneath(root, where, LANES[HEAVY_LANE].ceiling.witness_bytes)
    except Unreadable as why:
        return f"unusable: {why.kind}"
    return sha256_hex(data)


def _file_digest(root: Path, relative: str) -> str:
    """The SHA-256 of the regular file `root/relative`, read through no link and never a
    special file; a word for each way it cannot be (a manifest may name /dev/zero)."""
    try:
        return sha256_hex(read_beneath(root, relative, _FILE_CAP))
    except Unreadable as why:
        return "missing" if why.kind == MISSING else f"unusable: {why.kind}"
