"""A pull request judged by the default branch's jig: what the workflow asks of the head.

The verify workflow runs on `pull_request_target`, so the workflow itself, jig, the judge
(comparator and lean4export, by `lakefile.toml`), `Commons/`, the statements, the checkers and
the pins all come from the BASE checkout, as reviewed there. The pull request's head is checked
out beside it, into `head/`, as data: nothing in it is installed, imported or run outside the
sandbox. Two steps need it:

    python scripts/pull_request.py base --head head --base SHA
        print the commit the head is compared against: the merge base of the head and SHA
        (the base branch's commit), so a statement added to the base branch after the head
        branched is not read as one the head deleted. The guard job then runs the base's
        `jig --root head pose check --base <that commit>`.

    python scripts/pull_request.py take --head head --base COMMIT [--into DIR]
        copy into DIR (the base checkout, default `.`) only what a pull request may bring to
        be self-tested: its submissions to statements COMMIT holds (`Submissions/<id>/…`),
        certificate submissions (`Certificates/<id>/submissions/…`) and new certificate
        problems (`Certificates/<id>/` folders COMMIT lacks: their checker runs only in the
        sandbox). A changed statement, checker, `Commons/`, pin, workflow or jig is
        never taken: the base's stays, and the guard has already refused the change. A NEW
        statement (`Statements/<label>.lean` that COMMIT lacks) is not taken either, nor the
        examples under `Submissions/<label>/`: the trusted build compiles statements outside
        the sandbox, so a statement is built only once it is reviewed and merged (the push to
        the default branch self-tests it); the guard has checked its form. Each path left out
        this way is listed as `left <path>: <why>`. A link or a submodule among what would be
        taken is refused (exit 2).

Exit 0 done; 2 refused (a malformed commit id, a link, a name that is not plain); 1 git failed.
Standard library only: it runs before jig is installed.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REFUSED, GIT_FAILED = 2, 1
_COMMIT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# One plain name per path part: no `.`/`..`, nothing hidden, no option.
_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_SUBMISSION = re.compile(r"Submissions/[^/]+/[^/]+|Certificates/[^/]+/submissions/[^/]+")
_STATEMENT = re.compile(r"Statements/([^/]+)\.lean")
_LEAN_SUBMISSION = re.compile(r"Submissions/(?P<id>[^/]+)/[^/]+")
_PROBLEM = re.compile(r"Certificates/(?P<id>[^/]+)/.+")
_REGULAR_MODES = ("100644", "100755")
_DELETED_MODE = "000000"


class Refused(Exception):
    """What the head asks cannot be taken; the message says why."""


@dataclass(frozen=True)
class Change:
    """One line of `git diff --raw`: a path's new mode and blob (zeros when deleted)."""

    path: str
    mode: str
    blob: str
    status: str


def merge_base(head: Path, base: str) -> str:
    """The commit `head`'s HEAD is compared against: its merge base with `base`."""
    return _git(head, "merge-base", "HEAD", _commit(base)).strip()


def changes(head: Path, base: str) -> list[Change]:
    """Every path that differs between `base` and the head's HEAD, renames split in two."""
    raw = _git(
        head,
        "diff",
        "--raw",
        "-z",
        "--no-abbrev",
        "--no-renames",
        "--no-ext-diff",
        _commit(base),
        "HEAD",
    )
    fields = raw.split("\0")
    found = []
    for info, path in zip(fields[0::2], fields[1::2], strict=False):
        if not info:
            continue
        _, new_mode, _, blob, status = info.lstrip(":").split(" ")
        found.append(Change(path, new_mode, blob, status))
    return found


_UNREVIEWED = (
    "a new statement is built by the trusted build, outside the sandbox, so only once it is "
    "reviewed and merged; the guard has checked its form"
)
_UNREVIEWED_EXAMPLE = "an example of a statement this pull request adds; self-tested once merged"


