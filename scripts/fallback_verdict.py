"""Write a red verdict to PATH, saying why jig wrote none, unless jig wrote one in this run.

The dispatch job of the GitHub workflow runs this in an `if: always()` step, so a dispatch
always ends with a verdict that says what happened, never with silence:

    python scripts/fallback_verdict.py PATH SUBMISSION [STATEMENT_ID]
        --outcome OUTCOME [--exit-code CODE] [--job-status STATUS] [--ref REF]

OUTCOME is the `jig verify` step's `steps.<id>.outcome`; CODE is the exit status that step
recorded (empty when it never got to record one); STATUS is `job.status`. Why no verdict:

- jig exited 2 — it refused its arguments, which in this workflow means the manifest: a red
  `bad_manifest` saying no manifest could be read at that path on that ref;
- the job was cancelled or ran out of time before jig ended — a red `timeout`;
- anything else (jig crashed, was killed, or a set-up step failed before it ran) — a red
  `verifier_error`: not the submission's fault.

The verdict also goes into the job summary, as `jig verify` would have put it there. Only a
verdict jig wrote in this run counts: jig exited 0 or 1 (it exits so only after writing
`--out`) and PATH holds a JSON object. Anything else at PATH — a verdict committed to the
ref under test, a link, a folder, a write cut short — is replaced, never trusted.

It must work even when the job died before jig was installed, so it imports jig from the
checkout beside it (`jigcli.verdict`, `jigcli.summary`, `jigcli.safefiles` and
`jigcli.safewrite` need only the standard library).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jigcli.safefiles import Unreadable, read_file
from jigcli.summary import append_step_summary, verdict_markdown
from jigcli.verdict import Verdict

OUTCOMES = ("success", "failure", "cancelled", "skipped")
VERDICT_CAP = 16 * 1024 * 1024  # a verdict or manifest read back (never a FIFO, never GBs)
USAGE_ERROR = 2  # jig's exit status for arguments it refuses


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    path, submission = Path(args.path), args.submission
    if _jig_wrote(args.exit_code) and _has_verdict(path):
        return 0
    reason, detail = why(args)
    verdict = Verdict(
        kind=_kind(Path(submission)), submission=submission, statement_id=args.statement_id
    )
    verdict.fail(reason, detail)
    _clear(path)
    verdict.finish().write(path)
    append_step_summary(verdict_markdown(verdict.to_json()))
    print(f"wrote a red {reason} verdict to {path}: {detail}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fallback_verdict.py", description="Write a red verdict when jig wrote none."
    )
    parser.add_argument("path", help="where jig verify was to write its verdict")
    parser.add_argument("submission", help="the manifest, repo-relative")
    parser.add_argument("statement_id", nargs="?", default=None)
    # Empty when the step never started: a cancelled job may not list it at all.
    parser.add_argument("--outcome", required=True, choices=("", *OUTCOMES))
    parser.add_argument("--exit-code", default="", help="jig verify's exit status, if recorded")
    parser.add_argument("--job-status", default="", help="the job's status (job.status)")
    parser.add_argument("--ref", default="", help="the git ref the job checked out")
    return parser


def why(args: argparse.Namespace) -> tuple[str, str]:
    """The reason and detail for the missing verdict; jig's own exit status decides first,
    since once it ended by itself a later cancellation did not cause the silence."""
    code = int(args.exit_code) if args.exit_code.strip().isdigit() else None
    if code == USAGE_ERROR:
        return "bad_manifest", _unreadable(Path(args.submission), args.ref)
    if code is None and "cancelled" in (args.outcome, args.job_status):
        return (
            "timeout",
            "step=job: the CI job was cancelled or ran out of time before jig wrote a verdict",
        )
    if code is not None:
        how = f"exited {code}" + (f" (killed by signal {code - 128})" if code > 128 else "")
        return "verifier_error", f"jig verify {how} without writing a verdict; see the step's log"
    if args.outcome in ("skipped", ""):
        return (
            "verifier_error",
            "jig verify never ran: a set-up step before it failed; see the job log",
        )
    return (
        "verifier_error",
        f"the jig verify step ended ({args.outcome}) without a verdict or an exit status",
    )


def _unreadable(manifest: Path, ref: str) -> str:
    where = f"no manifest could be read at {manifest} on {ref or 'this checkout'}"
    if manifest.is_dir():
        return f"{where}: it is a folder; dispatch the path of one submission's .json"
    if not manifest.exists():
        return f"{where}: the file does not exist there; check the submission path and the ref"
    return f"{where}: jig verify refused it (exit 2); its message is in the step's log"


def _jig_wrote(exit_code: str) -> bool:
    """Whether jig verify ended having written its verdict: 0 green, 1 red, 4 red because
    this runner could not check it (no Lean, no sandbox)."""
    return exit_code.strip() in ("0", "1", "4")


def _has_verdict(path: Path) -> bool:
    try:
        return isinstance(json.loads(read_file(path, VERDICT_CAP)), dict)
    except (Unreadable, ValueError):
        return False


def _clear(path: Path) -> None:
    """Remove whatever is at `path` (a file, a link, a folder) so the verdict replaces it."""
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def _kind(manifest: Path) -> str:
    """The manifest's kind when it can be read, so a certificate is not called a Lean proof."""
    try:
        kind = json.loads(read_file(manifest, VERDICT_CAP)).get("kind")
    except (Unreadable, ValueError, AttributeError):
        return "lean"
    return kind if kind in ("lean", "certificate") else "lean"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
