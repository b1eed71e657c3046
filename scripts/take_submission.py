"""Bring one submission's folder from the ref under test into a checkout of the default branch.

The dispatch job of the GitHub workflow checks out the default branch: jig itself, the judge
(comparator and lean4export, by `lakefile.toml`), `Commons/`, the statements, the certificate
checkers and the pins are what was reviewed there (`jig pose check` guards them), never what the
ref under test says. This script then takes from that ref only the folder holding the
submission's manifest, so nothing a submitter wrote can stand in for the trusted side:

    python scripts/take_submission.py SUBMISSION REF

SUBMISSION must be `Submissions/<id>/<name>.json` or `Certificates/<id>/submissions/<name>.json`
(a Lean module and a witness sit beside their manifest); the folder is replaced by the ref's,
byte for byte, links and all (jig reads a submission through no link). Exit 0 when done; 2 when
SUBMISSION is not such a path, REF is not a plain ref, or the ref holds no such folder (the
fallback step then writes a red `bad_manifest`); 1 when git itself failed.

Standard library only: it runs before jig is installed from the trusted checkout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

# One folder level per part, each a plain name: no `..`, no `.`, no hidden name, no pathspec
# magic, no option.
_NAME = r"[A-Za-z0-9][A-Za-z0-9_-]*"
_MANIFEST = rf"{_NAME}(?:\.{_NAME})*\.json"
SUBMISSION_PATH = re.compile(
    rf"(?P<folder>Submissions/{_NAME}|Certificates/{_NAME}/submissions)/{_MANIFEST}"
)
# A branch, a tag or a commit id, as a dispatch names it: never an option, never a refspec.
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]{0,254}")
REFUSED, GIT_FAILED = 2, 1


class Refused(Exception):
    """Not something to take: the message says what to give instead."""


def submission_folder(submission: str) -> str:
    """The repo-relative folder to take for `submission`; `Refused` for anything else."""
    match = SUBMISSION_PATH.fullmatch(submission)
    if match is None:
        raise Refused(
            f"{submission!r} is not a submission manifest: give Submissions/<id>/<name>.json "
            "or Certificates/<id>/submissions/<name>.json"
        )
    return match["folder"]


def plain_ref(ref: str) -> str:
    if _REF.fullmatch(ref) is None or ".." in ref or ref.endswith((".lock", "/", ".")):
        raise Refused(f"{ref!r} is not a plain branch, tag or commit id")
    return ref


def take(checkout: Path, submission: str, ref: str) -> None:
    """Replace the submission's folder in `checkout` with the one at `ref` on `origin`."""
    folder = submission_folder(submission)
    try:
        _git(checkout, "fetch", "--no-tags", "--depth=1", "origin", plain_ref(ref))
    except subprocess.CalledProcessError as failure:
        if "couldn't find remote ref" in (failure.stderr or ""):
            raise Refused(f"origin has no ref {ref!r}") from None
        raise
    listed = _git(checkout, "ls-tree", "-d", "--name-only", "FETCH_HEAD", "--", folder)
    if listed.strip() != folder:
        raise Refused(f"the ref {ref!r} holds no folder {folder}")
    target = checkout / folder
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    _git(checkout, "checkout", "FETCH_HEAD", "--", folder)


def _git(checkout: Path, *args: str) -> str:
    # Literal pathspecs: a folder name is a name, never a pattern or magic.
    command = ["git", "--literal-pathspecs", "-C", str(checkout), *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
    return done.stdout


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: take_submission.py SUBMISSION REF", file=sys.stderr)
        return REFUSED
    submission, ref = argv
    try:
        take(Path.cwd(), submission, ref)
    except Refused as refusal:
        print(f"take_submission: {refusal}.", file=sys.stderr)
        return REFUSED
    except subprocess.CalledProcessError as failure:
        said = (failure.stderr or "").strip().splitlines()
        print(f"take_submission: git failed: {said[-1] if said else failure}", file=sys.stderr)
        return GIT_FAILED
    print(f"took {submission_folder(submission)}/ from {ref}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
