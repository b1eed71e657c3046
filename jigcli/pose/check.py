"""`jig pose check [--base REF]`: what a pull request may not do to posed problems.

Compares two commits, BASE and HEAD (the working tree plays no part, so CI and a local run
agree on the same commits):

1. protected files: every file under `Statements/`, and every `Certificates/<ID>/checker.py`
   and `Certificates/<ID>/spec.json`, that BASE holds must be in HEAD byte for byte; a
   changed or deleted one is a failure naming the file;
2. new statements: every `Statements/<label>.lean` HEAD adds is checked as `jig pose lean`
   would check it: a plain label, never held by BASE's history (up to case), and a
   well-formed statement (`statement.statement_problems`); anything else new under
   `Statements/` is not a statement file and fails;
3. new certificate problems: a plain id never held by BASE's history, a schema-valid
   `spec.json` naming that id, and a `checker.py`;
4. the pin: HEAD's `lakefile.toml` Mathlib requirement and `lake-manifest.json` agree (the
   lakefile's `rev` is the manifest's `inputRev` or `rev`, from the same git URL), and none of
   `lean-toolchain`, the lakefile's requirements and `lake-manifest.json` changed or vanished
   since BASE (a first pin, where BASE had none, is not a change): a moved pin means green
   verdicts could no longer be re-derived;
5. the trusted build: any file under `Commons/` added, changed or removed since BASE, and
   any change to `lakefile.toml` (which requires comparator and lean4export, the judge of
   every Lean verdict, and says how they are built), fails, naming the file. Both are built
   outside the sandbox before any submission (PRODUCT.md §3), `Commons` also giving posed
   statements their meaning; a pull request that also submits a proof must not be able to
   change either, so such a change goes in a pull request of its own, reviewed as such.

Default BASE: the merge base with `origin/main` when that ref exists, else `HEAD~1`.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any

from jigcli.errors import UsageError
from jigcli.pose.history import History, open_history, short
from jigcli.pose.statement import label_problem, statement_problems
from jigcli.pose.writeonce import names_ever, reuse_problem
from jigcli.repo import Repo
from jigcli.schemas import validate

_STATEMENT_FILE = re.compile(r"Statements/([^/]+)\.lean")
_PROTECTED_CERTIFICATE_FILE = re.compile(r"Certificates/[^/]+/(?:checker\.py|spec\.json)")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
PIN_FILES = ("lean-toolchain", "lakefile.toml", "lake-manifest.json")
_REDERIVE = "green verdicts could no longer be re-derived; move the pin in its own reviewed change"
JUDGE_BUILD = "lakefile.toml"
_JUDGE = (
    "comparator and lean4export decide every Lean verdict, so how they are required and "
    "built changes only in a pull request of its own, reviewed as such"
)
_COMMONS = (
    "Commons is built outside the sandbox with comparator and gives posed statements their "
    "meaning, so it changes only in a pull request of its own, reviewed as such"
)
# The folders of the trusted build's own sources, and why each is guarded.
TRUSTED_FOLDERS = {"Commons": _COMMONS}


@dataclass(frozen=True)
class Finding:
    path: str
    problem: str
    line: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "problem": self.problem}


@dataclass
class CheckReport:
    base_ref: str  # as given, or how the default was found
    base: str  # commit id
    head: str
    protected: list[str] = field(default_factory=list)
    new_statements: list[str] = field(default_factory=list)
    new_problems: list[str] = field(default_factory=list)
    failures: list[Finding] = field(default_factory=list)
    # Posed files in the working tree that HEAD does not hold as they are: not compared (only
    # commits are), so said, lest "all hold" read as a verdict on them.
    uncommitted: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def fail(self, path: str, problem: str, line: int | None = None) -> None:
        self.failures.append(Finding(path, problem, line))

    def to_json(self) -> dict[str, Any]:
        return {
            "status": "ok" if self.ok else "error",
            "exit_code": 0 if self.ok else 1,
            "ok": self.ok,
            "base": {"ref": self.base_ref, "commit": self.base},
            "head": self.head,
            "protected": self.protected,
            "new_statements": self.new_statements,
            "new_problems": self.new_problems,
            "failures": [finding.to_json() for finding in self.failures],
            "uncommitted": self.uncommitted,
        }


def check(repo: Repo, base: str | None = None) -> CheckReport:
    history = open_history(repo.root)
    if history is None:
        raise UsageError(
            f"{repo.root} is not in a git repository; `jig pose check` compares two commits "
            "of the verifier repo's clone."
        )
    head = history.resolve("HEAD")
    if base is None:
        base_ref, base_id = history.default_base()
    else:
        base_ref, base_id = base, history.resolve(base)
    report = CheckReport(base_ref, base_id, head)
    before = {
        **history.files_at(base_id, "Statements"),
        **history.files_at(base_id, "Certificates"),
    }
    after = {
        **history.files_at(head, "Statements"),
        **history.files_at(head, "Certificates"),
    }
    _protected(report, before, after)  # 1
    _new_statements(report, history, before, after)  # 2
    _new_problems(report, history, before, after)  # 3
    _pins(report, history)  # 4
    _trusted_build(report, history)  # 5
    report.uncommitted = history.uncommitted(("Statements", "Certificates"))
    return report


# -- 1. ----------------------------------------------------------------------------------------


def _is_protected(path: str) -> bool:
    return path.startswith("Statements/") or bool(_PROTECTED_CERTIFICATE_FILE.fullmatch(path))


def _protected(report: CheckReport, before: dict[str, str], after: dict[str, str]) -> None:
    since = short(report.base)
    for path in sorted(p for p in before if _is_protected(p)):
        report.protected.append(path)
        if path not in after:
            report.fail(path, f"deleted since {since}; posed files are write-once, restore it")
        elif after[path] != before[path]:
            report.fail(
                path,
                f"changed since {since}; posed files are write-once: restore it, and pose a "
                "different statement or problem under a new name",
            )


# -- 2. ----------------------------------------------------------------------------------------


def _new_statements(
    report: CheckReport, history: History, before: dict[str, str], after: dict[str, str]
) -> None:
    added = sorted(p for p in after if p.startswith("Statements/") and p not in before)
    if not added:
        return
    past = names_ever(history, "Statements", reachable_from=report.base)
    for path in added:
        report.new_statements.append(path)
        match = _STATEMENT_FILE.fullmatch(path)
        if match is None:
            report.fail(path, "not a statement file: Statements/ holds only <label>.lean files")
            continue
        label = match.group(1)
        problem = label_problem(label) or reuse_problem(
            f"{label}.lean",
            "Statements",
            present=(),
            past=past,
            rule="statements are write-once, and a different proposition needs a new label",
        )
        if problem is not None:
            report.fail(path, problem)
            continue
        data = history.read(report.head, path) or b""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            report.fail(path, "not UTF-8, and Lean reads only UTF-8 sources")
            continue
        for found in statement_problems(label, text):
            report.fail(path, found.message, found.line)


# -- 3. ----------------------------------------------------------------------------------------


def _problem_ids(files: dict[str, str]) -> set[str]:
    return {path.split("/")[1] for path in files if path.count("/") >= 2}


def _new_problems(
    report: CheckReport, history: History, before: dict[str, str], after: dict[str, str]
) -> None:
    added = sorted(_problem_ids(after) - _problem_ids(before))
    if not added:
        return
    past = names_ever(history, "Certificates", reachable_from=report.base)
    for problem_id in added:
        folder = f"Certificates/{problem_id}"
        report.new_problems.append(folder)
        if not _ID.fullmatch(problem_id):
            report.fail(folder, "not a plain id: ASCII letters, digits, `_` and `-` only")
            continue
        reused = reuse_problem(
            problem_id,
            "Certificates",
            present=(),
            past=past,
            rule="certificate problems are write-once, and a different problem needs a new id",
        )
        if reused is not None:
            report.fail(folder, reused)
            continue
        if f"{folder}/checker.py" not in after:
            report.fail(f"{folder}/checker.py", "missing: a certificate problem needs its checker")
        _check_spec(report, history, folder, problem_id)


def _check_spec(report: CheckReport, history: History, folder: str, problem_id: str) -> None:
    path = f"{folder}/spec.json"
    data = history.read(report.head, path)
    if data is None:
        report.fail(path, "missing: a certificate problem needs its spec.json")
        return
    try:
        spec = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        report.fail(path, f"not valid JSON ({exc})")
        return
    problems = validate(spec, "certificate")
    if problems:
        report.fail(path, "breaks its schema: " + "; ".join(problems))
    elif spec["id"] != problem_id:
        report.fail(path, f"id {spec['id']!r} must be the folder's name {problem_id!r}")


# -- 4. ----------------------------------------------------------------------------------------


def _pins(report: CheckReport, history: History) -> None:
    before = {name: history.read(report.base, name) for name in PIN_FILES}
    after = {name: history.read(report.head, name) for name in PIN_FILES}
    lakefile, manifest = _parsed(report, after)
    if lakefile is not None and manifest is not None:
        _agree(report, lakefile, manifest)
    since = short(report.base)
    for name, what, comparable in (
        ("lean-toolchain", "the Lean pin", bytes.strip),
        ("lakefile.toml", "its requirements", _requires),
        ("lake-manifest.json", "the locked packages", _json_or_bytes),
    ):
        old, new = before[name], after[name]
        # A pin appearing where there was none is the first pin, not drift.
        if old is not None and (new is None or comparable(old) != comparable(new)):
            moved = "the file was removed" if new is None else f"{what} changed"
            report.fail(name, f"{moved} since {since}: {_REDERIVE}")


def _parsed(
    report: CheckReport, files: dict[str, bytes | None]
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    lakefile = manifest = None
    if files["lakefile.toml"] is None:
        report.fail("lakefile.toml", "missing at HEAD, so the Mathlib pin cannot be checked")
    else:
        try:
            lakefile = tomllib.loads(files["lakefile.toml"].decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            report.fail("lakefile.toml", f"cannot be read as TOML ({exc})")
    if files["lake-manifest.json"] is None:
        report.fail("lake-manifest.json", "missing at HEAD, so the Mathlib pin cannot be checked")
    else:
        try:
            manifest = json.loads(files["lake-manifest.json"].decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            report.fail("lake-manifest.json", f"cannot be read as JSON ({exc})")
    return lakefile, manifest


def _mathlib(entries: Any) -> dict[str, Any] | None:
    if not isinstance(entries, list):
        return None
    return next(
        (e for e in entries if isinstance(e, dict) and e.get("name") == "mathlib"),
        None,
    )


def _agree(report: CheckReport, lakefile: dict[str, Any], manifest: dict[str, Any]) -> None:
    required = _mathlib(lakefile.get("require"))
    locked = _mathlib(manifest.get("packages"))
    if required is None:
        report.fail("lakefile.toml", "requires no `mathlib`, so there is no pin to check")
        return
    if locked is None:
        report.fail("lake-manifest.json", "locks no `mathlib` package; run `lake update mathlib`")
        return
    rev = required.get("rev")
    if not isinstance(rev, str) or not rev:
        report.fail("lakefile.toml", "its mathlib requirement names no `rev`; pin a tag or commit")
    elif rev not in (locked.get("inputRev"), locked.get("rev")):
        report.fail(
            "lake-manifest.json",
            f"locks mathlib at {locked.get('inputRev')!r} ({locked.get('rev')}) but lakefile.toml "
            f"asks for {rev!r}; run `lake update mathlib` and commit both",
        )
    url = required.get("git")
    if isinstance(url, str) and _same_url(url, locked.get("url")) is False:
        report.fail(
            "lake-manifest.json",
            f"locks mathlib from {locked.get('url')} but lakefile.toml requires it from {url}",
        )


def _same_url(left: str, right: Any) -> bool | None:
    if not isinstance(right, str):
        return None

    def bare(url: str) -> str:
        return url.rstrip("/").removesuffix(".git").casefold()

    return bare(left) == bare(right)


def _requires(data: bytes) -> Any:
    try:
        return tomllib.loads(data.decode("utf-8")).get("require")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return data  # unreadable: compared as bytes (and reported by `_parsed` at HEAD)


def _json_or_bytes(data: bytes) -> Any:
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return data


# -- 5. ----------------------------------------------------------------------------------------


def _trusted_build(report: CheckReport, history: History) -> None:
    since = short(report.base)
    for folder, why in TRUSTED_FOLDERS.items():
        before = history.files_at(report.base, folder)
        after = history.files_at(report.head, folder)
        for path in sorted(before.keys() | after.keys()):
            if path not in after:
                report.fail(path, f"deleted since {since}; {why}")
            elif path not in before:
                report.fail(path, f"added since {since}; {why}")
            elif before[path] != after[path]:
                report.fail(path, f"changed since {since}; {why}")
    old, new = history.read(report.base, JUDGE_BUILD), history.read(report.head, JUDGE_BUILD)
    already = any(finding.path == JUDGE_BUILD for finding in report.failures)
    if old is not None and old != new and not already:  # a first lakefile is no change
        moved = "the file was removed" if new is None else "changed"
        report.fail(JUDGE_BUILD, f"{moved} since {since}: it says how the judge is built; {_JUDGE}")
