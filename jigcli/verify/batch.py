"""Many submissions in one `jig verify`: the manifests its arguments name, verified in one
process as `jig selftest` verifies its examples (`jigcli.selftest.runner`: threads, Lean first,
Ctrl-C kills what runs), each exactly as a single `jig verify` would verify it.

1. `manifests`: every argument read before anything runs (a usage error is exit 2 with
   nothing verified): a file as itself, a folder as every submission manifest below it, a
   quoted glob as what it matches; each manifest once, in the order first named;
2. `verify_all`: the verifications, sharing only what `jigcli.verify.context.Shared` shares
   (the toolchain probe, the trusted build, the certificate route's probe, loaded schemas);
3. `worst`: the run's exit status, the worst of the verdicts' (1 over 4 over 0);
4. `to_json`: the document `--json` prints (`jigcli/schemas/batch.schema.json`).
"""

from __future__ import annotations

import glob
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jigcli.errors import UsageError
from jigcli.manifest import MAX_MANIFEST_BYTES
from jigcli.repo import Repo
from jigcli.safefiles import Unreadable, read_beneath
from jigcli.selftest.discover import Case, manifests_in
from jigcli.selftest.runner import Interrupted, Outcome, Settings, verify_cases
from jigcli.verdict import EXIT_NOT_CHECKED, NOT_CHECKED_REASONS, status_for_exit
from jigcli.verify.arguments import check_manifest_argument

SCHEMA = "jig.verify.batch.v1"
EXIT_RED, EXIT_GREEN = 1, 0
_GLOB_CHARACTERS = frozenset("*?[")


@dataclass
class Batch:
    """What a run verified, in the order its manifests were named."""

    cases: list[Case]
    outcomes: dict[str, Outcome] = field(default_factory=dict)  # by the case's `rel`
    interrupted: int = 0  # the exit status of the signal that stopped it, else 0

    @property
    def not_run(self) -> list[Case]:
        return [case for case in self.cases if case.rel not in self.outcomes]

    def documents(self) -> list[dict[str, Any]]:
        return [self.outcomes[c.rel].document for c in self.cases if c.rel in self.outcomes]


# -- 1. the manifests ---------------------------------------------------------------------


def manifests(arguments: Sequence[Path], repo: Repo) -> list[Case]:
    """The manifests `arguments` name, each once, in the order first named."""
    found: dict[str, Case] = {}
    for argument in arguments:
        for path in _expanded(argument):
            for case in _cases_for(path, argument, repo):
                found.setdefault(os.path.realpath(case.path), case)
    if not found:
        named = ", ".join(str(argument) for argument in arguments)
        raise UsageError(f"no submission manifest under {named}; pass manifests or their folders.")
    return list(found.values())


def _expanded(argument: Path) -> list[Path]:
    """A quoted glob (`'Submissions/**/*.json'`) as the paths it matches; else the path."""
    text = str(argument)
    if argument.exists() or argument.is_symlink() or not _GLOB_CHARACTERS & set(text):
        return [argument]
    matched = sorted(glob.glob(text, recursive=True))
    if not matched:
        raise UsageError(f"{text} matches no file; pass manifests, folders or a glob that matches.")
    return [Path(path) for path in matched]


def _cases_for(path: Path, argument: Path, repo: Repo) -> list[Case]:
    if path.is_dir():
        inside = repo.inside(path)
        if inside is None:
            raise UsageError(f"{path} is outside the repo at {repo.root}; pass a folder inside it.")
        unsearched: list[tuple[str, str]] = []
        cases = manifests_in(repo, inside, unsearched)
        for where, why in unsearched:
            raise UsageError(f"{where}: cannot be searched for manifests: {why}.")
        return cases
    check_manifest_argument(path)
    return [_case(path, repo)]


def _case(path: Path, repo: Repo) -> Case:
    """A manifest named on the command line; what it holds is judged by the verification
    (a broken one is a red `bad_manifest`, as from a single `jig verify`)."""
    inside = repo.inside(path)
    where = inside if inside is not None else Path(os.path.abspath(path))
    rel = where.relative_to(repo.root).as_posix() if inside is not None else str(where)
    data: dict[str, Any] = {}
    try:
        if inside is not None:
            raw = read_beneath(repo.root, rel, MAX_MANIFEST_BYTES)
        else:
            raw = where.read_bytes()[:MAX_MANIFEST_BYTES]
        parsed = json.loads(raw.decode("utf-8"))
        if isinstance(parsed, dict):
            data = parsed
    except (Unreadable, OSError, UnicodeDecodeError, ValueError, RecursionError):
        raw = b""
    return Case(where, rel, data, raw)


# -- 2. the verifications -----------------------------------------------------------------


def verify_all(
    cases: Sequence[Case],
    repo: Repo,
    settings: Settings,
    *,
    on_start: Callable[[Case], None],
    on_done: Callable[[Outcome], None],
) -> Batch:
    """Every case verified (none from a cache: `jig verify` always checks). Ctrl-C or a
    termination signal ends the run early: what finished is kept, `interrupted` says how."""
    batch = Batch(list(cases))

    def done(outcome: Outcome) -> None:
        batch.outcomes[outcome.case.rel] = outcome
        on_done(outcome)

    try:
        verify_cases(cases, repo, settings, cache=None, keys=None, on_done=done, on_start=on_start)
    except Interrupted as stop:
        batch.interrupted = stop.exit_code
    return batch


# -- 3–4. the run's status and document ---------------------------------------------------


def exit_code(document: dict[str, Any]) -> int:
    """A verdict's exit status, as a single `jig verify` exits with it."""
    if document.get("verdict") == "green":
        return EXIT_GREEN
    return EXIT_NOT_CHECKED if document.get("reason") in NOT_CHECKED_REASONS else EXIT_RED


def worst(documents: Sequence[dict[str, Any]]) -> int:
    """1 when any verdict is a red checked here, else 4 when any was not checked here, else 0."""
    codes = {exit_code(document) for document in documents}
    for code in (EXIT_RED, EXIT_NOT_CHECKED):
        if code in codes:
            return code
    return EXIT_GREEN


def counts(batch: Batch) -> dict[str, int]:
    codes = [exit_code(document) for document in batch.documents()]
    return {
        "green": codes.count(EXIT_GREEN),
        "red": codes.count(EXIT_RED),
        "not_checked_here": codes.count(EXIT_NOT_CHECKED),
        "not_run": len(batch.not_run),
    }


def to_json(batch: Batch) -> dict[str, Any]:
    documents = batch.documents()
    exit_code = batch.interrupted or worst(documents)
    return {
        "schema": SCHEMA,
        "status": status_for_exit(exit_code),
        "exit_code": exit_code,
        "counts": counts(batch),
        "verdicts": documents,
        "not_run": [case.rel for case in batch.not_run],
    }
