"""`jig pose lean LABEL`: a new canonical statement, refused unless every rule holds.

1. the examples pair up with their reasons and exist (a usage error otherwise);
2. the label is a plain identifier, and Statements/<label>.lean is not taken: not in the tree,
   never in the history of any ref, not even up to case (`writeonce`);
3. the imports, the doc text, and the generated file itself (`statement.statement_problems`:
   its shape, its imports, the static policy on everything but the target's `sorry`);
4. the examples (`examples`), none of whose files may exist;
5. with `--build`, Lean elaborates the generated file, before anything is written, when a
   toolchain is here; when none is, the result says so and the pose goes on;
6. the files are written, all or none; with `--commit`, one commit holds exactly them.

Any refusal raises `PoseRefused` with one sentence, and nothing has been written.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from jigcli.pose import PoseRefused
from jigcli.pose.examples import LeanExample, example_problem, gather
from jigcli.pose.files import refuse_taken, write_new
from jigcli.pose.history import History, history_for
from jigcli.pose.statement import (
    doc_problem,
    import_problem,
    label_problem,
    render,
    statement_problems,
)
from jigcli.pose.writeonce import names_ever, names_in, reuse_problem
from jigcli.repo import Repo

# Loading a few Mathlib modules and elaborating one proposition; generous for a cold cache.
BUILD_TIMEOUT_SEC = 900.0
STATEMENT_RULE = "statements are write-once, and a different proposition needs a new label"


@dataclass(frozen=True)
class LeanPose:
    label: str
    prop: str
    imports: list[str] = field(default_factory=list)
    doc: str | None = None
    green: Path | None = None
    red: list[Path] = field(default_factory=list)
    red_reasons: list[str] = field(default_factory=list)
    build: bool = False
    commit: bool = False


@dataclass(frozen=True)
class Elaboration:
    """What `--build` found: `ran` False when there was no toolchain to run."""

    ran: bool
    detail: str
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Posed:
    files: list[str]  # repo-relative, as written
    example_of: dict[str, LeanExample]  # an example's written file (copy, manifest) → it
    elaboration: Elaboration | None
    commit: str | None
    held_back: bool = False  # --commit asked, not done: --build could not run Lean here


def commit_message(label: str) -> str:
    return f"Add canonical statement {label}"


def pose_lean(repo: Repo, request: LeanPose, *, timeout: float = BUILD_TIMEOUT_SEC) -> Posed:
    examples = gather(request.green, request.red, request.red_reasons)  # 1
    history = history_for(repo.root, commit=request.commit)
    label = request.label
    _refuse_if(label_problem(label))  # 2
    _refuse_taken_label(repo, history, label)
    imports = list(dict.fromkeys(module.strip() for module in request.imports))  # 3
    for module in imports:
        _refuse_if(import_problem(module))
    doc = (request.doc or "").strip() or None
    if doc is not None:
        _refuse_if(doc_problem(doc))
    prop = request.prop.strip()
    if not prop:
        raise PoseRefused("the proposition is empty; pass it, as Lean, with --prop")
    text = render(label, prop, imports, doc)
    problems = statement_problems(label, text)
    if problems:
        first = problems[0]
        raise PoseRefused(
            f"Statements/{label}.lean as generated breaks a rule at line {first.line}: "
            f"{first.message}"
        )
    files = {f"Statements/{label}.lean": text.encode("utf-8")}
    _refuse_duplicate_names(examples, label)  # 4
    for example in examples:
        _refuse_if(example_problem(label, example))
        files.update(example.files(label))
    refuse_taken(repo.root, files)
    elaboration = _elaborate(repo, label, text, timeout) if request.build else None  # 5
    written = write_new(repo.root, files)  # 6
    # A statement is write-once: one that --build was asked to check and Lean never saw is
    # kept as a draft in the working tree, never committed.
    unchecked = elaboration is not None and not elaboration.ran
    commit = None
    if request.commit and history is not None and not unchecked:
        commit = history.commit_only(written, commit_message(label))
    example_of = {name: example for example in examples for name in example.files(label)}
    return Posed(written, example_of, elaboration, commit, request.commit and unchecked)


def _refuse_if(problem: str | None) -> None:
    if problem is not None:
        raise PoseRefused(problem)


def _refuse_taken_label(repo: Repo, history: History | None, label: str) -> None:
    _refuse_if(
        reuse_problem(
            f"{label}.lean",
            "Statements",
            present=names_in(repo.statements_dir),
            past=names_ever(history, "Statements"),
            rule=STATEMENT_RULE,
        )
    )


def _refuse_duplicate_names(examples: list[LeanExample], label: str) -> None:
    seen: dict[str, LeanExample] = {}
    for example in examples:
        other = seen.setdefault(example.name.casefold(), example)
        if other is not example:
            raise PoseRefused(
                f"{other.source} and {example.source} would both become "
                f"Submissions/{label}/{example.name}.lean; rename one"
            )


# -- 5. --build --------------------------------------------------------------------------------


def _elaborate(repo: Repo, label: str, text: str, timeout: float) -> Elaboration:
    """Elaborate the generated file with Lean, from a scratch copy outside the repo (so that a
    refusal still leaves nothing behind); refuse on any error."""
    from jigcli.lean import backend

    shown = f"Statements/{label}.lean"
    try:
        toolchain = backend.detect(repo)
    except backend.ToolchainProblem as problem:
        return Elaboration(
            False,
            f"not elaborated: {problem}; `lake build Statements.{label}` checks it where the "
            "pinned toolchain is installed",
        )
    with tempfile.TemporaryDirectory(prefix="jig-pose-") as scratch:
        file = Path(scratch) / f"{label}.lean"
        file.write_text(text, encoding="utf-8")
        elaboration = backend.elaborate(toolchain, repo, file, timeout=timeout)
    if elaboration.result.timed_out:
        raise PoseRefused(f"Lean did not finish elaborating {shown} within {timeout:g} s")
    errors = elaboration.output.errors
    if errors:
        first = errors[0]
        raise PoseRefused(f"Lean rejects {shown}: {first.where(shown)} {first.headline()}")
    if elaboration.crashed:
        said = elaboration.result.output.strip().splitlines()[-1:] or ["no output"]
        raise PoseRefused(f"Lean stopped without a verdict on {shown} ({said[0]})")
    warnings = [
        f"{message.where(shown)} {message.headline()}"
        for message in elaboration.output.messages
        if message.severity == "warning" and not message.mentions("declaration uses")
    ]
    return Elaboration(True, f"elaborated by {toolchain.describe()}", warnings)
