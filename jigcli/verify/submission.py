"""One submission through its verifier: the core behind `jig verify` and `jig selftest`.

1. read the manifest (a malformed one is a red `bad_manifest`, never a usage error);
2. refuse a manifest that names another statement than the one asked for;
3. dispatch on `kind`: the Lean pipeline (`jigcli.lean.pipeline`) or the certificate
   pipeline (`jigcli.certificates.pipeline`);
4. whatever happens, return a finished verdict: a crash is a red `verifier_error`, the
   wall budget a red `timeout`.
"""

from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from jigcli.manifest import Manifest, ManifestError, read_manifest
from jigcli.process import Deadline, stopping
from jigcli.repo import Repo
from jigcli.safefiles import name_problem, shown_name
from jigcli.verdict import Verdict

if TYPE_CHECKING:
    from jigcli.render.running import Tick
from jigcli.verify.context import VerifyContext, VerifyOptions

# After the budget, the pipeline thread gets this long to notice and stop on its own.
_WATCHDOG_GRACE_SEC = 5.0
_TICK_SEC = 0.1


def verify(
    manifest_path: Path,
    repo: Repo,
    options: VerifyOptions,
    on_tick: Tick | None = None,
) -> Verdict:
    """Verify the submission whose manifest is at `manifest_path` (absolute; inside the repo
    it is read through no link below the root, so give it unresolved: `Repo.inside`).
    `on_tick(step, seconds)` is called about ten times a second while it runs."""
    verdict = Verdict(submission=_shown(repo, manifest_path))
    verdict.toolchain = _pins_or_empty(repo)
    context = VerifyContext(
        repo=repo,
        options=options,
        deadline=Deadline(options.timeout),
        work_dir=options.work_dir or _default_work_dir(repo, manifest_path),
    )
    started = time.monotonic()
    worker = threading.Thread(
        target=_guarded, args=(manifest_path, verdict, context), daemon=True, name="jig-verify"
    )
    worker.start()
    try:
        _wait(worker, started + options.timeout + _WATCHDOG_GRACE_SEC, context, on_tick)
    except KeyboardInterrupt:
        # Ctrl-C reaches only this thread; the pipeline's lake/lean run in their own
        # sessions and would outlive us. Kill them, let the worker notice, then stop.
        with stopping():
            worker.join(_WATCHDOG_GRACE_SEC)
        raise
    if worker.is_alive():
        # The pipeline is wedged in Python code; its child processes were bounded by the
        # deadline already. A fresh verdict, so a half-written one cannot leak out.
        verdict = _timed_out(verdict, context)
    verdict.timings_sec["total"] = time.monotonic() - started
    return verdict.finish()


def _wait(
    worker: threading.Thread,
    until: float,
    context: VerifyContext,
    on_tick: Tick | None,
) -> None:
    """Join `worker` by `until` (monotonic), telling `on_tick` the step as it goes."""
    started = time.monotonic()
    while worker.is_alive() and (now := time.monotonic()) < until:
        worker.join(min(_TICK_SEC, until - now) if on_tick is not None else until - now)
        if on_tick is not None:
            on_tick(context.step[0], time.monotonic() - started)


def _guarded(manifest_path: Path, verdict: Verdict, context: VerifyContext) -> None:
    try:
        _pipeline(manifest_path, verdict, context)
    except Exception as error:  # a crash anywhere still yields a red verdict
        import traceback  # here: it pulls in linecache, tokenize and textwrap

        verdict.fail(
            "verifier_error", f"{type(error).__name__}: {error} (during {context.step[0]})"
        )
        verdict.record("verifier", False, "the verifier crashed", traceback.format_exc())
    if context.deadline.expired() and verdict.reason is None:
        verdict.fail(
            "timeout", f"step={context.step[0]}: the {context.options.timeout:g} s budget ran out"
        )


def _pipeline(manifest_path: Path, verdict: Verdict, context: VerifyContext) -> None:
    context.enter("manifest")
    manifest = _read(manifest_path, context.repo, verdict)
    if manifest is None:
        return
    verdict.kind = manifest.kind
    verdict.statement_id = manifest.statement_id
    asked = context.options.statement_id
    if asked is not None and asked != manifest.statement_id:
        verdict.fail(
            "statement_id_mismatch",
            f"the manifest names {manifest.statement_id!r} but this run verifies {asked!r}",
        )
        return
    # Each pipeline is imported when its kind comes up: a certificate never pays for the
    # Lean modules' import, nor a Lean proof for the sandbox's.
    if manifest.kind == "lean":
        from jigcli.lean.pipeline import verify_lean

        verify_lean(manifest, verdict, context)
    else:
        from jigcli.certificates.pipeline import verify_certificate

        verify_certificate(manifest, verdict, context)


def _shown(repo: Repo, manifest_path: Path) -> str:
    """The manifest's repo-relative path as given (a link is named, never its target)."""
    if manifest_path.is_relative_to(repo.root):
        return shown_name(manifest_path.relative_to(repo.root).as_posix())
    return shown_name(repo.rel(manifest_path))


def _read(manifest_path: Path, repo: Repo, verdict: Verdict) -> Manifest | None:
    beneath = repo.root if manifest_path.is_relative_to(repo.root) else None
    below = manifest_path.relative_to(repo.root) if beneath else Path(manifest_path.name)
    odd = next(filter(None, (name_problem(part, _NAME_MAX) for part in below.parts)), None)
    if odd is not None:  # a name no verdict could quote as text
        verdict.fail("bad_manifest", f"the manifest's path: {odd}")
        verdict.record("manifest", False, f"the manifest's path: {odd}")
        return None
    try:
        manifest = read_manifest(manifest_path, beneath)
    except ManifestError as problem:
        verdict.fail("bad_manifest", str(problem))
        verdict.record("manifest", False, str(problem))
        return None
    verdict.record("manifest", True, "conject.submission.v1, valid")
    return manifest


def _timed_out(stale: Verdict, context: VerifyContext) -> Verdict:
    verdict = Verdict(
        kind=stale.kind,
        submission=stale.submission,
        statement_id=stale.statement_id,
        toolchain=stale.toolchain,
    )
    verdict.fail(
        "timeout", f"step={context.step[0]}: the {context.options.timeout:g} s budget ran out"
    )
    return verdict


def _pins_or_empty(repo: Repo) -> dict[str, str | None]:
    try:
        return repo.toolchain_pins()
    except OSError:
        return {}


def _default_work_dir(repo: Repo, manifest_path: Path) -> Path:
    return repo.work_dir / "work" / work_name(_shown(repo, manifest_path))


_WORK_NAME_BYTES = 120
_NAME_MAX = 255  # a file name's bytes on Linux


def work_name(rel: str) -> str:
    """A folder name for the manifest at `rel`: its path with `__` for `/`, shortened to a
    prefix and a digest where it would be too long for one name (deep or long names)."""
    name = rel.removesuffix(".json").replace("/", "__")
    if len(name.encode("utf-8", "backslashreplace")) <= _WORK_NAME_BYTES:
        return name
    digest = hashlib.sha256(rel.encode("utf-8", "backslashreplace")).hexdigest()[:16]
    return name.encode("utf-8", "backslashreplace")[:80].decode("utf-8", "ignore") + "-" + digest
