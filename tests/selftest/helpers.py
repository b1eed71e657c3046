"""Builders shared by the selftest tests: a tiny verifier repo and a stand-in `verify()`.

The stand-in replaces `jigcli.verify.submission.verify` where what is under test is the
selftest's own machinery (ordering, sharding, caching, judging, reporting), not a pipeline.
Load it with `load_helpers()` from the test's conftest (pytest runs in importlib mode: tests are
not a package).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jigcli.hashing import sha256_tagged
from jigcli.repo import Repo
from jigcli.verdict import Verdict
from jigcli.verify.context import VerifyOptions


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "jig.yaml").write_text("# a verifier repo for tests\n")
    return root


def lean_manifest(
    root: Path, rel: str, expect: str = "green", expect_reason: str | None = None, **extra: Any
) -> Path:
    """`Submissions/S001/Alice.json` with its module `Submissions.S001.Alice` beside it."""
    path = root / rel
    module = rel.removesuffix(".json").replace("/", ".")
    fields: dict[str, Any] = {
        "schema": "conject.submission.v1",
        "kind": "lean",
        "statement_id": path.parent.name,
        "module": module,
        "decl": f"{module}.proof",
        "expect": expect,
    }
    if expect_reason is not None:
        fields["expect_reason"] = expect_reason
    fields.update(extra)
    return write_json(path, fields, source=path.with_suffix(".lean"))


def certificate_manifest(
    root: Path,
    problem: str,
    name: str,
    expect: str = "green",
    expect_reason: str | None = None,
    **extra: Any,
) -> Path:
    path = root / "Certificates" / problem / "submissions" / f"{name}.json"
    fields: dict[str, Any] = {
        "schema": "conject.submission.v1",
        "kind": "certificate",
        "statement_id": problem,
        "witness": f"{name}.witness",
        "expect": expect,
    }
    if expect_reason is not None:
        fields["expect_reason"] = expect_reason
    fields.update(extra)
    return write_json(path, fields, source=path.with_name(f"{name}.witness"))


def write_json(path: Path, fields: dict[str, Any], source: Path | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(fields, indent=2) + "\n")
    if source is not None and not source.exists():
        source.write_text(f"-- the source of {path.name}\n")
    return path


@dataclass
class Answer:
    verdict: str
    reason: str = "ok"
    term_hash: str | None = None
    detail: str = ""


@dataclass
class Call:
    rel: str
    work_dir: Path | None
    options: VerifyOptions


@dataclass
class FakeVerifier:
    """Answers each manifest with `answers[rel]`, else with what the manifest expects (a
    green carries a hash derived from its path). Records every call; `during` runs inside
    each call (to hold calls open together, or to count concurrency)."""

    answers: dict[str, Answer] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    during: Any = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def __call__(self, manifest_path: Path, repo: Repo, options: VerifyOptions) -> Verdict:
        rel = repo.rel(manifest_path)
        data = json.loads(manifest_path.read_text())
        with self.lock:
            self.calls.append(Call(rel, options.work_dir, options))
        if self.during is not None:
            self.during(rel, data, options)
        answer = self.answers.get(rel) or _expected(rel, data)
        verdict = Verdict(kind=data["kind"], submission=rel, statement_id=data["statement_id"])
        verdict.record("manifest", True, "valid")
        if answer.verdict == "green":
            verdict.elaborated_term_hash = answer.term_hash
        else:
            verdict.fail(answer.reason, answer.detail or f"the fake says {answer.reason}")
        return verdict.finish()

    @property
    def verified(self) -> list[str]:
        return sorted(call.rel for call in self.calls)


def _expected(rel: str, data: dict[str, Any]) -> Answer:
    if data.get("expect") == "green":
        return Answer("green", term_hash=sha256_tagged(rel))
    return Answer("red", data.get("expect_reason") or "build_failed")
