"""`jig pose lean|certificate|check`: thin over `jigcli.pose`, which decides everything.

Exit codes: 0 posed (or, for `check`, all holds); 1 refused with nothing written (or a check
failure); 2 a usage error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.console import emit_json, err, out, shown_in_repo
from jigcli.display import one_line
from jigcli.render.lines import escape, mark, result_line
from jigcli.repo import Repo

if TYPE_CHECKING:
    from jigcli.pose.check import CheckReport


def run_lean(
    label: str,
    *,
    prop: str,
    imports: list[str],
    doc: str | None,
    green: Path | None,
    red: list[Path],
    red_reasons: list[str],
    build: bool,
    commit: bool,
    root: Path | None,
) -> int:
    from jigcli.pose.lean import LeanPose, commit_message, pose_lean

    repo = Repo.locate(root)
    request = LeanPose(label, prop, imports, doc, green, red, red_reasons, build, commit)
    posed = pose_lean(repo, request)
    console = out()
    for path in posed.files:
        example = posed.example_of.get(path)
        said = _written(path, example.describe() if example else None)
        console.print(result_line(shown_in_repo(repo.root, path), None, "ok", said))
    statement = shown_in_repo(repo.root, f"Statements/{label}.lean")
    if posed.elaboration is not None:
        status = "ok" if posed.elaboration.ran else "pending"
        console.print(result_line(statement, None, status, posed.elaboration.detail))
        for warning in posed.elaboration.warnings:
            console.print(f"  warning: {warning}", markup=False)
    if posed.commit is not None:
        console.print(f'committed {posed.commit[:7]} "{commit_message(label)}"', markup=False)
    if posed.elaboration is not None and not posed.elaboration.ran:
        return _not_elaborated(statement, label, posed.held_back)
    console.print(_next_for_statement(repo, label, statement, bool(posed.example_of)), markup=False)
    return 0


def _not_elaborated(statement: str, label: str, held_back: bool) -> int:
    """--build asked for Lean's word and there was none here: say so, keep the draft, and
    exit "not checked here" rather than 0."""
    from jigcli.console import say_error
    from jigcli.verdict import EXIT_NOT_CHECKED

    kept = "not committed: " if held_back else ""
    say_error(
        f"{kept}{statement} is written but Lean never elaborated it, and a statement is "
        f"write-once; run `lake build Statements.{label}` where the pinned toolchain is "
        "installed, then commit it (or pose it again with --build --commit there)."
    )
    return EXIT_NOT_CHECKED


def _next_for_statement(repo: Repo, label: str, statement: str, examples: bool) -> str:
    """What to do after posing: a command that runs as printed, from the working folder."""
    review = f"next: review {statement} (the statement is the whole contract)"
    if not examples:
        return (
            f"{review}; it has no example yet: add a proof and its manifest under "
            f"Submissions/{label}/ (docs/guides/posers.md) so that jig selftest guards it"
        )
    folder = shown_in_repo(repo.root, f"Submissions/{label}")
    return f"{review}, then `jig selftest {folder}` where Lean is installed"


def _written(path: str, example: str | None) -> str:
    if example is None:
        return "written"
    kind = "manifest of" if path.endswith(".json") else "copy of"
    return f"written · {kind} {example}"


def run_certificate(
    problem_id: str,
    *,
    title: str,
    statement: str,
    witness_format: str,
    checker: Path,
    green: Path,
    red: list[Path],
    wall_sec: float | None,
    cpu_sec: int | None,
    address_space_mb: int | None,
    output_bytes: int | None,
    commit: bool,
    allow_no_netns: bool,
    root: Path | None,
) -> int:
    from jigcli.pose.certificate import CertificatePose, Example, commit_message, pose_certificate

    def running(example: Example) -> None:
        err().print(f"running the checker on {example.describe()}…", markup=False)

    repo = Repo.locate(root)
    request = CertificatePose(
        problem_id,
        title,
        statement,
        witness_format,
        checker,
        green,
        red,
        wall_sec,
        cpu_sec,
        address_space_mb,
        output_bytes,
        commit,
        allow_no_netns,
    )
    posed = pose_certificate(repo, request, on_example=running)
    console = out()
    for judged in posed.judged:
        outcome = judged.outcome
        said = one_line(outcome.detail)
        words = f"{judged.example.expect} as declared · {said} ({outcome.isolation})"
        console.print(result_line(str(judged.example.source), None, "ok", words))
    if posed.lowered:
        console.print(
            "the default lane lowered the spec's limits for these runs: "
            + ", ".join(posed.lowered),
            markup=False,
        )
    for path in posed.files:
        console.print(result_line(shown_in_repo(repo.root, path), None, "ok", "written"))
    if posed.commit is not None:
        console.print(f'committed {posed.commit[:7]} "{commit_message(problem_id)}"', markup=False)
    folder = shown_in_repo(repo.root, f"Certificates/{problem_id}")
    console.print(
        f"next: have {folder}/checker.py reviewed like a canonical statement; "
        f"`jig selftest {folder}` guards it from now on",
        markup=False,
    )
    return 0


def run_check(
    *, base: str | None, as_json: bool, root: Path | None, output_format: str | None = None
) -> int:
    from jigcli.pose.check import check
    from jigcli.render.github import Annotation, annotating, chosen

    shown_as = chosen(output_format)
    repo = Repo.locate(root)
    report = check(repo, base)
    with annotating(shown_as, as_json=as_json) as annotations:
        annotations += [
            Annotation(f.path, f.line, f.problem, title="jig pose check") for f in report.failures
        ]
        return _show_check(report, as_json=as_json)


def _show_check(report: CheckReport, *, as_json: bool) -> int:
    if as_json:
        emit_json(report.to_json())
        return 0 if report.ok else 1
    console = out()
    console.print(
        f"pose check: HEAD {report.head[:7]} against {report.base[:7]} ({report.base_ref})",
        markup=False,
    )
    for finding in report.failures:
        console.print(result_line(finding.path, finding.line, "error", finding.problem))
    counts = (
        f"{len(report.protected)} protected file(s), {len(report.new_statements)} new "
        f"statement file(s), {len(report.new_problems)} new certificate problem(s)"
    )
    if report.uncommitted:
        shown = ", ".join(report.uncommitted[:5]) + (" …" if len(report.uncommitted) > 5 else "")
        said = (
            f"{len(report.uncommitted)} posed file(s) in the working tree are not committed, so "
            f"not checked (pose check compares commits): {shown}; commit them and run it again"
        )
        console.print(f"{mark('pending')} {escape(one_line(said, 10_000))}")
    if report.ok:
        console.print(f"{counts}: all hold", markup=False)
        return 0
    console.print(f"{counts}: {len(report.failures)} failure(s)", markup=False)
    return 1
