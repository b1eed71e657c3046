"""`jig pose certificate ID`: a new certificate problem, written only once its checker has
judged every example the way the poser declared.

1. the checker and witnesses exist (a usage error otherwise);
2. the id matches the spec schema's pattern, and Certificates/<ID>/ is not taken: not in the
   tree, never in the history of any ref, not even up to case (`writeonce`);
3. spec.json is built from the options and validated by the schema (`conject.certificate.v1`);
4. the checker runs in the sandbox on every witness, with the spec's limits clamped to the
   default lane exactly as `jig verify` would: the green one must be accepted, each red one
   rejected (`invalid_witness`: the checker answered `ok: false`; a crash, a protocol breach or
   a timeout is a checker bug, never a rejection);
5. the files are written, all or none: spec.json, checker.py, and per example
   `submissions/<name>.witness` with `submissions/<name>.json` carrying `expect`; with
   `--commit`, one commit holds exactly them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jigcli.certificates.checker import Outcome, check_witness
from jigcli.certificates.spec import DEFAULT_LANE, SCHEMA, CertLimits, clamp, lane
from jigcli.errors import UsageError
from jigcli.pose import PoseRefused
from jigcli.pose.files import json_bytes, refuse_taken, write_new
from jigcli.pose.history import history_for
from jigcli.pose.writeonce import names_ever, names_in, reuse_problem
from jigcli.repo import Repo
from jigcli.schemas import validate

# What a spec asks when the poser does not say: C001's limits, ample for a small checker.
DEFAULT_LIMITS = CertLimits(wall_sec=20, cpu_sec=10, address_space_mb=512, output_bytes=65536)
PROBLEM_RULE = "certificate problems are write-once, and a different problem needs a new id"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_EXAMPLE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class CertificatePose:
    problem_id: str
    title: str
    statement: str
    witness_format: str
    checker: Path
    green: Path
    red: list[Path] = field(default_factory=list)
    wall_sec: float | None = None
    cpu_sec: int | None = None
    address_space_mb: int | None = None
    output_bytes: int | None = None
    commit: bool = False
    allow_no_netns: bool = False


@dataclass(frozen=True)
class Example:
    source: Path
    expect: str  # green | red
    data: bytes

    @property
    def name(self) -> str:
        return self.source.stem

    def describe(self) -> str:
        return f"the {self.expect} witness {self.source.name}"


@dataclass(frozen=True)
class Judged:
    example: Example
    outcome: Outcome


@dataclass(frozen=True)
class PosedProblem:
    files: list[str]
    judged: list[Judged]
    lowered: list[str]  # limits the default lane lowered for the runs
    commit: str | None


def commit_message(problem_id: str) -> str:
    return f"Add certificate problem {problem_id}"


def pose_certificate(
    repo: Repo, request: CertificatePose, *, on_example: Callable[[Example], None] | None = None
) -> PosedProblem:
    checker_source = _read(request.checker, "--checker")  # 1
    examples = [Example(request.green, "green", _read(request.green, "--green"))]
    examples += [Example(path, "red", _read(path, "--red")) for path in request.red]
    history = history_for(repo.root, commit=request.commit)
    problem_id = request.problem_id
    if not _ID.fullmatch(problem_id):  # 2
        raise PoseRefused(
            f"id {problem_id!r} is not a plain name: use ASCII letters, digits, `_` and `-`, "
            "starting with a letter or digit (no dots or slashes), like C003"
        )
    _refuse_if(
        reuse_problem(
            problem_id,
            "Certificates",
            present=names_in(repo.certificates_dir),
            past=names_ever(history, "Certificates"),
            rule=PROBLEM_RULE,
        )
    )
    spec = _spec(request)  # 3
    limits = CertLimits.from_json(spec["limits"])
    _refuse_unusable_examples(examples, limits)
    files = _files(problem_id, spec, checker_source, examples)
    refuse_taken(repo.root, files)
    effective, lowered = clamp(limits, lane(DEFAULT_LANE))  # 4
    judged = []
    for example in examples:
        if on_example is not None:
            on_example(example)  # the checker is about to run on it
        outcome = check_witness(
            checker_source, example.data, effective, allow_unsandboxed=request.allow_no_netns
        )
        _refuse_if(_disagreement(example, outcome))
        judged.append(Judged(example, outcome))
    written = write_new(repo.root, files)  # 5
    commit = None
    if request.commit and history is not None:
        commit = history.commit_only(written, commit_message(problem_id))
    return PosedProblem(written, judged, lowered, commit)


def _read(path: Path, option: str) -> bytes:
    if not path.is_file():
        raise UsageError(f"{option} {path} is not a file; pass an existing file.")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"{option} {path} cannot be read ({exc.strerror}).") from None


def _refuse_if(problem: str | None) -> None:
    if problem is not None:
        raise PoseRefused(problem)


def _spec(request: CertificatePose) -> dict[str, Any]:
    asked = {
        "wall_sec": request.wall_sec,
        "cpu_sec": request.cpu_sec,
        "address_space_mb": request.address_space_mb,
        "output_bytes": request.output_bytes,
    }
    limits = DEFAULT_LIMITS.to_json()
    limits = {key: limits[key] for key in asked}  # the spec names only what it sets
    limits.update({key: value for key, value in asked.items() if value is not None})
    spec = {
        "schema": SCHEMA,
        "id": request.problem_id,
        "title": request.title.strip(),
        "statement": request.statement.strip(),
        "witness_format": request.witness_format.strip(),
        "limits": limits,
    }
    problems = validate(spec, "certificate")
    if problems:
        raise PoseRefused(f"the spec would break its schema: {'; '.join(problems)}")
    return spec


def _refuse_unusable_examples(examples: list[Example], limits: CertLimits) -> None:
    seen: dict[str, Example] = {}
    for example in examples:
        if not _EXAMPLE_NAME.fullmatch(example.name):
            raise PoseRefused(
                f"{example.describe()} needs a plain file name (ASCII letters, digits, `_`, "
                "`-` and `.`), since it names the example's files"
            )
        other = seen.setdefault(example.name.casefold(), example)
        if other is not example:
            raise PoseRefused(
                f"{other.source} and {example.source} would both become "
                f"submissions/{example.name}.witness; rename one"
            )
        if len(example.data) > limits.witness_bytes:
            raise PoseRefused(
                f"{example.describe()} is {len(example.data)} bytes, more than the "
                f"{limits.witness_bytes} a witness may have"
            )


def _files(
    problem_id: str, spec: dict[str, Any], checker: bytes, examples: list[Example]
) -> dict[str, bytes]:
    folder = f"Certificates/{problem_id}"
    files = {f"{folder}/spec.json": json_bytes(spec), f"{folder}/checker.py": checker}
    for example in examples:
        manifest: dict[str, Any] = {
            "schema": "conject.submission.v1",
            "kind": "certificate",
            "statement_id": problem_id,
            "witness": f"{example.name}.witness",
            "expect": example.expect,
            "expect_reason": "ok" if example.expect == "green" else "invalid_witness",
        }
        files[f"{folder}/submissions/{example.name}.witness"] = example.data
        files[f"{folder}/submissions/{example.name}.json"] = json_bytes(manifest)
    return files


def _disagreement(example: Example, outcome: Outcome) -> str | None:
    """Why the checker's answer on `example` is not what the poser declared, or None."""
    shown = example.describe()
    if outcome.reason == "sandbox_unavailable":
        return (
            f"the checker cannot run here: {outcome.detail}; pose where bubblewrap or "
            "unshare works, or pass --allow-no-netns for local development"
        )
    if example.expect == "green" and not outcome.ok:
        return f"{shown} does not come out green: {outcome.reason}, {outcome.detail}"
    if example.expect == "red" and outcome.ok:
        return (
            f"{shown} comes out green (the checker accepts it: {outcome.detail}); a red "
            "example must be a witness the checker rejects"
        )
    if example.expect == "red" and outcome.reason != "invalid_witness":
        return (
            f"the checker fails on {shown} ({outcome.reason}: {outcome.detail}) instead of "
            'rejecting it; a checker must answer {"ok": false, …} for a bad witness'
        )
    return None
