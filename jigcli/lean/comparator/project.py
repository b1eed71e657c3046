"""The run folder of one Lean submission, written from trusted text only.

comparator judges a challenge module against a solution module of one Lake project, built in
that project's `.lake` (`Main.lean` at `v4.33.0`: `safeLakeBuild`, `safeExport`). jig makes
such a project for each submission, in a fresh private folder, so that nothing one
submission's build writes is ever read by another's, and nothing is written into the repo:

    <run>/control/   landrun.json, the launcher, its log, comparator.json; never shown to
                     a sandboxed step
    <run>/tmp/       comparator's own temporary files (nanoda's configuration)
    <run>/project/   lakefile.toml, lake-manifest.json, lean-toolchain (the repo's pins),
                     Statements/<id>.lean, Commons/…, the submission's source at its
                     module's path (the bytes the policy scanned), JigChallenge.lean,
                     JigSolution.lean, and .lake/ (the run's own; its packages/ is where the
                     repo's packages appear, read-only, inside the sandbox)

The challenge imports the statement and the submission's own header imports and states

    theorem JigRun.goal : Statements.<id>.statement := sorry

and the solution is the same file with `import <module>` and `:= @<decl>`. With a refutation
link, both also hold `theorem JigRun.refutes : Statements.<id>.statement ↔ ¬
Statements.<refutes>.statement := Iff.rfl`, which the challenge's build, run before any code
of the submission, already checks. Everything here is text jig writes from the manifest's
validated names and the repo's own files.
"""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from jigcli.repo import Repo

CHALLENGE = "JigChallenge"
SOLUTION = "JigSolution"
GOAL = "JigRun.goal"
LINK = "JigRun.refutes"
# comparator's `permitted_axioms`: the three PRODUCT.md §3 allows.
PERMITTED_AXIOMS = ("propext", "Quot.sound", "Classical.choice")
CONFIG_NAME = "comparator.json"


@dataclass(frozen=True)
class Task:
    """What one run is to judge, from the validated manifest."""

    statement_id: str
    module: str
    decl: str
    refutes: str | None
    imports: tuple[str, ...]  # the submission's header imports, as jig read them
    source: bytes

    @property
    def statement(self) -> str:
        return f"Statements.{self.statement_id}.statement"

    @property
    def theorems(self) -> tuple[str, ...]:
        return (GOAL, LINK) if self.refutes else (GOAL,)


@dataclass(frozen=True)
class RunFolder:
    root: Path

    @property
    def control(self) -> Path:
        return self.root / "control"

    @property
    def project(self) -> Path:
        return self.root / "project"

    @property
    def tmp(self) -> Path:
        return self.root / "tmp"

    @property
    def dot_lake(self) -> Path:
        return self.project / ".lake"

    @property
    def config(self) -> Path:
        return self.control / CONFIG_NAME


def write(root: Path, repo: Repo, task: Task, *, nanoda: bool) -> RunFolder:
    """The run folder of `task` in `root` (a fresh private folder)."""
    run = RunFolder(root)
    for folder in (run.control, run.tmp, run.project, run.dot_lake, run.dot_lake / "packages"):
        folder.mkdir(mode=0o700)
    _copy_repo_files(repo, task, run.project)
    _put(run.project, _module_file(task.module), task.source)
    _put(run.project, f"{CHALLENGE}.lean", challenge_text(task).encode())
    _put(run.project, f"{SOLUTION}.lean", solution_text(task).encode())
    _put(run.project, "lakefile.toml", lakefile_text(repo, task).encode())
    _put(run.control, CONFIG_NAME, config_text(task, nanoda=nanoda).encode())
    return run


def challenge_text(task: Task) -> str:
    return _run_file(task, solved=False)


def solution_text(task: Task) -> str:
    return _run_file(task, solved=True)


def _run_file(task: Task, *, solved: bool) -> str:
    statements = [f"Statements.{task.statement_id}"]
    if task.refutes and task.refutes != task.statement_id:
        statements.append(f"Statements.{task.refutes}")
    imports = [*statements, *(m for m in task.imports if m not in statements)]
    if solved:
        imports.append(task.module)
    lines = [f"import {module}" for module in imports]
    proof = f"@{task.decl}" if solved else "sorry"
    lines += ["", f"theorem {GOAL} : {task.statement} :=", f"  {proof}"]
    if task.refutes:
        refuted = f"Statements.{task.refutes}.statement"
        lines += ["", f"theorem {LINK} : {task.statement} ↔ ¬ {refuted} :=", "  Iff.rfl"]
    return "\n".join(lines) + "\n"


def config_text(task: Task, *, nanoda: bool) -> str:
    """comparator's configuration (`Main.lean`'s `Config` at the tag: `challenge_module`,
    `solution_module`, `theorem_names`, `permitted_axioms`, `enable_nanoda`)."""
    config = {
        "challenge_module": CHALLENGE,
        "solution_module": SOLUTION,
        "theorem_names": list(task.theorems),
        "permitted_axioms": list(PERMITTED_AXIOMS),
        "enable_nanoda": nanoda,
    }
    return json.dumps(config, indent=2) + "\n"


def lakefile_text(repo: Repo, task: Task) -> str:
    """The run's `lakefile.toml`: the repo's package name and requirements (so the copied
    manifest and the repo's packages fit it as they are), its statements and `Commons`,
    the submission's module alone, and the two run files."""
    config = tomllib.loads((repo.root / "lakefile.toml").read_text(encoding="utf-8"))
    lines = [f"name = {_toml(str(config['name']))}", ""]
    for require in config.get("require", []):
        lines.append("[[require]]")
        lines += [f"{key} = {_toml(str(value))}" for key, value in sorted(require.items())]
        lines.append("")
    libraries = [
        ("Commons", "globs", ["Commons.+"]),
        ("Statements", "globs", ["Statements.+"]),
        ("JigSubmission", "roots", [task.module]),
        ("JigRun", "roots", [CHALLENGE, SOLUTION]),
    ]
    for name, key, values in libraries:
        listed = ", ".join(_toml(value) for value in values)
        lines += ["[[lean_lib]]", f"name = {_toml(name)}", f"{key} = [{listed}]", ""]
    return "\n".join(lines)


def _toml(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)  # a JSON string is a TOML basic string


def _copy_repo_files(repo: Repo, task: Task, project: Path) -> None:
    for name in ("lake-manifest.json", "lean-toolchain"):
        if (repo.root / name).is_file():
            shutil.copyfile(repo.root / name, project / name)
    for statement_id in dict.fromkeys(filter(None, (task.statement_id, task.refutes))):
        relative = f"Statements/{statement_id}.lean"
        _put(project, relative, (repo.root / relative).read_bytes())
    commons = repo.root / "Commons"
    if commons.is_dir():
        for source in sorted(commons.rglob("*.lean")):
            if source.is_file() and not source.is_symlink():
                _put(project, source.relative_to(repo.root).as_posix(), source.read_bytes())


def _module_file(module: str) -> str:
    return "/".join(module.split(".")) + ".lean"


def _put(folder: Path, relative: str, data: bytes) -> None:
    """A new file at `relative` below `folder` (its folders made as needed), never through a
    link and never over a file already there."""
    path = folder / relative
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