def taken(head: Path, base: str) -> tuple[list[Change], list[tuple[str, str]]]:
    """The changes a self-test may take from the head (submissions to statements the base
    holds, certificate submissions and new certificate problems), and those left out until
    review, with why; `Refused` for a link, a submodule or a name that is not plain."""
    listing = _git(head, "ls-tree", "-r", "--name-only", "-z", _commit(base), "--")
    base_problems = _problem_ids(listing)
    base_statements = {m[1] for path in listing.split("\0") if (m := _STATEMENT.fullmatch(path))}
    chosen, left = [], []
    for change in changes(head, base):
        unreviewed = _unreviewed(change, base_statements)
        if unreviewed is not None:
            left.append((change.path, unreviewed))
            continue
        if not _may_take(change, base_problems):
            continue
        if not all(_PART.fullmatch(part) for part in change.path.split("/")):
            raise Refused(f"{change.path!r} is not a plain path; rename it")
        if change.mode not in (*_REGULAR_MODES, _DELETED_MODE):
            raise Refused(f"{change.path} is a link or a submodule; submit plain files")
        chosen.append(change)
    return chosen, left


def _unreviewed(change: Change, base_statements: set[str]) -> str | None:
    """Why `change` waits for review: a statement the base lacks, or an example of one."""
    if _STATEMENT.fullmatch(change.path) and change.status == "A":
        return _UNREVIEWED
    example = _LEAN_SUBMISSION.fullmatch(change.path)
    if example is not None and example["id"] not in base_statements:
        return _UNREVIEWED_EXAMPLE
    return None


def _may_take(change: Change, base_problems: set[str]) -> bool:
    if _SUBMISSION.fullmatch(change.path):
        return True
    problem = _PROBLEM.fullmatch(change.path)
    return problem is not None and problem["id"] not in base_problems and change.status == "A"


def _problem_ids(listing: str) -> set[str]:
    return {m["id"] for path in listing.split("\0") if (m := _PROBLEM.fullmatch(path))}


def take(head: Path, base: str, into: Path) -> tuple[list[str], list[tuple[str, str]]]:
    """Apply the takeable changes to `into`; return the paths written or removed, and those
    left until review with why. Every target is checked before anything is written, so a
    refusal leaves `into` as it was."""
    chosen, left = taken(head, base)
    root = into.resolve()
    for change in chosen:
        if (into / change.path).parent.resolve() != (root / change.path).parent:
            raise Refused(f"{change.path}: a folder on its way in {into} is a link")
    for change in chosen:
        target = into / change.path
        if target.is_symlink() or target.exists():
            target.unlink()
        if change.mode != _DELETED_MODE:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_blob(head, change.blob))
            target.chmod(0o755 if change.mode == "100755" else 0o644)
    return [change.path for change in chosen], left


def _commit(commit: str) -> str:
    if _COMMIT.fullmatch(commit) is None:
        raise Refused(f"{commit!r} is not a full commit id")
    return commit


def _blob(head: Path, blob: str) -> bytes:
    command = ["git", "-C", str(head), "cat-file", "blob", _commit(blob)]
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
    return done.stdout


def _git(head: Path, *args: str) -> str:
    command = ["git", "--literal-pathspecs", "-C", str(head), *args]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, command, done.stdout, done.stderr)
    return done.stdout


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pull_request.py", description=__doc__.split("\n")[0])
    steps = parser.add_subparsers(dest="step", required=True)
    for name in ("base", "take"):
        step = steps.add_parser(name)
        step.add_argument("--head", type=Path, required=True, help="the head's checkout")
        step.add_argument("--base", required=True, help="a full commit id")
        if name == "take":
            step.add_argument("--into", type=Path, default=Path("."), help="the base checkout")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.step == "base":
            print(merge_base(args.head, args.base))
        else:
            written, left = take(args.head, args.base, args.into)
            for path in written:
                print(f"took {path}")
            for path, why in left:
                print(f"left {path}: {why}")
    except Refused as refusal:
        print(f"pull_request: {refusal}.", file=sys.stderr)
        return REFUSED
    except subprocess.CalledProcessError as failure:
        said = str(failure.stderr or "").strip().splitlines()
        print(f"pull_request: git failed: {said[-1] if said else failure}", file=sys.stderr)
        return GIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
