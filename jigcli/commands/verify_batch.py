"""`jig verify M1 M2 … [--jobs N]`, a folder or a quoted glob: every manifest verified in one
process, each exactly as a single `jig verify` verifies it (`jigcli.verify.batch`).

Output: a line per verdict as it finishes (with its reason, detail and what to do for a red),
then a count; `--json` prints one document with every verdict instead
(`jigcli/schemas/batch.schema.json`). Progress on stderr names what is running. With `--out
DIR` each verdict is written to its own file in DIR as it finishes, so a Ctrl-C keeps every
verdict already reached; the ones not run are named. Exit: the worst verdict's status (1 over
4 over 0); 2 for a usage error, before anything ran; 130/143/129 after Ctrl-C, SIGTERM, SIGHUP.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from jigcli.console import (
    emit_json,
    err,
    out,
    say_error,
    shown_in_repo,
    shown_path,
    stderr_is_terminal,
)
from jigcli.errors import UsageError
from jigcli.render.github import Annotation, annotating, chosen
from jigcli.safewrite import UnsafeTarget, write_file
from jigcli.selftest.discover import Case
from jigcli.selftest.runner import Outcome, Settings, plan_jobs
from jigcli.summary import append_step_summary, table
from jigcli.verdict import EXIT_NOT_CHECKED, REASONS
from jigcli.verify import batch
from jigcli.verify.arguments import check_work_folder, repo_for
from jigcli.verify.submission import work_name


def run(
    manifests: Sequence[Path],
    *,
    statement_id: str | None,
    out: Path | None,
    as_json: bool,
    timeout: float,
    lane: str,
    allow_no_netns: bool,
    root: Path | None,
    output_format: str | None,
    jobs: int | None,
) -> int:
    shown_as = chosen(output_format)
    repo = repo_for(manifests[0], root)
    check_work_folder(repo)
    cases = batch.manifests(manifests, repo)
    files = _verdict_files(out, cases) if out is not None else {}
    settings = Settings(
        plan_jobs(jobs),
        timeout=timeout,
        allow_no_netns=allow_no_netns,
        lane=lane,
        statement_id=statement_id,
        work_area="verify",
    )
    with _progress(len(cases)) as (on_start, finished):

        def on_done(outcome: Outcome) -> None:
            if outcome.case.rel in files:
                _write(files[outcome.case.rel], outcome.document)
            finished(outcome)
            if not as_json:
                show_line(outcome.document, repo.root)

        result = batch.verify_all(cases, repo, settings, on_start=on_start, on_done=on_done)
    document = batch.to_json(result)
    append_step_summary(lambda: _markdown(result))
    with annotating(shown_as, as_json=as_json) as annotations:
        if as_json:
            emit_json(document)
        else:
            show_counts(result)
        annotations += [_annotation(d) for d in result.documents() if d["verdict"] != "green"]
    if result.interrupted:
        names = ", ".join(shown_path(case.path) for case in result.not_run) or "none"
        say_error(
            f"interrupted: {len(result.not_run)} of {len(cases)} manifests were not verified "
            f"({names}); the verdicts reached are kept. Run jig verify on those again."
        )
    return int(document["exit_code"])


# -- verdict files ------------------------------------------------------------------------


def _verdict_files(folder: Path, cases: Sequence[Case]) -> dict[str, Path]:
    """Where `--out DIR` writes each case's verdict: DIR/<its path, `/` as `__`>.json, a
    digest added where two paths would share a name. Refused before anything runs."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise UsageError(
            f"{folder} is not a folder; with several manifests --out names the folder each "
            "verdict is written to."
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(f"cannot make {folder}: {error.strerror}; pick another --out.") from None
    files: dict[str, Path] = {}
    taken: set[str] = set()
    for case in cases:
        name = work_name(case.rel)
        if name in taken:
            name += "-" + hashlib.sha256(case.rel.encode("utf-8", "replace")).hexdigest()[:8]
        taken.add(name)
        files[case.rel] = folder / f"{name}.json"
    return files


def _write(path: Path, document: dict[str, Any]) -> None:
    try:
        write_file(path, (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode())
    except (OSError, UnsafeTarget) as error:
        say_error(f"cannot write the verdict to {path}: {error}; it is in the output above.")


# -- what a person sees -------------------------------------------------------------------


def show_line(document: dict[str, Any], root: Path) -> None:
    """One verdict as one line; for a red also its detail and what to do."""
    from rich.markup import escape

    from jigcli.display import one_line
    from jigcli.render.lines import mark

    code = batch.exit_code(document)
    status = {0: "ok", 1: "error"}.get(code, "pending")
    words = {0: "green", 1: "red"}.get(code, "not checked here")
    reason = document.get("reason") or "verifier_error"
    where = shown_in_repo(root, str(document.get("submission") or "?"))
    said = words if code == 0 else f"{words}: {reason} — {REASONS[reason].words}"
    console = out()
    console.print(f"{mark(status)} {escape(one_line(where))}  {escape(said)}")
    if code != 0:
        if document.get("detail"):
            console.print(f"    {escape(one_line(str(document['detail'])))}")
        console.print(f"    [bold]Next:[/] {escape(one_line(str(document.get('next', ''))))}")


def show_counts(result: batch.Batch) -> None:
    counted = batch.counts(result)
    parts = [f"{counted['green']} green", f"{counted['red']} red"]
    if counted["not_checked_here"]:
        parts.append(f"{counted['not_checked_here']} not checked here")
    if counted["not_run"]:
        parts.append(f"{counted['not_run']} not run")
    out().print(f"{len(result.cases)} manifests: " + ", ".join(parts))


@contextmanager
def _progress(
    total: int,
) -> Iterator[tuple[Callable[[Case], None], Callable[[Outcome], None]]]:
    """(on_start, on_done): a live line naming what runs on a terminal; elsewhere a line per
    start on stderr, with --json too (its document is stdout's alone)."""
    running: dict[str, Path] = {}
    done = [0]
    if stderr_is_terminal():
        with err().status("") as status:

            def update() -> None:
                names = ", ".join(shown_path(path) for path in running.values()) or "…"
                status.update(f"jig verify [{done[0]}/{total} done] running: {names}")

            def started(case: Case) -> None:
                running[case.rel] = case.path
                update()

            def finished(outcome: Outcome) -> None:
                running.pop(outcome.case.rel, None)
                done[0] += 1
                update()

            yield started, finished
        return

    def started_line(case: Case) -> None:
        sys.stderr.write(f"jig verify [{done[0] + 1}/{total}]: {shown_path(case.path)}\n")
        sys.stderr.flush()
        done[0] += 1

    yield started_line, lambda outcome: None


def _annotation(document: dict[str, Any]) -> Annotation:
    reason = document.get("reason") or "verifier_error"
    said = f"red {reason} — {REASONS[reason].words}: {document.get('detail')}"
    level = "warning" if batch.exit_code(document) == EXIT_NOT_CHECKED else "error"
    submission = str(document.get("submission") or "")
    return Annotation(submission, None, said, level=level, title="jig verify")


def _markdown(result: batch.Batch) -> str:
    rows = [
        [str(d.get("submission")), str(d.get("verdict")), str(d.get("reason") or "")]
        for d in result.documents()
    ]
    rows += [[case.rel, "not run", ""] for case in result.not_run]
    return "\n".join(["### jig verify", "", *table(["manifest", "verdict", "reason"], rows), ""])
