"""The example submissions `jig pose lean` leaves beside a new statement.

`--green EvenSquare.lean` becomes `Submissions/<label>/EvenSquare.lean`, the bytes exactly as
given, and `Submissions/<label>/EvenSquare.json`, a manifest naming module
`Submissions.<label>.EvenSquare` and decl `Submissions.<label>.EvenSquare.proof` with its
`expect` (and `expect_reason`). So an example declares `theorem proof` inside
`namespace Submissions.<label>.EvenSquare`, as every example in Submissions/ does.

Nothing is rewritten: the selftest then checks exactly the file the poser wrote and reviewed
(a renamed namespace could turn an adversarial example into a different one, e.g. one that
shadows the statement), and the manifest holds nothing a reader of the file could not predict
from its name.

What can be known without Lean is checked before anything is written: the name, the declared
`proof`, and the static policy, which decides one outcome outright: a source it rejects always
ends red `forbidden_syntax` (it is never built), and a source it accepts never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jigcli.errors import UsageError
from jigcli.lean.lexer import KEYWORDS
from jigcli.lean.policy import Violation, scan
from jigcli.pose.files import json_bytes
from jigcli.schemas import validate

_NAME_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NAME_REST = _NAME_FIRST | frozenset("0123456789_")
# The reasons a Lean example can be built to end with. The rest cannot come from a source
# posed this way: jig writes the manifest itself (bad_manifest, unknown_statement,
# missing_source, statement_id_mismatch), `not_a_refutation` needs `refutes`, and the others
# belong to certificates or to the machine (toolchain_missing, verifier_error).
LEAN_RED_REASONS = (
    *("forbidden_syntax", "build_failed", "restatement", "shadowed_statement", "provenance"),
    *("unchecked_code", "sorry", "native_decide", "disallowed_axiom", "audit_failed"),
    *("kernel_rejected", "timeout"),
)


@dataclass(frozen=True)
class LeanExample:
    source: Path
    expect: str  # green | red
    expect_reason: str  # ok for a green one
    data: bytes

    @property
    def name(self) -> str:
        return self.source.stem

    def module(self, label: str) -> str:
        return f"Submissions.{label}.{self.name}"

    def decl(self, label: str) -> str:
        return f"{self.module(label)}.proof"

    def manifest(self, label: str) -> dict[str, Any]:
        return {
            "schema": "conject.submission.v1",
            "kind": "lean",
            "statement_id": label,
            "module": self.module(label),
            "decl": self.decl(label),
            "expect": self.expect,
            "expect_reason": self.expect_reason,
        }

    def files(self, label: str) -> dict[str, bytes]:
        """The two new files: the source, verbatim, and its manifest."""
        folder = f"Submissions/{label}"
        return {
            f"{folder}/{self.name}.lean": self.data,
            f"{folder}/{self.name}.json": json_bytes(self.manifest(label)),
        }

    def describe(self) -> str:
        said = "green" if self.expect == "green" else f"red ({self.expect_reason})"
        return f"the {said} example {self.source.name}"


def gather(green: Path | None, red: list[Path], red_reasons: list[str]) -> list[LeanExample]:
    """The examples as given; `UsageError` when the options do not pair up or a file is missing."""
    if len(red) != len(red_reasons):
        raise UsageError(
            f"{len(red)} --red example(s) but {len(red_reasons)} --red-reason(s); give each "
            "--red its own --red-reason, in the same order."
        )
    wanted = [("green", "ok", green)] if green is not None else []
    wanted += [("red", reason, path) for path, reason in zip(red, red_reasons, strict=True)]
    examples = []
    for expect, reason, path in wanted:
        if not path.is_file():
            raise UsageError(f"--{expect} {path} is not a file; pass the example's .lean source.")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UsageError(f"--{expect} {path} cannot be read ({exc.strerror}).") from None
        examples.append(LeanExample(path, expect, reason, data))
    return examples


def example_problem(label: str, example: LeanExample) -> str | None:
    """Why `example` cannot be posed with statement `label` as it stands, or None."""
    shown = example.describe()
    name = example.name
    if example.source.suffix != ".lean":
        return f"{shown} must be a .lean file"
    if not (name[:1] in _NAME_FIRST and set(name) <= _NAME_REST) or name in KEYWORDS:
        return (
            f"{shown} needs a file name that is a plain Lean identifier (ASCII letters, digits "
            "and `_`, starting with a letter), since it becomes the module's last part"
        )
    if example.expect == "red" and example.expect_reason not in LEAN_RED_REASONS:
        return (
            f"{shown}: --red-reason {example.expect_reason!r} is not a reason a Lean example can "
            "end with; use one of " + ", ".join(LEAN_RED_REASONS)
        )
    try:
        text = example.data.decode("utf-8")
    except UnicodeDecodeError:
        return f"{shown} is not UTF-8, and Lean reads only UTF-8 sources"
    missing = _missing_decl(example, label)
    if missing is not None:
        return missing
    problems = validate(example.manifest(label), "submission")
    if problems:
        return f"{shown} would get a manifest the schema refuses ({'; '.join(problems)})"
    return _policy_disagrees(example, scan(text))


def _missing_decl(example: LeanExample, label: str) -> str | None:
    from jigcli.lean.declarations import read_lean

    decl = example.decl(label)
    found = read_lean(example.source).by_full_name(decl)
    if found is None or found.kind == "example":
        return (
            f"{example.describe()} declares no `{decl}`; put its `theorem proof` inside "
            f"`namespace {example.module(label)}`, since it is copied unchanged to "
            f"Submissions/{label}/{example.name}.lean"
        )
    return None


def _policy_disagrees(example: LeanExample, violations: list[Violation]) -> str | None:
    shown = example.describe()
    if violations and example.expect_reason != "forbidden_syntax":
        first = violations[0]
        return (
            f"{shown} is refused by the static policy (line {first.line}: `{first.construct}`), "
            "so it would end red forbidden_syntax without being built; fix it, or pose it as "
            "--red with --red-reason forbidden_syntax"
        )
    if not violations and example.expect_reason == "forbidden_syntax":
        return (
            f"{shown} passes the static policy, so it cannot end forbidden_syntax; give the "
            "reason it really fails with"
        )
    return None
