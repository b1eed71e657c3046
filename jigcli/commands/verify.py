"""`jig verify MANIFEST`: one submission, Lean or certificate; exit 0 green, 1 red, 2 usage,
4 not checked here (no Lean or no sandbox on this machine; the verdict file says red).
Several manifests, a folder or a glob: `jigcli.commands.verify_batch`.

Under GitHub Actions (`GITHUB_STEP_SUMMARY` set) the verdict and its checks are also
appended to the job summary as a Markdown table; `--format github` (the default under Actions)
adds an annotation on the manifest for a red verdict.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from jigcli.certificates.spec import LANES
from jigcli.console import emit_json, hanging, out, say_error, shown_in_repo, shown_path
from jigcli.errors import Terminated, UsageError
from jigcli.render.github import Annotation, annotating, chosen
from jigcli.render.running import step_words, watching
from jigcli.repo import Repo
from jigcli.summary import append_step_summary, verdict_markdown
from jigcli.verdict import REASONS, Verdict
from jigcli.verify.arguments import (
    check_manifest_argument,
    check_path_length,
    check_work_folder,
    repo_for,
)
from jigcli.verify.context import VerifyOptions
from jigcli.verify.submission import verify

VERIFIER = "submission"  # the registry's verifier behind `jig verify`


def run(
    manifest: Path | Sequence[Path],
    *,
    statement_id: str | None,
    out: Path | None,
    as_json: bool,
    timeout: float,
    lane: str,
    allow_no_netns: bool,
    root: Path | None,
    output_format: str | None = None,
    jobs: int | None = None,
) -> int:
    """One manifest as given: `_run_one`; several, a folder or a glob: `jigcli.commands.
    verify_batch`, each verified as `_run_one` would verify it."""
    manifests = [manifest] if isinstance(manifest, Path) else list(manifest)
    if lane not in LANES:
        raise UsageError(f"--lane {lane!r} is not a lane; use {' or '.join(LANES)}.")
    for given in manifests:
        check_path_length(given)
    if len(manifests) == 1 and manifests[0].is_file():
        return _run_one(
            manifests[0],
            statement_id=statement_id,
            out=out,
            as_json=as_json,
            timeout=timeout,
            lane=lane,
            allow_no_netns=allow_no_netns,
            root=root,
            output_format=output_format,
        )
    from jigcli.commands import verify_batch

    return verify_batch.run(
        manifests,
        statement_id=statement_id,
        out=out,
        as_json=as_json,
        timeout=timeout,
        lane=lane,
        allow_no_netns=allow_no_netns,
        root=root,
        output_format=output_format,
        jobs=jobs,
    )


def _run_one(
    manifest: Path,
    *,
    statement_id: str | None,
    out: Path | None,
    as_json: bool,
    timeout: float,
    lane: str,
    allow_no_netns: bool,
    root: Path | None,
    output_format: str | None,
) -> int:
    shown_as = chosen(output_format)
    check_manifest_argument(manifest)
    if out is not None:
        _check_out(out)
    repo = repo_for(manifest, root)
    check_work_folder(repo)
    options = VerifyOptions(
        statement_id=statement_id, timeout=timeout, lane=lane, allow_no_netns=allow_no_netns
    )
    # Inside the repo, the path as given: no link below the root is followed to read it.
    path = repo.inside(manifest) or Path(os.path.abspath(manifest))
    verdict = _verify_watched(path, repo, options, shown=shown_path(manifest), quiet=as_json)
    if out is not None:
        _write(verdict, out)
    append_step_summary(lambda: verdict_markdown(verdict.to_json()))
    with annotating(shown_as, as_json=as_json) as annotations:
        if as_json:
            emit_json(verdict.to_json())
        else:
            show(verdict, repo.root)
        if not verdict.green:
            annotations.append(_annotation(verdict))
    return verdict.exit_code


def _verify_watched(
    path: Path, repo: Repo, options: VerifyOptions, *, shown: str, quiet: bool
) -> Verdict:
    """`verify`, naming the step on stderr once it is slow; a Ctrl-C (or SIGTERM) says where
    it stopped and that nothing was written, then jig exits as for that signal."""
    last = "start"
    try:
        with watching(shown, quiet=quiet) as show_tick:

            def tick(step: str, seconds: float) -> None:
                nonlocal last
                last = step
                show_tick(step, seconds)

            return verify(path, repo, options, on_tick=tick)
    except KeyboardInterrupt as stop:  # the live line is gone by now: the sentence stands alone
        how = "stopped by a signal" if isinstance(stop, Terminated) else "interrupted"
        say_error(
            f"{how} while {step_words(last)}: {shown} has no verdict and nothing was "
            "written; run jig verify again to check it."
        )
        raise


def _annotation(verdict: Verdict) -> Annotation:
    """A red verdict on its manifest: an error, or a warning when this runner could not check."""
    reason = verdict.reason or "verifier_error"
    said = f"red {reason} — {REASONS[reason].words}: {verdict.detail}"
    level = "error" if verdict.checked_here else "warning"
    return Annotation(verdict.submission, None, said, level=level, title="jig verify")


def _check_out(out: Path) -> None:
    """`--out` refused before the submission is verified, not after a long build."""
    if out.is_symlink():
        raise UsageError(
            f"{out} is a symbolic link; jig does not write through one: pick another --out."
        )
    if out.is_dir():
        raise UsageError(f"{out} is a folder; pass --out the path of a file to write.")
    parent = out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise UsageError(f"{parent} is not a folder; pick another --out.")


def _write(verdict: Verdict, path: Path) -> None:
    try:
        verdict.write(path)
    except OSError as exc:
        raise UsageError(
            f"cannot write the verdict to {path}: {exc.strerror}; pick another --out."
        ) from exc


def show(verdict: Verdict, root: Path) -> None:
    """The verdict for a person: what, why, each check with its mark, what next, evidence.

    The verdict's words and mark come from the registry's `submission` verifier, like every
    other command's; a check that failed says so in words, so no meaning rests on colour.
    The verdict names files relative to the repo (`root`); a person reads them relative to
    the working folder, like every command's output, so that `path:line:` opens.
    """
    from rich.markup import escape

    from jigcli.display import one_line
    from jigcli.render.lines import mark

    def shown(text: object) -> str:  # a checker's words are data: one safe line, escaped
        return escape(one_line(_here(str(text), root)))

    console = out()
    document = verdict.to_json()
    reason = document["reason"]
    hanging(console, _headline(verdict, reason), 2)
    manifest = shown_in_repo(root, verdict.submission) if verdict.submission else None
    subject = " · ".join(
        str(part) for part in (manifest, verdict.statement_id, verdict.decl) if part
    )
    hanging(console, f"  {shown(subject)}", 4)
    if verdict.detail and reason != "ok" and not _said_by_a_check(verdict):
        hanging(console, f"  {shown(verdict.detail)}", 4)
    rows = _check_rows(verdict, root)
    width = max((len(names) for names, _, _ in rows), default=0)
    for names, status, said in rows:  # a long line hangs under its words, not its name
        hanging(console, f"  {mark(status)} {escape(names.ljust(width))}  {shown(said)}", width + 6)
    if verdict.elaborated_term_hash:
        console.print(f"  term hash {verdict.elaborated_term_hash}")
    if not verdict.green:
        hanging(console, f"[bold]Next:[/] {escape(document['next'])}", 6)
    for label, path in verdict.evidence.items():
        where = escape(one_line(shown_in_repo(root, path)))
        hanging(console, f"[dim]{escape(label)}:[/] {where}", 4)


def _said_by_a_check(verdict: Verdict) -> bool:
    """Whether a failed check's line already says the verdict's detail (it is said once)."""
    return any(c.ok is False and c.detail == verdict.detail for c in verdict.checks.values())


def _check_rows(verdict: Verdict, root: Path) -> list[tuple[str, str, str]]:
    """(names, status, words) per line: each check on its own, except that a run of checks not
    run for one reason is one line (`toolchain … term_hash`), said once. A failed check's
    places are shown from the working folder, as the verdict's detail's are."""
    rows: list[tuple[list[str], str, str]] = []
    for name, check in verdict.checks.items():
        status = {True: "ok", False: "error", None: "pending"}[check.ok]
        said = f"failed: {_here(check.detail, root)}" if check.ok is False else check.detail
        if rows and status == "pending" and rows[-1][1:] == (status, said):
            rows[-1][0].append(name)
        else:
            rows.append(([name], status, said))
    return [(_names(names), status, said) for names, status, said in rows]


def _names(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return f"{names[0]} … {names[-1]} ({len(names)})"


# A repo-relative file named at the start of a line, as `path:line:` or `path:` (a policy
# violation, a compiler message): the places a verdict's details point at.
_PLACE = re.compile(r"^([^\s:]+\.(?:lean|json|witness|tex)):", re.MULTILINE)


def _here(text: str, root: Path) -> str:
    """`text` with each repo-relative place that starts a line shown from the working folder;
    a name that is no file of the repo is left as written."""

    def relocated(match: re.Match[str]) -> str:
        name = match.group(1)
        if name.startswith("/") or not (root / name).exists():
            return match.group(0)
        return f"{shown_in_repo(root, name)}:"

    return _PLACE.sub(relocated, text)


def _headline(verdict: Verdict, reason: str) -> str:
    """The verdict's first line. A machine that could not run the check says so with the
    pending mark: the verdict is red for CI, but nothing was found wrong with the submission."""
    from rich.markup import escape

    from jigcli.render.lines import mark
    from jigcli.verifiers.registry import verdict_words, verifier_status

    if not verdict.checked_here:
        return f"{mark('pending')} " + escape(
            f"Not checked here: {reason} — {REASONS[reason].words}"
        )
    headline = f"{mark(verifier_status(VERIFIER, verdict.verdict))} " + escape(
        verdict_words(VERIFIER, verdict.verdict)
    )
    if not verdict.green:
        headline += escape(f": {reason} — {REASONS[reason].words}")
    return headline
